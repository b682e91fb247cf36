// transpose_app: a minimal application on blocktune's installed launch API.
//
//   transpose_app [--spec FILE] [--db FILE] [--size NXxNY] [--device N]
//
// TunedKernel reads the kernel's spec (examples/specs/transpose), asks the
// tuning database for the configuration tuned for this GPU and problem size
// (or uses the spec's default when the database has none), compiles it once
// with NVRTC and launches it. The result is checked against a transpose on
// the CPU. Tune first to launch a tuned configuration:
//
//   blocktune tune --spec examples/specs/transpose/spec.json --problem 4096x4096
//
// Exit status: 0 when the GPU's result is right, 1 when it is not or on an
// error, 77 when there is no GPU (no driver or no device).
#include <blocktune/blocktune.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int kNoGpu = 77;

void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(code));
}

struct Options {
  std::filesystem::path spec = TRANSPOSE_SPEC;
  std::filesystem::path database = blocktune::default_database_path();
  blocktune::ProblemSize problem{{4096, 4096}};
  int device = 0;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument("option " + std::string(flag) + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--spec") options.spec = value;
    else if (flag == "--db") options.database = value;
    else if (flag == "--size") options.problem = blocktune::ProblemSize::parse(value);
    else if (flag == "--device") options.device = std::stoi(value);
    else throw std::invalid_argument("unknown option " + std::string(flag));
  }
  if (options.problem.dims.size() != 2) throw std::invalid_argument("--size takes two dimensions, NXxNY");
  return options;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse(argc, argv);

  // No database yet: launch the spec's default configuration.
  blocktune::TuningDatabase database = blocktune::TuningDatabase::empty();
  if (std::filesystem::exists(options.database)) database = blocktune::TuningDatabase::open(options.database);
  else std::printf("no tuning database at %s: the spec's default configuration\n", options.database.c_str());

  // Loads the spec, then makes the GPU's primary context current (the one the
  // CUDA runtime below uses too). Throws GpuUnavailable where there is no GPU.
  blocktune::TunedKernel transpose(options.spec, database, options.device);
  const blocktune::ProblemSize& problem = options.problem;
  const blocktune::Selection& selection = transpose.select(problem);
  std::printf("%s on %s, problem %s: %s (%s)\n", transpose.description().name.c_str(), transpose.device().name.c_str(),
              problem.to_string().c_str(), selection.config.to_string().c_str(),
              selection.tuned() ? std::string(blocktune::describe(selection.match)).c_str()
                                : (selection.note.empty() ? "not tuned: the default" : selection.note.c_str()));

  int nx = static_cast<int>(problem.dims[0]), ny = static_cast<int>(problem.dims[1]);
  const std::size_t count = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  std::vector<float> in(count), out(count);
  for (std::size_t i = 0; i < count; ++i) in[i] = static_cast<float>(i % 9973);

  void* in_gpu = nullptr;
  void* out_gpu = nullptr;
  check(cudaMalloc(&in_gpu, count * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&out_gpu, count * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(in_gpu, in.data(), count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy to the GPU");
  check(cudaMemset(out_gpu, 0, count * sizeof(float)), "cudaMemset");

  // One pointer per kernel parameter, in the spec's argument order: in, out, nx, ny.
  // The first launch compiles the configuration (NVRTC) and loads it.
  transpose.launch(problem, {&in_gpu, &out_gpu, &nx, &ny});
  check(cudaDeviceSynchronize(), "the transpose kernel");
  check(cudaMemcpy(out.data(), out_gpu, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy from the GPU");
  check(cudaFree(in_gpu), "cudaFree");
  check(cudaFree(out_gpu), "cudaFree");

  // out has nx rows of ny elements: out[x][y] = in[y][x].
  std::size_t wrong = 0;
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      if (out[static_cast<std::size_t>(x) * ny + y] != in[static_cast<std::size_t>(y) * nx + x]) ++wrong;
  if (wrong) {
    std::printf("WRONG: %zu of %zu elements differ from the CPU's transpose\n", wrong, count);
    return 1;
  }
  std::printf("ok: %zu elements, %zu configuration(s) compiled\n", count, transpose.loaded_variants());
  return 0;
} catch (const blocktune::GpuUnavailable& error) {
  std::fprintf(stderr, "transpose_app: no GPU to run on (%s); skipped\n", error.what());
  return kNoGpu;
} catch (const std::exception& error) {
  std::fprintf(stderr, "transpose_app: %s\n", error.what());
  return 1;
}
