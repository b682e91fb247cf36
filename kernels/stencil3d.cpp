#include <blocktune/kernels.hpp>
#include <blocktune/spec.hpp>
#include <blocktune/stencil_work.hpp>

#include <filesystem>

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <thread>

namespace blocktune {

extern const char* const kStencil3dSource;  // stencil3d.cu, embedded at build time
extern const char* const kStencil3dResidualJson;  // stencil3d_residual.json, embedded at build time

namespace {

// Coefficients that keep the sum near the input's magnitude.
std::vector<double> stencil_coefficients(int radius) {
  std::vector<double> c(static_cast<std::size_t>(radius) + 1);
  c[0] = -0.5;
  for (int r = 1; r <= radius; ++r) c[static_cast<std::size_t>(r)] = 0.25 / (r * r * 3);
  return c;
}

// One step of the stencil on the interior, in double precision, on all cores;
// `out` outside the interior is left as it is.
template <typename In, typename Out>
void stencil_step(int radius, const ProblemSize& problem, std::span<const In> in, std::span<Out> out, std::span<const double> c) {
  const std::int64_t nx = problem.dims[0], ny = problem.dims[1], nz = problem.dims[2];
  const std::int64_t sy = nx, sz = nx * ny;
  auto planes = [&](std::int64_t k_begin, std::int64_t k_end) {
    for (std::int64_t k = k_begin; k < k_end; ++k)
      for (std::int64_t j = radius; j < ny - radius; ++j)
        for (std::int64_t i = radius; i < nx - radius; ++i) {
          const std::int64_t at = k * sz + j * sy + i;
          double sum = c[0] * in[at];
          for (std::int64_t r = 1; r <= radius; ++r)
            sum += c[r] * (double(in[at - r]) + in[at + r] + in[at - r * sy] + in[at + r * sy] + in[at - r * sz] + in[at + r * sz]);
          out[at] = static_cast<Out>(sum);
        }
  };
  const std::int64_t first = radius, last = nz - radius;
  const auto workers = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::jthread> threads;
  for (std::int64_t w = 0; w < workers; ++w) {
    const std::int64_t begin = first + (last - first) * w / workers, end = first + (last - first) * (w + 1) / workers;
    threads.emplace_back(planes, begin, end);
  }
}

// `steps` steps of the stencil from `in` into `out`'s interior. Intermediate
// steps are kept in double precision and, like the last one, leave the points
// outside the interior at their input value.
template <typename Real>
void reference_stencil(int radius, int steps, const ProblemSize& problem, std::vector<HostBuffer>& buffers) {
  const auto in = buffers[0].as<const Real>();
  const auto out = buffers[1].as<Real>();
  const auto coefficients = buffers[2].as<const Real>();
  const std::vector<double> c(coefficients.begin(), coefficients.end());
  if (steps == 1) {
    stencil_step<Real, Real>(radius, problem, in, out, c);
    return;
  }
  std::vector<double> current(in.begin(), in.end()), next = current;  // a ping-pong pair
  for (int s = 1; s < steps; ++s) {
    stencil_step<double, double>(radius, problem, current, next, c);
    std::swap(current, next);
  }
  stencil_step<double, Real>(radius, problem, current, out, c);
}

}  // namespace

KernelDescription stencil3d(int radius, ElementType type) {
  if (radius < 1 || radius > 5) throw std::invalid_argument(fmt::format("stencil radius {} is outside 1 to 5", radius));
  if (type != ElementType::f32 && type != ElementType::f64)
    throw std::invalid_argument("the stencil computes in f32 or f64");
  const bool f64 = type == ElementType::f64;
  KernelDescription k;
  k.name = fmt::format("stencil3d_r{}{}", radius, f64 ? "_f64" : "");
  k.origin = "builtin:" + k.name;
  k.summary = fmt::format("3D star stencil, radius {} ({} points), {}", radius, 6 * radius + 1, f64 ? "FP64" : "FP32");
  k.source = kStencil3dSource;
  k.source_name = "stencil3d.cu";
  k.entry = fmt::format("stencil3d<{}>", radius);
  if (f64) k.options.push_back("-DREAL=double");

  // The codings of seeds 000 and 001 (see stencil3d.cu) and the launch shape.
  k.space.add_parameter({"block_x", {16, 32, 64, 128, 256}});
  k.space.add_parameter({"block_y", {1, 2, 4, 8, 16, 32}});
  k.space.add_parameter({"block_z", {1, 2, 4}});
  k.space.add_parameter({"strategy", {std::string("BASE"), std::string("CSL"), std::string("COMP"), std::string("STREAM"), std::string("RING"),
                                         std::string("PLANE")}});
  k.space.add_parameter({"zloop", {std::string("NONE"), std::string("INTZ"), std::string("REG")}});
  k.space.add_parameter({"z_chunk", {1, 8, 16, 32, 64, 128}});
  k.space.add_parameter({"vx", {1, 2, 4}});
  k.space.add_parameter({"py", {1, 2, 4}});
  k.space.add_parameter({"fused_steps", {1, 2, 3, 4, 5, 6}});
  k.space.add_parameter({"carveout", {-1, 0, 100}});
  k.space.add_constraint("block_x * block_y * block_z <= max_threads_per_block");

  k.space.add_constraint("block_x * block_y * block_z >= 64");
  // Blocks 16 threads wide or 32 high only for PLANE: 16 x 16 threads of
  // 4-point vectors make its 64-point tile, 16 x 32 with 2 rows each a 64 x 64 one.
  k.space.add_constraint(R"(strategy == "PLANE" ? block_x <= 64 : block_x >= 32 && block_y <= 16)");
  // A z loop walks a chunk of planes; without one each thread takes one plane.
  // STREAM's and PLANE's chunks may be longer: each one warms up 2 * fused_steps * radius planes.
  k.space.add_constraint(R"(zloop == "NONE" ? z_chunk == 1 : z_chunk > 1 && block_z == 1)");
  k.space.add_constraint(R"(z_chunk <= 64 || strategy == "STREAM" || strategy == "PLANE")");
  k.space.add_constraint("nx % vx == 0");  // vector loads stay aligned
  // COMP's tiles (stencil3d.cu): the block's rows and R rows either side, its
  // columns and `lead` >= R columns either side (a multiple of the vector and of
  // a 16-byte copy), per z slice, two of them with a z loop.
  const std::int64_t chunk = 16 / static_cast<std::int64_t>(size_of(type));
  const std::string align = fmt::format("(vx > {0} ? vx : {0})", chunk);
  const std::string comp_lead = fmt::format("(({} + {} - 1) / {} * {})", radius, align, align, align);
  const std::string comp_smem = fmt::format("block_z * (z_chunk > 1 ? 2 : 1) * (block_y * py + {}) * (block_x * vx + 2 * {}) * {}",
                                            2 * radius, comp_lead, size_of(type));
  k.space.add_constraint(fmt::format(R"(strategy != "COMP" || {} <= max_shared_per_block)", comp_smem));
  // STREAM and PLANE are the codings that fuse steps (STREAM: a warp spans its
  // tile's width). Each streams z through a register ring (REG) of fused_steps x (2 * radius + 1)
  // planes x py x vx values; it warms up 2 * fused_steps * radius planes per
  // chunk, so short chunks are pointless; it needs shared memory, so no zero
  // carveout. The other codings' register queue (REG) of 2 * radius + 1 planes
  // x py x vx values keeps to 64 registers. STREAM's and RING's loads in flight
  // sit in shared memory, not registers, so their rings may take more: RING's 96
  // registers (48 FP64 values), STREAM's and PLANE's 96 FP32 or 64 FP64 values
  // (ptxas fits a 96-value FP32 ring in 115-128 registers without spilling, at
  // 512 threads a block; PLANE holds smaller blocks to 128 registers too).
  k.space.add_constraint(R"(strategy != "STREAM" || block_x == 32)");
  k.space.add_constraint(fmt::format(R"(strategy == "STREAM" || strategy == "PLANE" ? zloop == "REG" && z_chunk >= 16 && carveout != 0 && )"
                                     R"(fused_steps * {0} * py * vx <= {2} : fused_steps == 1 && (zloop != "REG" || {0} * py * vx <= )"
                                     R"((strategy == "RING" ? {1} : 64)))",
                                     2 * radius + 1, 96 * 4 / size_of(type), f64 ? 64 : 96));
  // RING is COMP's tile fed like REG's queue (stencil3d.cu): a z loop with the
  // queue; per slot of its ring (RING_DEPTH + 1 = 4) a tile as COMP's and the
  // block's points of the queue's new plane.
  k.space.add_constraint(R"(strategy != "RING" || zloop == "REG")");
  const std::string ring_smem = fmt::format("4 * ((block_y * py + {}) * (block_x * vx + 2 * {}) + block_y * py * block_x * vx) * {}", 2 * radius,
                                            comp_lead, size_of(type));
  k.space.add_constraint(fmt::format(R"(strategy != "RING" || {} <= max_shared_per_block)", ring_smem));
  // Several rows per thread share their y neighbours plane after plane: only
  // with a z loop and vector rows, and a block's rows stay within block_y's range.
  k.space.add_constraint(R"(strategy == "STREAM" || strategy == "PLANE" || py == 1 || zloop != "NONE" && vx >= 2 && block_y * py <= 16)");
  // Its tile must be mostly written: at least half of it outside the redundant halo.
  const std::string halo = fmt::format("fused_steps * {}", radius);
  const std::string lead = fmt::format("(({} - {} + vx - 1) / vx * vx)", halo, radius);
  const std::string written_x = fmt::format("((block_x * vx - {} - {} - {}) / vx * vx)", halo, radius, lead);
  const std::string written_y = fmt::format("(block_y * py - 2 * {})", halo);
  k.space.add_constraint(fmt::format(R"(strategy != "STREAM" || {0} > 0 && {1} > 0 && 2 * {0} * {1} >= block_x * vx * block_y * py)",
                                     written_x, written_y));
  // Per fused step two planes of the tile, and the input's ring of prefetched
  // planes: about 32 KB in flight, 2 to 8 planes ahead, plus the slot being read.
  const std::string stream_tile = fmt::format("block_y * py * block_x * vx * {}", size_of(type));
  const std::string stream_smem = fmt::format("(fused_steps * 2 + max(2, min(8, 32768 / ({0}))) + 1) * {0}", stream_tile);
  k.space.add_constraint(fmt::format(R"(strategy != "STREAM" || {} <= max_shared_per_block)", stream_smem));
  // PLANE's tile, as STREAM's, mostly written; its written columns start a whole
  // vector in (`plane_lead` >= the halo), so that its stores are vector stores.
  const std::string plane_lead = fmt::format("(({} + vx - 1) / vx * vx)", halo);
  const std::string plane_written_x = fmt::format("((block_x * vx - {} - {}) / vx * vx)", halo, plane_lead);
  k.space.add_constraint(fmt::format(R"(strategy != "PLANE" || {0} > 0 && {1} > 0 && 2 * {0} * {1} >= block_x * vx * block_y * py)",
                                     plane_written_x, written_y));
  // Per fused step two planes of the tile with R rows above and below and
  // `lead` columns either side (R, rounded up as COMP's), and the input's ring as STREAM's.
  const std::string plane_level = fmt::format("(block_y * py + {}) * (block_x * vx + 2 * {}) * {}", 2 * radius, comp_lead, size_of(type));
  const std::string plane_smem = fmt::format("fused_steps * 2 * {1} + (max(2, min(8, 32768 / ({0}))) + 1) * {0}", stream_tile, plane_level);
  k.space.add_constraint(fmt::format(R"(strategy != "PLANE" || {} <= max_shared_per_block)", plane_smem));
  // A launch advances fused_steps time steps, reading `in` and writing `out`.
  set_time_steps(k, "fused_steps", "in", "out");
  k.defines = {"block_x", "block_y", "block_z", "strategy", "zloop", "z_chunk", "vx", "py", "fused_steps"};

  const std::string interior = fmt::format("- {}", 2 * radius);
  // PLANE's tiles start at the x and y faces and step by their written part;
  // the last one reaches the far face (stencil3d.cu).
  k.grid = {fmt::format(R"(strategy == "STREAM" ? ceil_div(nx {0}, {1}) : strategy == "PLANE" ? 1 + ceil_div(max(0, nx - block_x * vx), {2}) : ceil_div(nx, block_x * vx))",
                        interior, written_x, plane_written_x),
            fmt::format(R"(strategy == "STREAM" ? ceil_div(ny {0}, {1}) : strategy == "PLANE" ? 1 + ceil_div(max(0, ny - block_y * py), {1}) : ceil_div(ny {0}, block_y * py))",
                        interior, written_y),
            fmt::format("ceil_div(nz {}, block_z * z_chunk)", interior)};
  k.dynamic_smem = fmt::format(R"(strategy == "STREAM" ? {} : strategy == "PLANE" ? {} : strategy == "COMP" ? {} : strategy == "RING" ? {} : 0)",
                               stream_smem, plane_smem, comp_smem, ring_smem);
  k.carveout = "carveout";

  k.arguments = {
      BufferArgument{.name = "in", .type = type, .count = "nx * ny * nz", .seed = 1},
      BufferArgument{.name = "out", .type = type, .count = "nx * ny * nz", .seed = 2, .output = true},
      BufferArgument{.name = "coefficients", .type = type, .count = fmt::format("{}", radius + 1),
                     .init = BufferArgument::Init::values, .values = stencil_coefficients(radius)},
      ScalarArgument{"nx", ElementType::i32, "nx"},
      ScalarArgument{"ny", ElementType::i32, "ny"},
      ScalarArgument{"nz", ElementType::i32, "nz"},
  };
  // The seed's naive configuration: BASE, one point per thread, 32x16x1.
  k.default_config = "block_x=32,block_y=16,block_z=1,strategy=BASE,zloop=NONE,z_chunk=1,vx=1,py=1,fused_steps=1,carveout=-1";
  // Per launch, fused_steps time steps: the metrics are effective per-step
  // figures (bytes and flops of that many single steps), comparable across them.
  k.bytes_moved = fmt::format("fused_steps * {} * nx * ny * nz", 2 * size_of(type));
  k.flops = fmt::format("fused_steps * {} * (nx {}) * (ny {}) * (nz {})", 2 * (6 * radius + 1) - 1, interior, interior, interior);
  k.reference = [radius, f64](const ProblemSize& problem, const Config& config, std::vector<HostBuffer>& buffers) {
    const int steps = config.find("fused_steps") ? static_cast<int>(config.get_int("fused_steps")) : 1;
    if (f64)
      reference_stencil<double>(radius, steps, problem, buffers);
    else
      reference_stencil<float>(radius, steps, problem, buffers);
  };
  k.reference_key = "fused_steps";
  // For the execution-time model: the traffic and instructions of each coding,
  // counted in stencil3d_work.cpp.
  k.work = [radius, type](const ProblemSize& problem, const Config& config) -> std::optional<KernelWork> {
    if (problem.dims.size() != 3) return std::nullopt;
    return stencil3d_work(radius, static_cast<int>(size_of(type)), {problem.dims[0], problem.dims[1], problem.dims[2]}, config);
  };
  // What the counts miss, learned from recorded spaces (bench/experiments/train_residual.py).
  static const ResidualModel residual = parse_residual_model(kStencil3dResidualJson, "stencil3d_residual.json");
  k.residual = &residual;
  k.tolerance = f64 ? 1e-12 : 1e-5;
  return k;
}

std::vector<std::string> builtin_kernel_names() {
  std::vector<std::string> names;
  for (int r = 1; r <= 5; ++r) names.push_back(fmt::format("stencil3d_r{}", r));
  for (int r = 1; r <= 5; ++r) names.push_back(fmt::format("stencil3d_r{}_f64", r));
  names.emplace_back("faults");
  return names;
}

KernelDescription load_kernel(std::string_view name_or_spec) {
  if (name_or_spec.starts_with("builtin:")) return builtin_kernel(name_or_spec.substr(8));
  const bool spec = name_or_spec.starts_with("spec:") || name_or_spec.ends_with(".json");
  if (!spec) return builtin_kernel(name_or_spec);
  if (name_or_spec.starts_with("spec:")) name_or_spec.remove_prefix(5);
  const auto path = std::filesystem::absolute(std::filesystem::path(name_or_spec));
  KernelDescription kernel = load_spec(path);
  kernel.origin = "spec:" + path.string();
  return kernel;
}

KernelDescription builtin_kernel(std::string_view name) {
  for (int r = 1; r <= 5; ++r) {
    if (name == fmt::format("stencil3d_r{}", r)) return stencil3d(r);
    if (name == fmt::format("stencil3d_r{}_f64", r)) return stencil3d(r, ElementType::f64);
  }
  if (name == "faults") return faults();
  throw std::invalid_argument(fmt::format("unknown kernel '{}': built-in kernels are {}", name, fmt::join(builtin_kernel_names(), ", ")));
}

}  // namespace blocktune
