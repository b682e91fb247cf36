// Tuning: a kernel's configurations searched by a strategy, measured on a
// GPU (in a worker process where possible) and stored as they are measured.
#include "measurement_session.hpp"

#include <blocktune/prediction.hpp>
#include <blocktune/store.hpp>
#include <blocktune/strategy.hpp>
#include <blocktune/tuner.hpp>
#include <blocktune/worker.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace blocktune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

namespace {

// Stored trials keyed by configuration text, for resuming.
std::map<std::string, TrialRecord> stored_trials(const Store& store, std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id) {
  std::map<std::string, TrialRecord> stored;
  for (TrialRecord& t : store.trials(device_id, kernel_id, problem_id)) stored.emplace(t.config, std::move(t));
  return stored;
}

const PlanEntry* find_entry(const Plan& plan, std::string_view config_text) {
  const Config wanted = Config::parse(config_text);
  for (const PlanEntry& e : plan.entries)
    if (e.config == wanted) return &e;
  return nullptr;
}

std::string kernel_identity(const KernelDescription& kernel) {
  std::string text = kernel.source;
  for (const std::string& option : kernel.options) text += "\n" + option;
  return content_hash(text);
}

}  // namespace

std::size_t copy_test_bytes(const DeviceInfo& device) {
  return static_cast<std::size_t>(std::min<std::int64_t>(std::max<std::int64_t>(16 * device.l2_bytes, std::int64_t{512} << 20),
                                                         device.memory_bytes / 8));
}

TuneResult tune(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, Store& store,
                const VariantCompiler& compiler, const TuneOptions& options) {
  const auto start = Clock::now();
  TuneResult result;
  const DeviceInfo device = query_device(ordinal);
  result.plan = make_plan(kernel, device, problem, compiler, {.threads = options.compile_threads});
  const Plan& plan = result.plan;

  std::vector<std::string> parameter_names;
  for (const Parameter& p : kernel.space.parameters()) parameter_names.push_back(p.name);
  KernelRecord record{kernel.name, kernel_identity(kernel), parameter_names, kernel.default_config};
  const PlanEntry* default_entry = find_entry(plan, kernel.default_config);
  if (default_entry && default_entry->rejected_by.empty()) record.default_shape = static_trial(*default_entry).shape;
  const std::int64_t device_id = store.upsert_device(to_record(device));
  const std::int64_t kernel_id = store.upsert_kernel(record);
  const std::int64_t problem_id = store.upsert_problem(kernel_id, problem);
  std::map<std::string, TrialRecord> stored = stored_trials(store, device_id, kernel_id, problem_id);

  // What the plan already decided is a trial too: rejected, failed to compile, cannot launch.
  for (const PlanEntry& entry : plan.entries)
    if (!entry.launchable() && !stored.contains(entry.config.to_string())) store.add_trial(device_id, kernel_id, problem_id, static_trial(entry));

  std::vector<const PlanEntry*> launchable;
  for (const PlanEntry& entry : plan.entries)
    if (entry.launchable()) launchable.push_back(&entry);
  if (launchable.empty()) {
    result.stopped = "no configuration can launch (see `blocktune plan`)";
    return result;
  }

  // In a worker process when possible: a configuration that faults or hangs
  // then costs only its worker. The worker is started by exec, so this
  // process having initialised CUDA does not matter.
  std::optional<MeasurementWorker> worker;
  std::optional<MeasurementSession> session;
  const auto worker_program = options.isolate && !kernel.origin.empty() ? find_worker_executable() : std::nullopt;
  if (worker_program) {
    worker.emplace(kernel, ordinal, problem, options.timing, compiler.cache_dir(), *worker_program);
    result.copy_bandwidth_gbs = worker->copy_bandwidth_gbs();
    result.isolated = true;
  } else {
    session.emplace(kernel, ordinal, problem, compiler, default_entry && default_entry->launchable() ? default_entry : launchable.front());
    result.copy_bandwidth_gbs = copy_bandwidth_gbs(session->context(), copy_test_bytes(device));
  }
  // The device's copy bandwidth is stored once (or by `blocktune characterize`)
  // and kept: the model predicts with it, and a rerun must predict as the
  // first run did for its strategy to retrace the same steps.
  const auto stored_metrics = store.device_metrics(device_id);
  if (std::ranges::none_of(stored_metrics, [](const DeviceMetric& m) { return m.name == copy_bandwidth_metric; }))
    store.set_device_metric(device_id, copy_bandwidth_metric, result.copy_bandwidth_gbs, "GB/s");

  // The candidates in the plan's order, so that a strategy and seed retrace
  // the same steps when a rerun resumes. The model's predicted times (with the
  // device's characterisation where `blocktune characterize` stored one) are
  // the strategy's model scores; a prediction the model could not make ranks
  // last rather than stopping the run.
  constexpr double kNoPrediction = std::numeric_limits<double>::max();
  const DeviceParameters parameters = model_parameters(device, store.device_metrics(device_id));
  std::vector<Config> candidates;
  std::vector<double> predicted_seconds;
  for (const PlanEntry* entry : launchable) {
    const auto prediction = predict_entry(kernel, plan, *entry, parameters);
    candidates.push_back(entry->config);
    predicted_seconds.push_back(prediction && std::isfinite(prediction->seconds) ? prediction->seconds : kNoPrediction);
  }
  const PlanEntry* predicted_fastest = launchable[static_cast<std::size_t>(std::ranges::min_element(predicted_seconds) - predicted_seconds.begin())];
  const TrialRecord first_ranked = static_trial(*predicted_fastest);
  store.set_arch_default(kernel.name, device.cc_major, device.cc_minor, first_ranked.config, first_ranked.shape);

  // The strategy picks what to measure next; the evaluator measures it, or
  // answers from the database when an earlier run stored it (so a rerun with
  // the same strategy and seed retraces its steps, then goes on), and stops
  // the search by throwing StopTuning.
  struct StopTuning {
    std::string why;
    bool interrupted = false;
  };
  TuneProgress progress;
  progress.total = launchable.size();
  const Evaluator evaluate = [&](std::uint64_t candidate) -> Evaluation {
    const auto measurement_start = Clock::now();
    const std::string key = candidates[candidate].to_string();
    if (auto it = stored.find(key); it != stored.end()) {
      result.trials.push_back(it->second);
      ++result.resumed;
    } else {
      if (options.max_evaluations && result.measured >= *options.max_evaluations)
        throw StopTuning{fmt::format("stopped after {} measurements (--max-evaluations)", result.measured)};
      if (options.stop_requested && options.stop_requested()) throw StopTuning{"interrupted", true};
      if (options.max_seconds && seconds_since(start) > *options.max_seconds)
        throw StopTuning{fmt::format("stopped after {:.0f} s (--max-seconds)", seconds_since(start))};
      const PlanEntry& entry = *launchable[candidate];
      const int launches = options.timing.warmup + options.timing.max_repeats + 1;
      const double timeout = std::max(options.timeout_floor_seconds,
                                      progress.best_ms ? options.timeout_factor * *progress.best_ms * launches / 1000 : 0.0);
      TrialRecord trial = worker ? worker->measure(entry, static_trial(entry), timeout) : session->measure(entry, options.timing);
      const double predicted = predicted_seconds[candidate];
      if (predicted > 0 && predicted < kNoPrediction) trial.predicted_ms = predicted * 1000;  // stored for reports
      store.add_trial(device_id, kernel_id, problem_id, trial);
      result.trials.push_back(std::move(trial));
      ++result.measured;
    }
    const TrialRecord& trial = result.trials.back();
    if (trial.outcome == Outcome::ok && (!progress.best_ms || trial.median_ms < *progress.best_ms)) {
      progress.best_ms = trial.median_ms;
      progress.best_config = trial.config;
    }
    ++progress.done;
    progress.resumed = result.resumed;
    progress.elapsed_seconds = seconds_since(start);
    progress.config = &launchable[candidate]->config;
    progress.trial = &trial;
    if (options.progress) options.progress(progress);
    if (session && !session->lost().empty())
      throw StopTuning{fmt::format("the GPU context was lost ({}); every trial so far is stored and a rerun resumes after it",
                                   session->lost())};
    return {trial.outcome == Outcome::ok ? std::optional(trial.median_ms / 1000) : std::nullopt, seconds_since(measurement_start)};
  };
  try {
    const ListedCandidates space(candidates);
    const ModelScores model{[&](std::uint64_t candidate) { return predicted_seconds[candidate]; }, true};
    make_strategy(options.strategy)->run(space, &model, evaluate, {}, options.seed);
  } catch (const StopTuning& stop) {
    result.stopped = stop.why;
    result.interrupted = stop.interrupted;
  }
  if (worker) result.worker_restarts = worker->restarts();
  result.winner = store.update_winner(device_id, kernel_id, problem_id, kernel.default_config);
  return result;
}

Remeasured measure_many(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const std::vector<Config>& configs,
                        const VariantCompiler& compiler, const TimingOptions& timing) {
  const DeviceInfo device = query_device(ordinal);
  std::vector<PlanEntry> entries;
  for (const Config& config : configs) entries.push_back(plan_one(kernel, config, device, problem, compiler));
  const PlanEntry default_entry = plan_one(kernel, Config::parse(kernel.default_config), device, problem, compiler);
  const auto first_launchable = std::ranges::find_if(entries, &PlanEntry::launchable);
  const PlanEntry* reference = default_entry.launchable() ? &default_entry
                               : first_launchable != entries.end() ? &*first_launchable
                                                                   : nullptr;
  Remeasured result;
  std::optional<MeasurementSession> session;
  if (reference) session.emplace(kernel, ordinal, problem, compiler, reference);
  if (session) result.copy_bandwidth_gbs = copy_bandwidth_gbs(session->context(), copy_test_bytes(device));
  for (const PlanEntry& entry : entries) {
    result.trials.push_back(entry.launchable() && session && session->lost().empty() ? session->measure(entry, timing) : static_trial(entry));
  }
  return result;
}

TrialRecord measure_one(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const Config& config,
                        const VariantCompiler& compiler, const TimingOptions& timing) {
  return measure_many(kernel, ordinal, problem, {config}, compiler, timing).trials.front();
}

}  // namespace blocktune
