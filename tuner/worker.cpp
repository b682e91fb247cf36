#include "child_process.hpp"
#include "measurement_session.hpp"

#include <blocktune/detail/device_query.hpp>
#include <blocktune/compile_pool.hpp>
#include <blocktune/worker.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <iostream>

namespace blocktune {
namespace {

using Json = nlohmann::json;
// What the worker measured; the parent already knows the rest of the trial.
Json measured_part(const TrialRecord& t, bool lost) {
  return {{"outcome", to_string(t.outcome)}, {"message", t.message},   {"samples_ms", t.samples_ms},
          {"median_ms", t.median_ms},        {"min_ms", t.min_ms},     {"mean_ms", t.mean_ms},
          {"spread", t.spread},              {"verify_s", t.verify_s}, {"benchmark_s", t.benchmark_s},
          {"sm_clock_mhz", t.sm_clock_mhz},  {"metric", t.metric},     {"metric_unit", t.metric_unit},
          {"lost", lost}};
}

void merge_measured(const Json& m, TrialRecord& t) {
  t.outcome = parse_outcome(m.at("outcome").get<std::string>()).value_or(Outcome::runtime_fault);
  t.message = m.at("message").get<std::string>();
  t.samples_ms = m.at("samples_ms").get<std::vector<double>>();
  t.median_ms = m.at("median_ms").get<double>();
  t.min_ms = m.at("min_ms").get<double>();
  t.mean_ms = m.at("mean_ms").get<double>();
  t.spread = m.at("spread").get<double>();
  t.verify_s = m.at("verify_s").get<double>();
  t.benchmark_s = m.at("benchmark_s").get<double>();
  t.sm_clock_mhz = m.at("sm_clock_mhz").get<int>();
  t.metric = m.at("metric").get<double>();
  t.metric_unit = m.at("metric_unit").get<std::string>();
}

Json timing_json(const TimingOptions& t) {
  return {{"warmup", t.warmup},           {"min_repeats", t.min_repeats}, {"max_repeats", t.max_repeats},
          {"target_spread", t.target_spread}, {"max_seconds", t.max_seconds}, {"flush_l2", t.flush_l2}};
}

TimingOptions timing_from(const Json& j) {
  return {.warmup = j.at("warmup"), .min_repeats = j.at("min_repeats"), .max_repeats = j.at("max_repeats"),
          .target_spread = j.at("target_spread"), .max_seconds = j.at("max_seconds"), .flush_l2 = j.at("flush_l2")};
}

void write_line(const Json& json) {
  std::cout << json.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n' << std::flush;
}

// A worker answers its first line within this time: it loads the kernel,
// fills the buffers and computes the reference, on the host for some kernels.
constexpr double kStartSeconds = 600;

}  // namespace

MeasurementWorker::MeasurementWorker(const KernelDescription& kernel, int ordinal, const ProblemSize& problem,
                                     const TimingOptions& timing, std::optional<std::filesystem::path> cache_dir,
                                     std::filesystem::path executable)
    : executable_(std::move(executable)) {
  if (kernel.origin.empty()) throw std::invalid_argument(fmt::format("kernel {} has no origin: a worker cannot load it", kernel.name));
  arguments_ = Json{{"kernel", kernel.origin},
                    {"device", ordinal},
                    {"problem", problem.to_string()},
                    {"time_steps", problem.time_steps},  // constraints may name them
                    {"timing", timing_json(timing)},
                    {"cache_dir", cache_dir ? Json(cache_dir->string()) : Json()}}
                   .dump();
  start();
}

MeasurementWorker::~MeasurementWorker() { stop(); }

void MeasurementWorker::start() {
  const std::string program = executable_.string();
  process_ = std::make_unique<detail::ChildProcess>(executable_, arguments_);
  bool timed_out = false;
  const std::string line = process_->read_line(kStartSeconds, timed_out);
  if (line.empty()) {
    stop();
    throw std::runtime_error(timed_out ? fmt::format("the measurement worker {} did not start within {:.0f} s", program, kStartSeconds)
                                       : fmt::format("the measurement worker {} failed to start", program));
  }
  const Json hello = Json::parse(line, nullptr, false);
  if (hello.is_discarded() || !hello.is_object()) {
    stop();
    throw std::runtime_error(fmt::format("the measurement worker {} said something unexpected: {}", program, line));
  }
  if (hello.contains("error")) {
    const std::string error = hello["error"].get<std::string>();
    const bool no_gpu = hello.value("gpu_unavailable", false);
    stop();
    if (no_gpu) throw GpuUnavailable(error);
    throw std::runtime_error(error);
  }
  device_ = device_from_json(hello.at("device").dump());
  copy_bandwidth_gbs_ = hello.at("copy_bandwidth_gbs").get<double>();
}

int MeasurementWorker::stop() {
  if (!process_) return 0;
  const int status = process_->stop();
  process_.reset();
  return status;
}

TrialRecord MeasurementWorker::measure(const PlanEntry& entry, TrialRecord trial, double timeout_seconds) {
  if (!process_) {
    start();
    ++restarts_;
  }
  if (!process_->write_line(entry.config.to_string())) {
    stop();
    trial.outcome = Outcome::runtime_fault;
    trial.message = "the measurement worker stopped before it was sent the configuration";
    return trial;
  }
  bool timed_out = false;
  const std::string line = process_->read_line(timeout_seconds, timed_out);
  if (timed_out) {
    process_->kill_now();  // a kernel that never finishes: only its process can be stopped
    stop();
    trial.outcome = Outcome::timeout;
    trial.message = fmt::format("did not finish within {:.1f} s; its worker process was stopped", timeout_seconds);
    return trial;
  }
  if (line.empty()) {
    const int status = stop();
    trial.outcome = Outcome::runtime_fault;
    trial.message = fmt::format("the measurement worker {} while measuring this configuration", detail::describe_exit(status));
    return trial;
  }
  const Json measured = Json::parse(line, nullptr, false);
  if (measured.is_discarded() || !measured.is_object()) {
    stop();
    trial.outcome = Outcome::runtime_fault;
    trial.message = fmt::format("the measurement worker said something unexpected: {}", line);
    return trial;
  }
  merge_measured(measured, trial);
  if (measured.value("lost", false)) stop();  // its context is gone; the next call starts afresh
  return trial;
}

std::optional<std::filesystem::path> find_worker_executable() {
  namespace fs = std::filesystem;
  if (const char* path = std::getenv("BLOCKTUNE_WORKER"); path && *path) return fs::path(path);
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  for (const fs::path& candidate : {self.parent_path() / "blocktune-worker", self.parent_path() / ".." / "cli" / "blocktune-worker",
                                    self.parent_path() / ".." / ".." / "cli" / "blocktune-worker"}) {
    if (fs::exists(candidate, error)) return fs::weakly_canonical(candidate, error);
  }
  return std::nullopt;
}

int run_measurement_worker(int argc, char** argv, const std::function<KernelDescription(std::string_view)>& load_kernel) {
  // Ctrl-C, and the SIGTERM that `timeout` or a service manager sends the whole
  // process group, are for the tuner: it finishes or stops this worker (and a
  // compile worker, which starts here too) itself. A worker killed by them would
  // record the configuration in hand as a crash.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  if (argc != 2) {
    std::cerr << "blocktune-worker is started by blocktune to measure configurations in a separate process\n";
    return 2;
  }
  try {
    const Json job = Json::parse(argv[1]);
    if (job.value("mode", "") == "compile") return run_compile_worker(argv[1]);
    const KernelDescription kernel = load_kernel(job.at("kernel").get<std::string>());
    const int ordinal = job.at("device").get<int>();
    ProblemSize problem = ProblemSize::parse(job.at("problem").get<std::string>());
    problem.time_steps = job.at("time_steps").get<std::int64_t>();
    const TimingOptions timing = timing_from(job.at("timing"));
    const VariantCompiler compiler(job.at("cache_dir").is_null()
                                       ? std::nullopt
                                       : std::optional<std::filesystem::path>(job.at("cache_dir").get<std::string>()));
    const DeviceInfo device = query_device(ordinal);
    const PlanEntry default_entry = plan_one(kernel, Config::parse(kernel.default_config), device, problem, compiler);
    MeasurementSession session(kernel, ordinal, problem, compiler, default_entry.launchable() ? &default_entry : nullptr);
    write_line({{"device", Json::parse(device_to_json(device))},
                {"copy_bandwidth_gbs", copy_bandwidth_gbs(session.context(), copy_test_bytes(device))}});
    for (std::string line; std::getline(std::cin, line);) {
      const PlanEntry entry = plan_one(kernel, Config::parse(line), device, problem, compiler);
      const TrialRecord trial = entry.launchable() ? session.measure(entry, timing) : static_trial(entry);
      const bool lost = !session.lost().empty();
      write_line(measured_part(trial, lost));
      if (lost) return 3;  // the context cannot be used again
    }
    return 0;
  } catch (const GpuUnavailable& error) {
    write_line({{"error", error.what()}, {"gpu_unavailable", true}});
  } catch (const std::exception& error) {
    write_line({{"error", error.what()}});
  }
  return 1;
}

}  // namespace blocktune
