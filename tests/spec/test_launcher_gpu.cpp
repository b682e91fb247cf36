// Spec kernels on a GPU: TunedKernel compiles the database's configuration
// once, launches it with the problem's geometry and computes the right
// result; the example specs' configurations match their references
// (main: tests/common/gpu_test_main.cpp).
#include "tuned_database.hpp"

#include <blocktune/detail/device_query.hpp>
#include <blocktune/builder.hpp>
#include <blocktune/kernels.hpp>
#include <blocktune/launcher.hpp>
#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

using namespace blocktune;
using namespace blocktune::test;

namespace {

const std::filesystem::path kTemp = std::filesystem::temp_directory_path() / ("blocktune-launcher-gpu-" + std::to_string(::getpid()));

// y = a * x + y over n elements, each thread taking ITEMS of them.
KernelDescription saxpy() {
  return KernelBuilder("launcher_saxpy")
      .source(R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
  for (int i = first; i < first + ITEMS && i < n; ++i) y[i] += a * x[i];
})",
              "saxpy.cu")
      .entry("saxpy")
      .problem({"n"})
      .parameter("block_x", {64, 128, 256})
      .parameter("items", {1, 4})
      .default_config("block_x=64,items=1")
      .block({"block_x"})
      .grid_divisors({"block_x * items"})
      .scalar("a", ElementType::f32, "2")
      .buffer("x", ElementType::f32, "n")
      .buffer("y", ElementType::f32, "n")
      .output("y")
      .scalar("n", ElementType::i32, "n")
      .build();
}

std::filesystem::path database_with(const KernelDescription& kernel, const DeviceInfo& device, const std::string& config) {
  std::filesystem::create_directories(kTemp);
  const auto file = kTemp / "tuning.db";
  std::filesystem::remove(file);
  store_winner(file, kernel, device, ProblemSize::parse("100000"), config, 0.01);
  return file;
}

// Runs y += 2 x with x[i] = i and y[i] = 1 and checks every element.
void check_saxpy(TunedKernel& kernel, int n) {
  std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n), 1.0f);
  for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i);
  DeviceBuffer dx(x.size() * sizeof(float)), dy(y.size() * sizeof(float));
  dx.upload(x.data(), x.size() * sizeof(float));
  dy.upload(y.data(), y.size() * sizeof(float));
  float a = 2;
  CUdeviceptr px = dx.get(), py = dy.get();
  kernel.launch(ProblemSize{{n}}, {&a, &px, &py, &n});
  check(Driver::get().cuCtxSynchronize(), "cuCtxSynchronize");
  dy.download(y.data(), y.size() * sizeof(float));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += y[static_cast<std::size_t>(i)] != 1.0f + 2.0f * static_cast<float>(i);
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("a tuned kernel launches the database's configuration, compiled once", "[gpu][launcher]") {
  const KernelDescription k = saxpy();
  const auto file = database_with(k, query_device(0), "block_x=128,items=4");
  TunedKernel kernel(k, TuningDatabase::open(file), 0, VariantCompiler(std::nullopt));
  const Selection& selection = kernel.select(ProblemSize::parse("100000"));
  CHECK(selection.match == MatchKind::exact);
  CHECK(selection.config.to_string() == "block_x=128,items=4");
  check_saxpy(kernel, 100000);
  check_saxpy(kernel, 100000);
  check_saxpy(kernel, 5000);  // the nearest tuned size's configuration: no new compile
  CHECK(kernel.loaded_variants() == 1);
  CHECK_THROWS_WITH(kernel.launch(ProblemSize{{10}}, {nullptr}), "kernel launcher_saxpy takes 4 arguments (a, x, y, n), got 1");
}

TEST_CASE("with nothing tuned, the default configuration is launched", "[gpu][launcher]") {
  std::filesystem::create_directories(kTemp);
  const auto file = kTemp / "empty.db";
  std::filesystem::remove(file);
  Store::open(file);
  TunedKernel kernel(saxpy(), TuningDatabase::open(file), 0, VariantCompiler(std::nullopt));
  CHECK(kernel.select(ProblemSize::parse("3000")).match == MatchKind::none);
  CHECK(kernel.select(ProblemSize::parse("3000")).config.to_string() == "block_x=64,items=1");
  check_saxpy(kernel, 3000);
}

TEST_CASE("a tuned kernel from a spec file: the example transpose", "[gpu][launcher]") {
  std::filesystem::create_directories(kTemp);
  const auto file = kTemp / "transpose.db";
  std::filesystem::remove(file);
  Store::open(file);
  TunedKernel transpose(std::filesystem::path(BLOCKTUNE_SOURCE_DIR) / "examples/specs/transpose/spec.json", TuningDatabase::open(file), 0,
                        VariantCompiler(std::nullopt));
  int nx = 300, ny = 200;
  std::vector<float> in(static_cast<std::size_t>(nx * ny)), out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  DeviceBuffer din(in.size() * sizeof(float)), dout(in.size() * sizeof(float));
  din.upload(in.data(), in.size() * sizeof(float));
  CUdeviceptr pin = din.get(), pout = dout.get();
  transpose.launch(ProblemSize{{nx, ny}}, {&pin, &pout, &nx, &ny});
  check(Driver::get().cuCtxSynchronize(), "cuCtxSynchronize");
  dout.download(out.data(), out.size() * sizeof(float));
  int wrong = 0;
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) wrong += out[static_cast<std::size_t>(x * ny + y)] != in[static_cast<std::size_t>(y * nx + x)];
  CHECK(wrong == 0);
  std::filesystem::remove_all(kTemp);
}

TEST_CASE("the example specs' configurations give their references' results", "[gpu][examples]") {
  struct Example {
    const char* folder;
    const char* problem;  // not multiples of the tiles, to exercise the edges
  };
  const DeviceInfo device = query_device(0);
  const VariantCompiler compiler(std::nullopt);
  for (const Example& example : {Example{"matmul", "500x300x200"}, Example{"transpose", "1000x700"}, Example{"reduction", "1000003"},
                                 Example{"conv2d", "1000x700"}, Example{"stencil3d", "96x80x72"}}) {
    const KernelDescription k = load_spec(std::filesystem::path(BLOCKTUNE_SOURCE_DIR) / "examples/specs" / example.folder / "spec.json");
    const ProblemSize problem = ProblemSize::parse(example.problem);
    const std::vector<Config> valid = k.space.enumerate(environment(k, device, problem));
    for (const Config& config : {Config::parse(k.default_config), valid.front(), valid[valid.size() / 2], valid.back()}) {
      const TrialRecord trial = measure_one(k, 0, problem, config, compiler, {.min_repeats = 3, .max_repeats = 3});
      INFO(example.folder << " " << config.to_string() << ": " << trial.message);
      CHECK(trial.outcome == Outcome::ok);
      CHECK(trial.median_ms > 0);
    }
  }
}

TEST_CASE("a constant argument fills the kernel's __constant__ variable, when measured and in TunedKernel", "[gpu][launcher]") {
  BufferArgument factors{.name = "factors", .type = ElementType::f32, .count = "4", .init = BufferArgument::Init::values};
  factors.values = {1, 2, 3, 4};
  factors.constant = true;
  const KernelDescription k =
      KernelBuilder("launcher_constant")
          .source(R"(
__constant__ float factors[4];
extern "C" __global__ void scale(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * factors[i % 4];
}
// Reads no constant: it agrees with scale only where the constant was filled.
extern "C" __global__ void scale_reference(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * (float)(i % 4 + 1);
})",
                  "scale.cu")
          .entry("scale")
          .problem({"n"})
          .parameter("block_x", {64, 128})
          .block({"block_x"})
          .grid_divisors({"block_x"})
          .buffer(factors)
          .buffer("x", ElementType::f32, "n")
          .buffer("y", ElementType::f32, "n")
          .output("y")
          .scalar("n", ElementType::i32, "n")
          .reference_kernel({.entry = "scale_reference", .block = {"128"}, .grid = {"ceil_div(n, 128)"}})
          .build();
  CHECK(kernel_parameter_count(k) == 3);
  const TrialRecord measured = measure_one(k, 0, ProblemSize{{1000}}, Config::parse("block_x=64"), VariantCompiler(std::nullopt), {});
  INFO(measured.message);
  CHECK(measured.outcome == Outcome::ok);

  const auto file = database_with(k, query_device(0), "block_x=128");
  TunedKernel kernel(k, TuningDatabase::open(file), 0, VariantCompiler(std::nullopt));
  const float values[4] = {1, 2, 3, 4};
  kernel.set_constant("factors", values, sizeof values);
  CHECK_THROWS_WITH(kernel.set_constant("x", values, sizeof values), "kernel launcher_constant has no constant argument 'x'");
  int n = 1000;
  std::vector<float> x(static_cast<std::size_t>(n), 2.0f), y(x.size(), 0.0f);
  DeviceBuffer dx(x.size() * sizeof(float)), dy(y.size() * sizeof(float));
  dx.upload(x.data(), x.size() * sizeof(float));
  CUdeviceptr px = dx.get(), py = dy.get();
  kernel.launch(ProblemSize{{n}}, {&px, &py, &n});
  check(Driver::get().cuCtxSynchronize(), "cuCtxSynchronize");
  dy.download(y.data(), y.size() * sizeof(float));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += y[static_cast<std::size_t>(i)] != 2.0f * static_cast<float>(i % 4 + 1);
  CHECK(wrong == 0);
}

TEST_CASE("buffers sized by parameters are made for each configuration and checked against a reference of that size", "[gpu][launcher]") {
  BufferArgument weights{.name = "weights", .type = ElementType::f32, .count = "taps", .init = BufferArgument::Init::uniform};
  const KernelDescription k =
      KernelBuilder("launcher_taps")
          .source(R"(
// out[i] = sum of taps weights times the inputs from i on: in holds n + taps - 1 values.
extern "C" __global__ void filter(float* out, const float* in, const float* weights, int taps, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < taps; ++k) sum += weights[k] * in[i + k];
  out[i] = sum;
}
extern "C" __global__ void filter_reference(float* out, const float* in, const float* weights, int taps, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float sum = 0.0f;
    for (int k = 0; k < taps; ++k) sum += weights[k] * in[i + k];
    out[i] = sum;
  }
})",
                  "filter.cu")
          .entry("filter")
          .problem({"n"})
          .parameter("block_x", {64, 128})
          .parameter("taps", {3, 9})
          .block({"block_x"})
          .grid_divisors({"block_x"})
          .buffer("out", ElementType::f32, "n")
          .output("out")
          .buffer("in", ElementType::f32, "n + taps - 1")
          .buffer(weights)
          .scalar("tap_count", ElementType::i32, "taps")
          .scalar("n", ElementType::i32, "n")
          .reference_kernel({.entry = "filter_reference", .block = {"128"}, .grid = {"64"}})
          .tolerance(1e-6)
          .build();
  const Remeasured measured = measure_many(k, 0, ProblemSize{{100000}},
                                           {Config::parse("block_x=64,taps=3"), Config::parse("block_x=128,taps=9"),
                                            Config::parse("block_x=128,taps=3")},
                                           VariantCompiler(std::nullopt), {});
  REQUIRE(measured.trials.size() == 3);
  for (const TrialRecord& trial : measured.trials) {
    INFO(trial.config << ": " << trial.message);
    CHECK(trial.outcome == Outcome::ok);
  }
}

TEST_CASE("a tuned kernel runs N time steps as its plan says, and agrees with N single steps", "[gpu][launcher][time_steps]") {
  const KernelDescription k = stencil3d(1);
  const DeviceInfo device = query_device(0);
  const ProblemSize problem{{64, 48, 40}, 8};
  // Two launches of three fused steps, then two single steps: the plan the store makes of these two.
  std::filesystem::create_directories(kTemp);
  const auto file = kTemp / "steps.db";
  std::filesystem::remove(file);
  store_session(file, k, device, problem,
                {{"block_x=32,block_y=8,block_z=1,strategy=STREAM,zloop=REG,z_chunk=16,vx=1,py=2,fused_steps=3,carveout=-1", {32, 8, 1}, 3, 0.02},
                 {"block_x=32,block_y=8,block_z=1,strategy=CSL,zloop=REG,z_chunk=8,vx=2,py=2,fused_steps=1,carveout=-1", {32, 8, 1}, 1, 0.01}});
  const auto empty = kTemp / "empty.db";
  Store::open(empty);
  TunedKernel planned(k, TuningDatabase::open(file), 0, VariantCompiler(std::nullopt));
  TunedKernel single(k, TuningDatabase::open(empty), 0, VariantCompiler(std::nullopt));
  REQUIRE(planned.select(problem).launches == 2);
  REQUIRE(planned.select(problem).remainder.size() == 2);

  const std::size_t cells = 64 * 48 * 40;
  std::vector<float> initial(cells);
  for (std::size_t i = 0; i < cells; ++i) initial[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f;
  const std::vector<float> coefficients = {-0.5f, 0.25f / 3};
  const auto run = [&](TunedKernel& kernel, std::int64_t expected_launches) {
    DeviceBuffer a(cells * sizeof(float)), b(cells * sizeof(float)), c(coefficients.size() * sizeof(float));
    a.upload(initial.data(), cells * sizeof(float));
    b.upload(initial.data(), cells * sizeof(float));  // steps leave the boundary as it is
    c.upload(coefficients.data(), coefficients.size() * sizeof(float));
    CUdeviceptr in = a.get(), out = b.get(), coef = c.get();
    int nx = 64, ny = 48, nz = 40;
    CHECK(kernel.run_steps(problem, {&in, &out, &coef, &nx, &ny, &nz}) == expected_launches);
    check(Driver::get().cuCtxSynchronize(), "cuCtxSynchronize");
    CHECK(in != out);
    std::vector<float> result(cells);
    (out == a.get() ? a : b).download(result.data(), cells * sizeof(float));
    return result;
  };
  // Even counts of launches: the result is in the buffer passed as the input, and `out` is swapped to name it.
  const std::vector<float> fused = run(planned, 4);
  const std::vector<float> reference = run(single, 8);
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < cells; ++i) {
    difference += (double(fused[i]) - reference[i]) * (double(fused[i]) - reference[i]);
    norm += double(reference[i]) * reference[i];
  }
  CHECK(std::sqrt(difference / norm) < 1e-5);
  std::size_t changed = 0;  // eight steps moved the interior away from where it started
  for (std::size_t i = 0; i < cells; ++i) changed += reference[i] != initial[i];
  CHECK(changed > cells / 2);
}
