#include "commands.hpp"

#include <blocktune/detail/device_query.hpp>
#include <blocktune/characterize.hpp>
#include <blocktune/cli_action.hpp>
#include <blocktune/kernels.hpp>
#include <blocktune/prediction.hpp>
#include <blocktune/recording.hpp>
#include <blocktune/report.hpp>
#include <blocktune/spec.hpp>
#include <blocktune/stencil_study.hpp>
#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <thread>

namespace blocktune::cli {
namespace {

constexpr std::string_view kNoGpuArch = "sm_90";
constexpr std::size_t kPlanRowsShown = 20;

DeviceInfo target_device(const Target& target) {
  if (!target.arch.empty()) return require_arch_profile(target.arch);
  return query_device(target.device.value_or(0));
}

// The kernel a command is about: a tuning spec or T1 file when given, else a built-in one.
KernelDescription command_kernel(const std::string& name, const std::filesystem::path& spec) {
  return spec.empty() ? load_kernel(name) : load_kernel("spec:" + spec.string());
}

// The problem a command is about: the one given, else the kernel's own default, else the stencil's.
ProblemSize command_problem(const KernelDescription& kernel, const std::optional<std::string>& given, std::int64_t time_steps) {
  ProblemSize problem = given                      ? ProblemSize::parse(*given)
                        : kernel.default_problem ? *kernel.default_problem
                                                 : ProblemSize::parse(kDefaultProblem);
  problem.time_steps = time_steps;
  check_problem(kernel, problem);
  return problem;
}

// Ctrl-C or SIGTERM during tune: stop after the configuration being measured.
// A second Ctrl-C does not wait; a second SIGTERM does (`timeout` sends its
// signal to the program and again to its process group, so one stop request
// arrives twice; a program that must die at once is sent SIGKILL).
std::atomic<bool> interrupted{false};

extern "C" void on_interrupt(int signal) {
  if (interrupted.exchange(true) && signal == SIGINT) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}

VariantCompiler make_compiler(bool no_cache) {
  return no_cache ? VariantCompiler(std::nullopt) : VariantCompiler();
}

std::string kib(std::int64_t bytes) { return bytes % 1024 == 0 ? fmt::format("{} KiB", bytes / 1024) : fmt::format("{} B", bytes); }

// Progress on one terminal line, or, when stderr is a file, a line every
// few seconds (and the last one), so that a log shows long work moving.
class ProgressLine {
 public:
  explicit ProgressLine(std::string label) : label_(std::move(label)), tty_(isatty(STDERR_FILENO) != 0) {}
  ~ProgressLine() {
    if (tty_ && shown_) fmt::print(stderr, "\n");
  }
  void show(const std::string& text, bool last = false) {
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - shown_at_).count();
    if (tty_) {
      if (!last && since < 0.1) return;
      fmt::print(stderr, "\r\033[K{}: {}", label_, text);
    } else {
      if (!last && shown_ && since < kLogSeconds) return;
      fmt::print(stderr, "{}: {}\n", label_, text);
    }
    shown_ = true;
    shown_at_ = now;
  }

 private:
  static constexpr double kLogSeconds = 2;
  std::string label_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point shown_at_{};
};

std::function<void(const PlanProgress&)> plan_progress(ProgressLine& line) {
  return [&line](const PlanProgress& p) {
    if (p.stage == "counting")
      line.show(fmt::format("counting the valid configurations, {:.0f}%, {:.1f} s", 100 * p.done, p.elapsed_seconds), p.done >= 1);
    else
      line.show(fmt::format("compiled {:.0f}/{:.0f} configurations, {:.1f} s", p.done, p.total, p.elapsed_seconds), p.done >= p.total);
  };
}

void print_device(const DeviceInfo& d) {
  fmt::print("{} {}\n", d.is_profile() ? "profile" : fmt::format("GPU {}:", d.ordinal), d.name);
  if (!d.uuid.empty()) fmt::print("  uuid                       {}\n", d.uuid);
  fmt::print("  compute capability         {}.{} ({})\n", d.cc_major, d.cc_minor, d.arch());
  fmt::print("  multiprocessors            {}\n", d.sm_count);
  fmt::print("  memory                     {:.1f} GiB, {}-bit bus, {} MHz{}\n", static_cast<double>(d.memory_bytes) / (1 << 30),
             d.memory_bus_bits, d.memory_clock_mhz, d.ecc ? ", ECC on" : ", ECC off");
  fmt::print("  L2 cache                   {}\n", kib(d.l2_bytes));
  fmt::print("  shared memory per SM       {}\n", kib(d.shared_per_sm));
  fmt::print("  shared memory per block    {} ({} with opt-in, {} reserved per block)\n", kib(d.shared_per_block),
             kib(d.shared_per_block_optin), kib(d.reserved_shared_per_block));
  fmt::print("  registers                  {} per SM, {} per block\n", d.registers_per_sm, d.registers_per_block);
  fmt::print("  threads                    {} per block, {} per SM\n", d.max_threads_per_block, d.max_threads_per_sm);
  fmt::print("  blocks per SM              {}\n", d.max_blocks_per_sm);
  fmt::print("  SM clock                   {} MHz\n", d.sm_clock_mhz);
  if (!d.is_profile())
    fmt::print("  driver                     {} (CUDA {}.{})\n", d.driver_release.empty() ? "version unknown" : d.driver_release,
               d.driver_version / 1000, d.driver_version % 1000 / 10);
}

void print_plan_row(const PlanEntry& e, std::size_t width, const Prediction* prediction = nullptr) {
  if (!e.launchable()) {
    fmt::print("  {:<{}} {}\n", e.config.to_string(), width, e.reason());
    return;
  }
  const auto& u = e.variant.usage;
  fmt::print("  {:<{}} {:>4} {:>7} {:>6} {:>6}  {:>3} {:>5.0f}%  {:<22} {:>9}  {}\n", e.config.to_string(), width, u.registers,
             u.static_smem + static_cast<int>(e.resolved.shape.dynamic_smem), u.spill_stores + u.spill_loads, u.stack_bytes,
             e.occupancy.blocks_per_sm, 100 * e.occupancy.fraction, e.occupancy.limiting_factor(),
             prediction ? fmt::format("{:.4f}", prediction->seconds * 1e3) : "", prediction ? prediction->bound() : "");
}

void print_plan(const KernelDescription& kernel, const Plan& plan, bool all, unsigned threads) {
  fmt::print("{} on {}{}, problem {}\n", kernel.name, plan.device.name,
             plan.device.is_profile() ? "" : fmt::format(" ({})", plan.device.arch()), plan.problem.to_string());
  fmt::print("space: {:.0f} configurations, {} satisfy the constraints ({:.0f} rejected; counted in {:.2f} s)\n", plan.raw_size,
             plan.valid, plan.rejected(), plan.count_seconds);
  const std::size_t planned = plan.planned();
  fmt::print("compiled {} of them{}: {} variants, {} from the cache, in {:.1f} s; {} do not compile, {} cannot launch, {} can be measured\n",
             planned, plan.sampled ? fmt::format(", a uniform random sample (--all compiles every one)") : "", plan.compiled, plan.cached,
             plan.seconds - plan.count_seconds, plan.count(Outcome::compile_error) + plan.count(Outcome::compile_timeout),
             plan.count(Outcome::pruned_by_occupancy), plan.count(Outcome::ok));
  if (plan.sampled && plan.compiled > 0)
    fmt::print("compiling every valid configuration would take about {:.0f} s on {} threads (at most; configurations that differ only "
               "in launch settings share a variant)\n",
               plan.estimated_compile_all_seconds(threads), threads);
  if (!plan.stopped.empty()) fmt::print("note: {}\n", plan.stopped);
  std::vector<std::string> steps;
  for (int percent : carveout_steps(plan.device)) steps.push_back(fmt::format("{}%={}", percent, kib(carveout_bytes(plan.device, percent))));
  fmt::print("carveout steps (shared memory per SM): {}\n\n", fmt::join(steps, " "));

  // Ranked by the execution-time model, with the architecture's published
  // parameters (a GPU's characterisation is used by `tune`).
  const auto ranked = rank_by_model(kernel, plan, model_parameters(plan.device));
  std::size_t width = 36;
  for (const PlanEntry& e : plan.entries) width = std::max(width, e.config.to_string().size());
  fmt::print("  {:<{}} {:>4} {:>7} {:>6} {:>6}  {:>3} {:>6}  {:<22} {:>9}  {}\n", "configuration (ranked by predicted time)", width, "regs",
             "smem B", "spill", "stack", "blk", "occup", "limited by", "pred ms", "bound");
  const std::size_t shown = all ? ranked.size() : std::min(ranked.size(), kPlanRowsShown);
  for (std::size_t i = 0; i < shown; ++i) print_plan_row(*ranked[i].entry, width, &ranked[i].prediction);
  if (shown < ranked.size()) fmt::print("  ... {} more (--all lists them)\n", ranked.size() - shown);

  std::map<std::string, std::size_t> reasons;
  for (const PlanEntry& e : plan.entries) {
    if (e.launchable()) continue;
    if (all) print_plan_row(e, width);
    const Outcome outcome = e.static_outcome();
    ++reasons[outcome == Outcome::compile_error ? "does not compile" : e.reason()];
  }
  if (!reasons.empty()) {
    fmt::print("\nnot measurable{}:\n", plan.sampled ? " (of the sample)" : "");
    for (const auto& [reason, count] : reasons) fmt::print("  {:>6} x {}\n", count, reason);
  }
  for (const PlanEntry& e : plan.entries) {
    if (e.static_outcome() == Outcome::compile_error) {
      fmt::print("\nfirst compile error ({}):\n{}\n", e.config.to_string(), e.variant.log);
      break;
    }
  }
}

void print_trial_line(const TrialRecord& t) {
  if (t.outcome == Outcome::ok)
    fmt::print("{:.4f} ms median ({} samples, spread {:.1f}%){}", t.median_ms, t.samples_ms.size(), 100 * t.spread,
               t.metric_unit.empty() ? "" : fmt::format(", {:.0f} {}", t.metric, t.metric_unit));
  else
    fmt::print("{}: {}", to_string(t.outcome), t.message);
}

}  // namespace

int list_devices(const Target& target, bool json) {
  std::vector<DeviceInfo> devices;
  if (!target.arch.empty())
    devices.push_back(require_arch_profile(target.arch));
  else if (target.device)
    devices.push_back(query_device(*target.device));
  else
    devices = blocktune::list_devices();
  if (json) {
    std::vector<std::string> items;
    for (const DeviceInfo& d : devices) items.push_back(device_to_json(d));
    fmt::print("[{}]\n", fmt::join(items, ",\n "));
    return exit_done;
  }
  for (const DeviceInfo& d : devices) print_device(d);
  return exit_done;
}

int characterize(const CharacterizeArgs& args) {
  const DeviceInfo device = query_device(args.device);  // throws GpuUnavailable with no driver
  std::filesystem::create_directories(std::filesystem::absolute(args.database).parent_path());
  Store store = Store::open(args.database);
  fmt::print("characterizing GPU {} ({}) into {}\n", args.device, device.name, args.database.string());
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  const auto measured = blocktune::characterize(args.device, microbenchmark_source(), VariantCompiler(), [](const DeviceMeasurement& m) {
    fmt::print("  {:<24} {:>12.2f} {:<8} {}\n", m.name, m.value, m.unit, m.what);
    std::fflush(stdout);
  });
  const std::int64_t device_id = store.upsert_device(to_record(device));
  for (const DeviceMeasurement& m : measured) store.set_device_metric(device_id, m.name, m.value, m.unit);
  fmt::print("{} measurements stored in {:.1f} s\n", measured.size(),
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return exit_done;
}

int list_kernels() {
  for (const std::string& name : builtin_kernel_names()) {
    const KernelDescription k = builtin_kernel(name);
    fmt::print("{:<18} {}{}\n", name, k.summary, name == kDefaultKernel ? " (default)" : "");
  }
  return exit_done;
}

int plan(const PlanArgs& args) {
  const KernelDescription kernel = command_kernel(args.kernel, args.spec);
  const ProblemSize problem = command_problem(kernel, args.problem, args.time_steps);
  const DeviceInfo device = target_device(args.target);
  const VariantCompiler compiler = make_compiler(args.no_cache);
  const unsigned threads = args.threads > 0 ? args.threads : std::max(1u, std::thread::hardware_concurrency());
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  Plan result;
  {
    ProgressLine line("plan");
    result = make_plan(kernel, device, problem, compiler,
                       {.threads = threads,
                        .sample = args.all ? std::nullopt : std::optional<std::size_t>(args.sample),
                        .seed = args.seed,
                        .max_seconds = args.max_seconds,
                        .compile_timeout_seconds = args.compile_timeout,
                        .progress = plan_progress(line),
                        .stop_requested = [] { return interrupted.load(); }});
  }
  print_plan(kernel, result, args.all, threads);
  if (result.valid == 0) {
    fmt::print(stderr, "blocktune: nothing can be measured: no configuration satisfies the constraints on {}\n", device.name);
    return exit_error;
  }
  if (result.count(Outcome::ok) == 0 && !result.stopped.empty()) return exit_error;
  if (result.count(Outcome::ok) == 0) {
    fmt::print(stderr, "blocktune: nothing can be measured: none of the {} configurations compiled {} can launch (see above)\n",
               result.planned(), result.sampled ? "in the sample" : "");
    return exit_error;
  }
  return exit_done;
}

namespace {

// A recorded space (blocktune replay's files) standing in for the GPU.
Simulation recorded_simulation(const std::filesystem::path& file, const std::string& arch) {
  const Recording recording = read_recording(file);
  auto results = std::make_shared<std::map<std::string, SimulatedMeasurement>>();
  for (std::size_t i = 0; i < recording.space.configs.size(); ++i) {
    const auto& time = recording.space.time[i];
    const double compile = recording.compile_seconds.empty() ? 0 : recording.compile_seconds[i];
    SimulatedMeasurement m{time ? Outcome::ok : Outcome::runtime_fault, time ? *time * 1000 : 0,
                           std::max(0.0, recording.space.cost_seconds[i] - compile),
                           time ? "" : fmt::format("failed in the recording ({})", recording.outcome[i])};
    results->emplace(recording.space.configs[i].to_string(), std::move(m));
  }
  return {require_arch_profile(arch),
          [results, name = file.filename().string()](const Config& config) {
            const auto found = results->find(config.to_string());
            if (found != results->end()) return found->second;
            return SimulatedMeasurement{Outcome::runtime_fault, 0, 0, fmt::format("not in the recorded space {}", name)};
          },
          recording.l2_flushed};
}

// One trial of a tuning run as a JSON object, for --trace.
std::string trace_line(const TuneProgress& p) {
  nlohmann::ordered_json line;
  line["seconds"] = p.elapsed_seconds;
  // Wall-clock time, for lining a run up with other tools' logs.
  line["unix_time"] = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  line["trial"] = p.done;
  line["config"] = p.trial->config;
  line["outcome"] = std::string(to_string(p.trial->outcome));
  line["median_ms"] = p.trial->outcome == Outcome::ok ? nlohmann::ordered_json(p.trial->median_ms) : nlohmann::ordered_json();
  line["best_ms"] = p.best_ms ? nlohmann::ordered_json(*p.best_ms) : nlohmann::ordered_json();
  return line.dump();
}

}  // namespace

int tune(const TuneArgs& args) {
  const KernelDescription kernel = command_kernel(args.kernel, args.spec);
  const ProblemSize problem = command_problem(kernel, args.problem, args.time_steps);
  std::optional<Simulation> simulation;
  if (!args.simulate.empty()) simulation = recorded_simulation(args.simulate, args.simulate_arch);
  if (!simulation && !Driver::available()) {
    if (!args.or_plan) throw GpuUnavailable(Driver::unavailable_reason() + "; `blocktune plan --arch sm_90` works without a GPU");
    fmt::print("blocktune: no GPU to tune on ({}); showing the GPU-free plan for {} instead.\n\n", Driver::unavailable_reason(), kNoGpuArch);
    std::fflush(stdout);  // before the progress lines on stderr
    return plan({.kernel = args.kernel, .problem = args.problem, .time_steps = args.time_steps, .spec = args.spec,
                 .target = {.arch = std::string(kNoGpuArch)},
                 .threads = args.threads, .no_cache = args.no_cache});
  }
  std::filesystem::create_directories(std::filesystem::absolute(args.database).parent_path());
  Store store = Store::open(args.database);
  const VariantCompiler compiler = make_compiler(args.no_cache);
  TuneOptions options;
  options.strategy = args.strategy;
  options.use_model = !args.no_model;
  options.transfer_sizes = !args.no_transfer;
  options.seed = args.seed;
  options.max_evaluations = args.max_evaluations;
  options.max_seconds = args.max_seconds;
  options.patience = args.patience;
  options.compile_timeout_seconds = args.compile_timeout;
  options.lookahead = args.lookahead;
  options.simulation = simulation;
  options.timing.flush_l2 = simulation ? simulation->l2_flushed : args.flush_l2;
  options.compile_threads = args.threads;
  options.isolate = !args.in_process;
  options.timeout_floor_seconds = args.timeout_floor;
  options.timeout_factor = args.timeout_factor;
  options.stop_requested = [] { return interrupted.load(); };
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  const DeviceInfo device = simulation ? simulation->device : query_device(args.device);
  fmt::print("tuning {} on {}, problem {}, strategy {}{} (seed {}), timed with the L2 {}, into {}\n", kernel.name,
             simulation ? fmt::format("{} simulated from {}", device.name, args.simulate.string())
                        : fmt::format("GPU {} ({})", args.device, device.name),
             problem.to_string(), options.strategy, options.use_model ? "" : " without the model", options.seed,
             options.timing.flush_l2 ? "flushed before each launch" : "warm (--warm-l2)", args.database.string());
  std::fflush(stdout);  // before the progress lines on stderr
  std::FILE* trace = nullptr;
  if (!args.trace.empty() && !(trace = std::fopen(args.trace.c_str(), "w")))
    throw std::runtime_error(fmt::format("cannot write the trace file {}: {}", args.trace.string(), std::strerror(errno)));
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> trace_file(trace, [](std::FILE* f) { return f ? std::fclose(f) : 0; });
  std::size_t traced = 0;
  TuneResult result;
  {
    ProgressLine line("tune");
    bool said_budget = false;
    options.progress = [&](const TuneProgress& p) {
      if (trace && p.trial && p.done > traced) {
        traced = p.done;
        fmt::print(trace, "{}\n", trace_line(p));
        std::fflush(trace);
      }
      if (p.stage == "counting") {
        line.show(fmt::format("counting the valid configurations, {:.0f} s", p.elapsed_seconds));
        return;
      }
      if (p.stage == "compiling") {
        line.show(fmt::format("{} measured of {} valid, {:.0f} s; compiling {} for {:.0f} s", p.done, p.total, p.elapsed_seconds,
                              p.config->to_string(), p.waiting_seconds));
        return;
      }
      if (!said_budget && !p.budget_note.empty()) {
        line.show(fmt::format("note: {}", p.budget_note), true);
        said_budget = true;
      }
      line.show(fmt::format("{} measured ({} resumed) of {} valid, {:.0f} s, best {}", p.done, p.resumed, p.total, p.elapsed_seconds,
                            p.best_ms ? fmt::format("{:.4f} ms ({})", *p.best_ms, p.best_config) : "none yet"));
    };
    result = blocktune::tune(kernel, args.device, problem, store, compiler, options);
  }

  fmt::print("{} measured, {} resumed from the database, of {} valid configurations", result.measured, result.resumed, result.valid);
  if (result.first_measurement_seconds >= 0) fmt::print("; first measurement after {:.1f} s", result.first_measurement_seconds);
  if (result.copy_bandwidth_gbs > 0) fmt::print("; device-to-device copy {:.0f} GB/s", result.copy_bandwidth_gbs);
  fmt::print("\n");
  if (!result.budget_note.empty()) fmt::print("budget: {}\n", result.budget_note);
  if (!result.model_note.empty()) fmt::print("model: {}\n", result.model_note);
  if (!result.transfer_note.empty()) fmt::print("model: {}\n", result.transfer_note);
  if (const std::string summary = model_summary(result); !summary.empty()) fmt::print("model: {}\n", summary);
  if (result.isolated && result.worker_restarts > 0)
    fmt::print("the measurement worker was restarted {} times after faults or timeouts\n", result.worker_restarts);
  if (result.compile_restarts > 0)
    fmt::print("a compile worker was replaced {} times after compile timeouts or crashes\n", result.compile_restarts);
  if (result.interrupted) {
    fmt::print(stderr, "blocktune: interrupted; {} trials are stored in {}. Run the same command again to resume.\n",
               result.measured + result.resumed, args.database.string());
    return exit_interrupted;
  }
  std::map<Outcome, std::size_t> outcomes;
  for (const TrialRecord& t : result.trials) ++outcomes[t.outcome];
  for (const auto& [outcome, count] : outcomes) fmt::print("  {:>6} {}\n", count, to_string(outcome));
  if (!result.stopped.empty()) fmt::print("note: {}\n", result.stopped);
  if (!result.winner) {
    fmt::print(stderr, "blocktune: nothing to recommend: {}\n",
               result.valid == 0 ? result.stopped : "no configuration ran correctly (see the outcomes above)");
    return exit_error;
  }
  fmt::print("\n{}\n", explain(args.database, {.kernel = kernel.name, .problem = problem, .device = to_record(device).uuid, .config = {}}));
  return exit_done;
}

int measure(const MeasureArgs& args) {
  const KernelDescription kernel = command_kernel(args.kernel, args.spec);
  const ProblemSize problem = command_problem(kernel, args.problem, args.time_steps);
  const Config config = Config::parse(args.config.empty() ? kernel.default_config : args.config);
  TimingOptions timing{.flush_l2 = args.flush_l2};
  if (args.repeats > 0) {
    timing.min_repeats = timing.max_repeats = args.repeats;
    timing.max_seconds = 1e9;
  }
  const VariantCompiler compiler = make_compiler(args.no_cache);
  const TrialRecord t = measure_one(kernel, args.device, problem, config, compiler, timing);
  fmt::print("{} {} {}: ", kernel.name, problem.to_string(), t.config);
  print_trial_line(t);
  fmt::print("\n");
  if (t.outcome != Outcome::ok) return exit_error;
  if (problem.time_steps == 1 && t.steps_per_launch == 1) return exit_done;
  // The steps a whole number of launches leaves are finished by the
  // kernel's default configuration, measured here too.
  std::vector<StepLaunch> launches{step_launch(t)};
  if (problem.time_steps % t.steps_per_launch != 0) {
    const TrialRecord fallback = measure_one(kernel, args.device, problem, Config::parse(kernel.default_config), compiler, timing);
    if (fallback.outcome == Outcome::ok) launches.push_back(step_launch(fallback));
  }
  const auto plan = plan_steps(launches.front(), problem.time_steps, fastest_by_depth(launches));
  if (!plan) {
    fmt::print(stderr, "blocktune: {} time steps cannot be run with this configuration ({} steps per launch) and the default\n",
               problem.time_steps, t.steps_per_launch);
    return exit_error;
  }
  fmt::print("{} time steps: {} launch{} of {} step{}", problem.time_steps, plan->launches, plan->launches == 1 ? "" : "es", t.steps_per_launch, t.steps_per_launch == 1 ? "" : "s");
  for (const StepLaunch& launch : plan->remainder) fmt::print(", then the default ({} step{})", launch.steps, launch.steps == 1 ? "" : "s");
  fmt::print(": {:.4f} ms, {:.4f} ms per step\n", plan->total_ms, plan->per_step_ms());
  return exit_done;
}

int best(const BestArgs& args) {
  ProblemSize problem = ProblemSize::parse(args.problem);
  problem.time_steps = args.time_steps;
  const TuningDatabase db = TuningDatabase::open(args.database);
  // The run-time query answers such a problem with the kernel's defaults; asked by a person, it is a mistake.
  if (const auto ranks = db.problem_ranks(args.kernel);
      !ranks.empty() && std::ranges::find(ranks, problem.dims.size()) == ranks.end())
    throw std::invalid_argument(fmt::format("{} is tuned for problems of {} dimensions in '{}'; the problem {} has {}", args.kernel,
                                            fmt::join(ranks, " or "), args.database.string(), problem.to_string(),
                                            problem.dims.size()));
  DeviceKey key;
  const DeviceInfo device = target_device(args.target);
  key.uuid = device.uuid;
  key.name = device.name;
  key.cc_major = device.cc_major;
  key.cc_minor = device.cc_minor;
  key.sm_count = device.sm_count;
  const BestConfig& answer = db.best(args.kernel, key, problem);
  fmt::print("{}\n", format_best(answer));
  return answer.match == MatchKind::none ? exit_not_found : exit_done;
}

int bench_compile(const BenchCompileArgs& args) {
  const KernelDescription kernel = builtin_kernel(args.kernel);
  const DeviceInfo device = require_arch_profile(args.arch);
  const ProblemSize problem = ProblemSize::parse(kDefaultProblem);
  std::vector<CompileRequest> requests;
  std::set<std::string> seen;  // content hashes of the requests
  const ConstrainedSpace space(kernel.space, environment(kernel, device, problem));
  space.for_each([&](std::uint64_t, const Config& config) {
    CompileRequest request = resolve(kernel, config, device, problem).request;
    if (seen.insert(content_hash(request.identity())).second) requests.push_back(std::move(request));
    return args.count == 0 || requests.size() < args.count;
  });
  const auto cache = std::filesystem::temp_directory_path() / fmt::format("blocktune-bench-cache-{}", getpid());
  std::filesystem::remove_all(cache);
  const VariantCompiler compiler(cache);
  const unsigned threads = args.threads > 0 ? args.threads : std::max(1u, std::thread::hardware_concurrency());
  auto timed = [&](std::string_view which) {
    const auto start = std::chrono::steady_clock::now();
    ProgressLine line(fmt::format("bench compile, {} cache", which));
    const auto variants = compiler.compile_all(requests, threads, [&](std::size_t done, std::size_t total) {
      line.show(fmt::format("{}/{} variants, {:.1f} s", done, total,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()),
                done == total);
    });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::size_t failed = 0;
    for (const auto& v : variants) failed += v.ok ? 0 : 1;
    return std::pair{s, failed};
  };
  const auto [cold, cold_failed] = timed("cold");
  const auto [warm, warm_failed] = timed("warm");
  std::filesystem::remove_all(cache);
  fmt::print("compile benchmark: {} distinct variants of {} for {}, {} threads on {} cores, NVRTC {}\n", requests.size(), kernel.name,
             args.arch, threads, std::thread::hardware_concurrency(), nvrtc_version());
  fmt::print("  cold cache: {:8.2f} s  {:8.1f} variants/s\n", cold, static_cast<double>(requests.size()) / cold);
  fmt::print("  warm cache: {:8.3f} s  {:8.1f} variants/s\n", warm, static_cast<double>(requests.size()) / warm);
  if (cold_failed + warm_failed > 0) fmt::print("  {} variants failed to compile\n", cold_failed);
  return exit_done;
}

int bench_stencil(const BenchStencilArgs& args) {
  StencilStudyOptions options{.radius = args.radius,
                              .f64 = args.f64,
                              .problem = ProblemSize::parse(args.problem.find('x') == std::string::npos
                                                                ? fmt::format("{0}x{0}x{0}", args.problem)
                                                                : args.problem),
                              .device = args.device,
                              .database = args.database,
                              .csv = args.csv,
                              .where = args.where};
  options.problem.time_steps = args.time_steps;
  ProgressLine line("tune");
  options.progress = [&line](const TuneProgress& p) {
    line.show(fmt::format("{}/{} ({} resumed), {:.0f} s", p.done, p.total, p.resumed, p.elapsed_seconds), p.done == p.total);
  };
  run_stencil_study(options);
  return exit_done;
}

}  // namespace blocktune::cli
