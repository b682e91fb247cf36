// The blocktune command line: the whole program but main(), so that the
// command-line fuzzer (fuzz/cli_fuzzer.cpp) can run it in its own process.
#include "run.hpp"

#include "commands.hpp"

#include <blocktune/detail/device_query.hpp>
#include <blocktune/cli_action.hpp>
#include <blocktune/cli_db.hpp>
#include <blocktune/cli_replay.hpp>
#include <blocktune/cli_report.hpp>
#include <blocktune/kernels.hpp>
#include <blocktune/runtime.hpp>
#include <blocktune/strategy.hpp>
#include <blocktune/version.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>

using namespace blocktune;

namespace {

void add_target_options(CLI::App& command, cli::Target& target, bool allow_arch = true) {
  auto* device = command.add_option("--device,-d", target.device, "GPU ordinal (see `blocktune devices`)")->check(at_least(0));
  if (allow_arch) {
    command.add_option("--arch,-a", target.arch, "architecture profile instead of a GPU, e.g. sm_90 (no GPU needed)")->excludes(device);
  }
}

// Output that did not reach its file or pipe (a full disk, a reader that went
// away) makes a command that succeeded otherwise fail.
int check_output(int status) {
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (status != exit_done || (flushed && !std::ferror(stdout) && std::cout)) return status;
  fmt::print(stderr, "blocktune: error: cannot write the output{}\n",
             flushed ? "" : fmt::format(": {}", std::strerror(error)));
  return exit_error;
}

// --spec FILE or --t1 FILE: a tuning spec or a T1 file (the spec reader reads both) instead of a built-in kernel.
// The objective for iterative applications: the time for this many steps.
void add_time_steps(CLI::App& command, std::int64_t& time_steps) {
  command.add_option("--time-steps", time_steps,
                     "time steps the application runs: the objective is the time for all of them, so configurations that "
                     "fuse several steps per launch compete (default 1)")
      ->default_val(1)
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
}

void add_kernel_file(CLI::App* command, std::filesystem::path& file) {
  CLI::Option* spec = command->add_option("--spec", file, "tuning spec file (docs/specs.md) instead of a built-in kernel")->check(CLI::ExistingFile);
  command->add_option("--t1", file, "T1 tuning-problem file (docs/specs.md, \"T1 files\") instead of a built-in kernel")
      ->check(CLI::ExistingFile)
      ->excludes(spec);
}

}  // namespace

int blocktune::cli::run(int argc, char** argv) {
  CLI::App app{fmt::format(
      "blocktune {}: autotune CUDA kernels (block shape, carveout, kernel parameters) per GPU and problem size.\n"
      "Tune once per GPU with `blocktune tune`; applications then ask the database for the best configuration.",
      kVersion)};
  app.set_version_flag("--version", std::string(kVersion));
  app.require_subcommand(1);
  const std::filesystem::path default_db = default_database_path();
  int status = 0;

  cli::Target devices_target;
  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "list the GPUs and what blocktune knows of each (or an architecture profile)");
  add_target_options(*devices, devices_target);
  devices->add_flag("--json", devices_json, "print JSON");
  devices->callback([&] { status = cli::list_devices(devices_target, devices_json); });

  cli::CharacterizeArgs characterize_args;
  characterize_args.database = default_db;
  auto* characterize = app.add_subcommand("characterize", "measure the GPU's bandwidths, latencies, arithmetic throughput and launch "
                                                          "overhead with microbenchmarks and store them for the execution-time model");
  characterize->add_option("--device,-d", characterize_args.device, "GPU ordinal")->default_val(0)->check(at_least(0));
  characterize->add_option("--db", characterize_args.database, "tuning database")->default_val(default_db.string());
  characterize->callback([&] { status = cli::characterize(characterize_args); });

  app.add_subcommand("kernels", "list the built-in kernels")->callback([&] { status = cli::list_kernels(); });

  cli::PlanArgs plan_args;
  auto* plan = app.add_subcommand("plan", "count a kernel's valid configurations for a device or architecture, compile a sample "
                                          "of them (or all) and show registers, shared memory, spills, occupancy, the model's "
                                          "prediction, and why invalid ones are invalid (no GPU needed)");
  plan->add_option("kernel", plan_args.kernel, "kernel to plan")->default_val(std::string(kDefaultKernel));
  plan->add_option("--problem,-p", plan_args.problem, "problem size, e.g. 512x512x512 (default: the spec's default_problem, else 512x512x512)");
  add_target_options(*plan, plan_args.target);
  add_kernel_file(plan, plan_args.spec);
  add_time_steps(*plan, plan_args.time_steps);
  plan->add_flag("--all", plan_args.all, "compile and list every valid configuration, not a sample");
  plan->add_option("--sample,-n", plan_args.sample, "configurations to compile, drawn uniformly from the valid ones")
      ->default_val(200)
      ->check(at_least(1));
  plan->add_option("--seed", plan_args.seed, "random seed of the sample")->default_val(1);
  plan->add_option("--max-seconds", plan_args.max_seconds, "stop compiling after this many seconds")->check(positive());
  plan->add_option("--compile-timeout", plan_args.compile_timeout, "seconds one compile may take before it is stopped")
      ->check(positive());
  plan->add_option("--threads,-j", plan_args.threads, "compile workers (default: all cores)");
  plan->add_flag("--no-cache", plan_args.no_cache, "compile everything again, ignoring the variant cache");
  plan->callback([&] { status = cli::plan(plan_args); });

  cli::TuneArgs tune_args;
  tune_args.database = default_db;
  auto* tune = app.add_subcommand("tune", "measure a kernel's configurations on a GPU and store every trial and the winner");
  tune->add_option("kernel", tune_args.kernel, "kernel to tune")->default_val(std::string(kDefaultKernel));
  tune->add_option("--problem,-p", tune_args.problem, "problem size, e.g. 512x512x512 (default: the spec's default_problem, else 512x512x512)");
  tune->add_option("--device,-d", tune_args.device, "GPU ordinal")->default_val(0)->check(at_least(0));
  add_time_steps(*tune, tune_args.time_steps);
  tune->add_option("--db", tune_args.database, "tuning database")->default_val(default_db.string());
  tune->add_flag("--or-plan", tune_args.or_plan, "with no GPU, say so and run the GPU-free plan for sm_90 instead of failing");
  tune->add_option("--strategy", tune_args.strategy, "search strategy: which configurations to measure, in what order")
      ->default_val(std::string(blocktune::kDefaultStrategy))
      ->check(CLI::IsMember(blocktune::strategy_names()));
  tune->add_flag("--no-model", tune_args.no_model, "search without the execution-time model's predictions");
  tune->add_flag("--no-transfer", tune_args.no_transfer,
                 "leave the model's predictions uncorrected by what other problem sizes of the kernel measured on this device");
  tune->add_option("--seed", tune_args.seed, "the strategy's random seed (the same seed retraces the same search)")->default_val(1);
  tune->add_option("--max-evaluations", tune_args.max_evaluations,
                   "try at most this many new configurations, failed compiles included (stored ones are free)")->check(at_least(1));
  tune->add_option("--max-seconds", tune_args.max_seconds, "stop after this many seconds, compiling included")->check(positive());
  tune->add_option("--patience", tune_args.patience, "stop after this many new measurements without a faster configuration")
      ->check(at_least(1));
  tune->add_option("--compile-timeout", tune_args.compile_timeout,
                   "seconds one compile may take; a configuration that takes longer is recorded as a compile timeout")
      ->default_val(300)
      ->check(positive());
  tune->add_option("--lookahead", tune_args.lookahead,
                   "configurations compiled ahead of the one being measured (default: compile workers + 1)")->check(at_least(1));
  tune->add_option("--simulate", tune_args.simulate,
                   "measure nothing: take each configuration's result from this recorded space (blocktune replay's files), "
                   "on the architecture profile of --simulate-arch; no GPU needed")->check(CLI::ExistingFile);
  tune->add_option("--simulate-arch", tune_args.simulate_arch, "architecture profile for --simulate")->default_val("sm_90");
  add_kernel_file(tune, tune_args.spec);
  tune->add_option("--trace", tune_args.trace,
                   "write one JSON line per trial to this file: seconds since the start, configuration, outcome, time, best so far");
  tune->add_option("--timeout-floor", tune_args.timeout_floor,
                   "stop a configuration after at least this many seconds (see --timeout-factor)")->default_val(10)->check(positive());
  tune->add_option("--timeout-factor", tune_args.timeout_factor,
                   "... or after this multiple of the best median so far times its launches, if longer")->default_val(20)->check(positive());
  tune->add_flag("--in-process", tune_args.in_process,
                 "measure in this process, not in a worker process (a kernel that faults then ends the run)");
  tune->add_flag("--flush-l2,!--warm-l2", tune_args.flush_l2,
                 "flush the L2 cache before each timed launch (the default: reproducible times); --warm-l2 times each launch with "
                 "the L2 as the previous one left it, as an application whose data stays in L2 runs it");
  tune->add_flag("--no-cache", tune_args.no_cache, "compile everything again, ignoring the variant cache");
  tune->add_option("--threads,-j", tune_args.threads, "compile workers (default: all cores)");
  tune->callback([&] { status = cli::tune(tune_args); });

  cli::MeasureArgs measure_args;
  auto* measure = app.add_subcommand("measure", "check and time one configuration of a kernel on a GPU (nothing is stored)");
  measure->add_option("kernel", measure_args.kernel, "kernel")->default_val(std::string(kDefaultKernel));
  measure->add_option("--config,-c", measure_args.config, "configuration, e.g. block_x=64,block_y=4,... (default: the kernel's default)");
  measure->add_option("--problem,-p", measure_args.problem, "problem size, e.g. 512x512x512 (default: the spec's default_problem, else 512x512x512)");
  add_kernel_file(measure, measure_args.spec);
  add_time_steps(*measure, measure_args.time_steps);
  measure->add_option("--device,-d", measure_args.device, "GPU ordinal")->default_val(0)->check(at_least(0));
  measure->add_option("--repeats", measure_args.repeats, "timed launches (default: until the median is stable)")->check(at_least(1));
  measure->add_flag("--flush-l2,!--warm-l2", measure_args.flush_l2, "flush the L2 cache before each timed launch (the default, as tune)");
  measure->add_flag("--no-cache", measure_args.no_cache, "compile again, ignoring the variant cache");
  measure->callback([&] { status = cli::measure(measure_args); });

  cli::BestArgs best_args;
  best_args.database = default_db;
  auto* best = app.add_subcommand("best", "print the best stored configuration for a kernel, device and problem, and how it was found");
  best->add_option("kernel", best_args.kernel, "kernel")->required();
  best->add_option("--problem,-p", best_args.problem, "problem size, e.g. 512x512x512")->required();
  add_time_steps(*best, best_args.time_steps);
  add_target_options(*best, best_args.target);
  best->add_option("--db", best_args.database, "tuning database")->default_val(default_db.string());
  best->callback([&] { status = cli::best(best_args); });

  add_db_commands(app, default_db);
  add_report_commands(app, default_db);
  add_replay_commands(app, default_db);

  cli::BenchCompileArgs bench_args;
  auto* bench = app.add_subcommand("bench", "benchmarks of blocktune itself");
  bench->require_subcommand(1);
  auto* bench_compile = bench->add_subcommand("compile", "configurations compiled per second, cold and with a warm variant cache");
  bench_compile->add_option("kernel", bench_args.kernel, "kernel")->default_val(std::string(kDefaultKernel));
  bench_compile->add_option("--arch,-a", bench_args.arch, "architecture")->default_val("sm_90");
  bench_compile->add_option("--count,-n", bench_args.count, "number of distinct variants (default: all of the kernel's)");
  bench_compile->add_option("--threads,-j", bench_args.threads, "compile threads (default: all cores)");
  bench_compile->callback([&] { status = cli::bench_compile(bench_args); });

  cli::BenchStencilArgs stencil_args;
  stencil_args.database = default_db;
  auto* bench_stencil = bench->add_subcommand(
      "stencil", "tune the 3D stencil (resuming), then time the best configuration of each coding (and fused step count), "
                 "the naive baseline (BASE 32x16x1) and the device-to-device copy in one run; figures per time step");
  bench_stencil->add_option("--radius,-r", stencil_args.radius, "stencil radius")->default_val(1)->check(CLI::Range(1, 5));
  bench_stencil->add_option("--size,-n", stencil_args.problem, "problem: N for N^3, or NXxNYxNZ")->default_val("512");
  bench_stencil->add_option("--device,-d", stencil_args.device, "GPU ordinal")->default_val(0)->check(at_least(0));
  bench_stencil->add_option("--time-steps", stencil_args.time_steps,
                            "time steps the application runs: codings that fuse up to this many per launch take part")
      ->default_val(100)
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  bench_stencil->add_option("--db", stencil_args.database, "tuning database")->default_val(default_db.string());
  bench_stencil->add_option("--csv", stencil_args.csv, "append one row per coding to this CSV file");
  bench_stencil->add_flag("--f64", stencil_args.f64, "FP64 instead of FP32");
  bench_stencil->add_option("--where", stencil_args.where,
                            "tune only the configurations satisfying this constraint over the parameters (repeatable), "
                            "e.g. 'strategy == \"STREAM\"'");
  bench_stencil->callback([&] { status = cli::bench_stencil(stencil_args); });

  // A closed pipe then fails the write (EPIPE) instead of killing the process
  // silently, so that check_output can say so.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return check_output(exit_status(app, error, std::cout, std::cerr));
  } catch (const std::exception& error) {
    fmt::print(stderr, "blocktune: error: {}\n", error.what());
    return check_output(exit_error);
  }
  return check_output(status);
}
