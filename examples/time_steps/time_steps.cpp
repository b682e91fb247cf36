// An iterative application: 100 time steps of the 3D stencil with the plan
// the tuning database holds for 100 steps (tune with --time-steps 100 first),
// checked against 100 single steps of the kernel's default configuration.
//
//   blocktune tune stencil3d_r1 --problem 512x512x512 --time-steps 100
//   example_time_steps [--db FILE] [--kernel stencil3d_r1] [--problem 512x512x512] [--time-steps 100] [--device 0]
//
// Exit status 0 when the two agree to the kernel's tolerance, 1 otherwise.
#include <blocktune/kernels.hpp>
#include <blocktune/launcher.hpp>
#include <blocktune/store.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string_view>
#include <unistd.h>

using namespace blocktune;

namespace {

struct Options {
  std::filesystem::path database = default_database_path();
  std::string kernel = "stencil3d_r1";
  ProblemSize problem{{512, 512, 512}, 100};
  int device = 0;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--db") options.database = value;
    else if (flag == "--kernel") options.kernel = value;
    else if (flag == "--problem") options.problem.dims = ProblemSize::parse(value).dims;
    else if (flag == "--time-steps") options.problem.time_steps = std::stoll(value);
    else if (flag == "--device") options.device = std::stoi(value);
    else throw std::invalid_argument(fmt::format("unknown option {}", flag));
  }
  if (argc % 2 == 0) throw std::invalid_argument(fmt::format("option {} needs a value", argv[argc - 1]));
  return options;
}

// Runs the steps and returns the final grid and the seconds it took.
std::pair<std::vector<float>, double> run(TunedKernel& kernel, const ProblemSize& problem, const std::vector<float>& initial,
                                          const std::vector<float>& coefficients) {
  const std::size_t bytes = initial.size() * sizeof(float);
  // Both buffers start from the initial grid: a step leaves the boundary as it is.
  DeviceBuffer a(bytes), b(bytes), c(coefficients.size() * sizeof(float));
  a.upload(initial.data(), bytes);
  b.upload(initial.data(), bytes);
  c.upload(coefficients.data(), coefficients.size() * sizeof(float));
  CUdeviceptr in = a.get(), out = b.get(), coef = c.get();
  int nx = static_cast<int>(problem.dims[0]), ny = static_cast<int>(problem.dims[1]), nz = static_cast<int>(problem.dims[2]);
  kernel.run_steps(problem, {&in, &out, &coef, &nx, &ny, &nz});  // compiles and warms up
  a.upload(initial.data(), bytes);
  b.upload(initial.data(), bytes);
  in = a.get(), out = b.get();
  check(Driver::get().cuCtxSynchronize(), "cuCtxSynchronize");
  const auto start = std::chrono::steady_clock::now();
  kernel.run_steps(problem, {&in, &out, &coef, &nx, &ny, &nz});
  check(Driver::get().cuCtxSynchronize(), "cuCtxSynchronize");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<float> result(initial.size());
  (out == a.get() ? a : b).download(result.data(), bytes);  // `out` names the buffer with the last step
  return {std::move(result), seconds};
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse(argc, argv);
  const KernelDescription description = load_kernel(options.kernel);
  const ProblemSize& problem = options.problem;

  std::vector<float> initial(static_cast<std::size_t>(problem.dims[0] * problem.dims[1] * problem.dims[2]));
  std::mt19937 random(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float& x : initial) x = uniform(random);
  std::vector<float> coefficients;
  for (const Argument& argument : description.arguments)
    if (const auto* buffer = std::get_if<BufferArgument>(&argument); buffer && buffer->name == "coefficients")
      for (const double value : buffer->values) coefficients.push_back(static_cast<float>(value));

  TunedKernel tuned(description, TuningDatabase::open(options.database), options.device);
  const Selection& plan = tuned.select(problem);
  fmt::print("{} {} steps on {}: {} launch{} of {}", description.name, problem.time_steps, tuned.device().name, plan.launches, plan.launches == 1 ? "" : "es",
             plan.config.to_string());
  for (const ResolvedLaunch& launch : plan.remainder) fmt::print(", then {}", launch.config.to_string());
  fmt::print(" ({})\n", plan.tuned() ? describe(plan.match) : std::string_view(plan.note));

  // The same steps one launch at a time, with the default: a database with nothing in it.
  const auto empty = std::filesystem::temp_directory_path() / fmt::format("blocktune-example-{}.db", ::getpid());
  Store::open(empty);
  TunedKernel single(description, TuningDatabase::open(empty), options.device);
  std::filesystem::remove(empty);

  const auto [fused, fused_seconds] = run(tuned, problem, initial, coefficients);
  const auto [reference, reference_seconds] = run(single, problem, initial, coefficients);
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    difference += (double(fused[i]) - reference[i]) * (double(fused[i]) - reference[i]);
    norm += double(reference[i]) * reference[i];
  }
  const double error = std::sqrt(difference / norm);
  fmt::print("tuned plan: {:.3f} ms ({:.4f} ms per step); default, one step per launch: {:.3f} ms ({:.4f} ms per step): {:.2f}x\n",
             fused_seconds * 1e3, fused_seconds * 1e3 / double(problem.time_steps), reference_seconds * 1e3,
             reference_seconds * 1e3 / double(problem.time_steps), reference_seconds / fused_seconds);
  // Fused steps keep intermediate values in registers and shared memory, in
  // the same precision: the two runs round alike, step after step.
  const bool agree = error <= description.tolerance * 10;
  fmt::print("relative L2 difference after {} steps: {:.2e} ({} the tolerance {:.0e})\n", problem.time_steps, error,
             agree ? "within" : "OUTSIDE", description.tolerance * 10);
  return agree ? 0 : 1;
} catch (const GpuUnavailable& error) {
  std::fprintf(stderr, "example_time_steps: no GPU: %s\n", error.what());
  return 77;  // skipped
} catch (const std::exception& error) {
  std::fprintf(stderr, "example_time_steps: %s\n", error.what());
  return 1;
}
