// Tuning: a kernel's configurations searched by a strategy, measured on a
// GPU (in a worker process where possible) and stored as they are measured.
#include "measurement_session.hpp"

#include <blocktune/detail/device_query.hpp>
#include <blocktune/compile_pool.hpp>
#include <blocktune/detail/model.hpp>
#include <blocktune/prediction.hpp>
#include <blocktune/resource_estimate.hpp>
#include <blocktune/store.hpp>
#include <blocktune/strategy.hpp>
#include <blocktune/transfer.hpp>
#include <blocktune/tuner.hpp>
#include <blocktune/worker.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <future>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>

namespace blocktune {
namespace {

constexpr double kNoPrediction = 1e9;  // seconds: a configuration the model cannot predict ranks last rather than stopping the run

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Stored trials keyed by configuration text, for resuming: all but the times
// measured with the L2 the other way, which do not compare with this run's.
std::map<std::string, TrialRecord> stored_trials(const Store& store, std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id,
                                                 bool l2_flushed) {
  std::map<std::string, TrialRecord> stored;
  for (TrialRecord& t : store.trials(device_id, kernel_id, problem_id))
    if (t.outcome != Outcome::ok || t.l2_flushed == l2_flushed) stored.emplace(t.config, std::move(t));
  return stored;
}

// Sets result.transfer and its note from the measured problem that
// nearest_size_transfer chooses (of those nearest in size with enough
// configurations to say something, the one the model sees most alike), with
// the model's predictions there and here recomputed by today's model and each
// variant's recorded resources; leaves them empty where there is none. Only
// trials timed with the L2 as this run times it count.
template <typename PredictPerStep>
void find_size_transfer(const Store& store, std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id, const ProblemSize& problem,
                        bool l2_flushed, const PredictPerStep& predicted_per_step, TuneResult& result) {
  std::vector<std::pair<std::int64_t, ProblemSize>> others = store.measured_problems(device_id, kernel_id);
  std::erase_if(others, [&](const auto& other) { return other.first == problem_id; });
  std::vector<std::vector<std::int64_t>> sizes;
  for (const auto& other : others) sizes.push_back(other.second.dims);
  auto nearest = nearest_size_transfer(sizes, problem.dims, [&](std::size_t i) {
    std::vector<MeasuredAndPredicted> measured;
    for (const TrialRecord& trial : store.trials(device_id, kernel_id, others[i].first)) {
      if (trial.outcome != Outcome::ok || trial.l2_flushed != l2_flushed) continue;
      const ResourceUsage usage{.registers = trial.registers, .static_smem = trial.static_smem, .stack_bytes = trial.local_bytes,
                                .spill_stores = trial.spill_stores, .spill_loads = trial.spill_loads};
      Config config;
      try {
        config = Config::parse(trial.config);
      } catch (const std::invalid_argument&) {
        continue;  // a stored text this build cannot read: it says nothing of this run
      }
      const double predicted = predicted_per_step(config, others[i].second, usage);
      if (predicted >= kNoPrediction) continue;  // not a configuration of today's space
      const double predicted_here = predicted_per_step(config, problem, usage);
      measured.push_back({trial.config, trial.median_ms / 1000 / static_cast<double>(trial.steps_per_launch), predicted,
                          predicted_here < kNoPrediction ? predicted_here : 0});
    }
    return measured;
  });
  if (!nearest) return;
  result.transfer = std::move(nearest->transfer);
  const double distance = result.transfer->model_distance();
  const std::string why =
      nearest->compared == 1 ? "the only size measured with enough configurations"
      : !std::isfinite(distance) ? fmt::format("the nearest of the {} sizes measured nearest to this one", nearest->compared)
      : fmt::format("of the {} sizes measured nearest to this one, the nearest of those whose configurations the model ranks "
                    "most alike: model distance {:.3f}, the nearest size's {:.3f}",
                    nearest->compared, distance, nearest->nearest_model_distance);
  std::vector<std::string> averaged;
  for (const std::size_t i : nearest->averaged_with) averaged.push_back(others[i].second.to_string());
  const std::string averaged_note =
      averaged.empty() ? ""
                       : fmt::format(", each ratio averaged with those of problem{} {}, which the model sees as alike too",
                                     averaged.size() > 1 ? "s" : "", fmt::join(averaged, " and "));
  result.transfer_note = fmt::format(
      "the model's predictions are corrected by what problem {} measured on this device{} ({} configurations{}: each "
      "one's measured time there, times its predicted time here over there to the power {}; {}); --no-transfer leaves "
      "them as they are",
      others[nearest->index].second.to_string(), averaged_note, result.transfer->configurations(), averaged.empty() ? "" : " in all",
      kModelSizeEffectWeight, why);
}

std::string kernel_identity(const KernelDescription& kernel) {
  std::string text = kernel.source;
  for (const std::string& option : kernel.options) text += "\n" + option;
  return content_hash(text);
}

// What a whole measurement of a space would cost before anything is known:
// a compile of a typical variant on one core, and the checking and timing of
// one configuration. Only used to decide whether a run without a budget can
// measure everything (a space of a few thousand configurations can).
constexpr double kAssumedCompileSeconds = 0.3;
constexpr double kAssumedMeasureSeconds = 0.03;

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

// Where the measurements come from: a worker process on the GPU, this
// process, or a simulation.
class Measurer {
 public:
  virtual ~Measurer() = default;
  virtual TrialRecord measure(const PlanEntry& entry, TrialRecord trial, double timeout_seconds) = 0;
  virtual double copy_bandwidth_gbs() = 0;
  virtual std::string lost() const { return {}; }  // why the GPU can no longer be used
  virtual std::size_t restarts() const { return 0; }
};

class WorkerMeasurer final : public Measurer {
 public:
  template <class... Args>
  explicit WorkerMeasurer(Args&&... args) : worker_(std::forward<Args>(args)...) {}
  TrialRecord measure(const PlanEntry& entry, TrialRecord trial, double timeout_seconds) override {
    return worker_.measure(entry, std::move(trial), timeout_seconds);
  }
  double copy_bandwidth_gbs() override { return worker_.copy_bandwidth_gbs(); }
  std::size_t restarts() const override { return worker_.restarts(); }

 private:
  MeasurementWorker worker_;
};

class SessionMeasurer final : public Measurer {
 public:
  SessionMeasurer(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const VariantCompiler& compiler,
                  const PlanEntry* reference, const TimingOptions& timing)
      : compiler_(compiler), session_(kernel, ordinal, problem, compiler, reference), timing_(timing) {}
  TrialRecord measure(const PlanEntry& entry, TrialRecord trial, double) override {
    PlanEntry with_cubin = entry;  // the pool leaves the machine code in the variant cache
    with_cubin.variant = compiler_.compile(entry.resolved.request);
    TrialRecord measured = session_.measure(with_cubin, timing_);
    measured.compile_s = trial.compile_s;
    return measured;
  }
  double copy_bandwidth_gbs() override { return blocktune::copy_bandwidth_gbs(session_.context(), copy_test_bytes(session_.context().device())); }
  std::string lost() const override { return session_.lost(); }

 private:
  const VariantCompiler& compiler_;
  MeasurementSession session_;
  TimingOptions timing_;
};

class SimulatedMeasurer final : public Measurer {
 public:
  explicit SimulatedMeasurer(const Simulation& simulation) : simulation_(simulation) {}
  TrialRecord measure(const PlanEntry& entry, TrialRecord trial, double) override {
    const SimulatedMeasurement m = simulation_.measure(entry.config);
    std::this_thread::sleep_for(std::chrono::duration<double>(m.seconds));
    trial.outcome = m.outcome;
    trial.message = m.message;
    if (m.outcome == Outcome::ok) trial.samples_ms = {m.median_ms}, trial.median_ms = trial.min_ms = trial.mean_ms = m.median_ms;
    trial.benchmark_s = m.seconds;
    return trial;
  }
  double copy_bandwidth_gbs() override { return 0; }

 private:
  const Simulation& simulation_;
};

// One proposed configuration on its way to the GPU: answered by the store,
// or compiling.
struct Proposal {
  std::uint64_t index = 0;
  PlanEntry entry;
  std::optional<TrialRecord> stored;
  std::shared_future<CompiledVariant> variant;
  std::string unresolvable;  // the launch geometry could not be computed: why
};

}  // namespace

std::size_t copy_test_bytes(const DeviceInfo& device) {
  return static_cast<std::size_t>(std::min<std::int64_t>(std::max<std::int64_t>(16 * device.l2_bytes, std::int64_t{512} << 20),
                                                         device.memory_bytes / 8));
}

TuneResult tune(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, Store& store,
                const VariantCompiler& compiler, const TuneOptions& options) {
  const auto start = Clock::now();
  TuneResult result;
  const DeviceInfo device = options.simulation ? options.simulation->device : query_device(ordinal);
  result.device = device;
  require_memory(kernel, device, problem);
  TuneProgress progress;
  const auto report = [&] {
    progress.elapsed_seconds = seconds_since(start);
    if (options.progress) options.progress(progress);
  };

  // 1. The space, counted exactly and never listed.
  const Lookup env = environment(kernel, device, problem);
  progress.stage = "counting";
  auto last_count_report = Clock::now();
  const ConstrainedSpace space(kernel.space, env, [&](double) {
    if (seconds_since(last_count_report) >= 1) report(), last_count_report = Clock::now();
  });
  result.raw_size = kernel.space.raw_size();
  result.valid = progress.total = space.size();
  progress.stage = "measuring";
  if (result.valid == 0) {
    result.stopped = fmt::format("no configuration of the {:.0f} in the space satisfies the constraints on {}", result.raw_size, device.name);
    return result;
  }

  // 2. What is stored already, and where measurements come from.
  std::vector<std::string> parameter_names;
  for (const Parameter& p : kernel.space.parameters()) parameter_names.push_back(p.name);
  const bool work_counted = counts_work(kernel);
  KernelRecord record{kernel.name, kernel_identity(kernel), parameter_names, kernel.default_config};
  record.counts_work = work_counted;
  PlanEntry default_entry{Config::parse(kernel.default_config), {}, {}, {}, {}};
  if (auto violation = kernel.space.check(default_entry.config, env)) {
    default_entry.rejected_by = violation->constraint;
  } else {
    default_entry.resolved = resolve(kernel, default_entry.config, device, problem);
    record.default_shape = static_trial(default_entry).shape;
  }
  const std::int64_t device_id = store.upsert_device(to_record(device));
  const std::int64_t kernel_id = store.upsert_kernel(record);
  const std::int64_t problem_id = store.upsert_problem(kernel_id, problem);
  std::map<std::string, TrialRecord> stored = stored_trials(store, device_id, kernel_id, problem_id, options.timing.flush_l2);

  const auto worker_program = find_worker_executable();
  CompilePool pool(compiler, {.workers = options.compile_threads, .timeout_seconds = options.compile_timeout_seconds,
                              .executable = worker_program});
  // In a worker process when possible: a configuration that faults or hangs
  // then costs only its worker. The worker is started by exec, so this
  // process having initialised CUDA does not matter. It starts (buffers,
  // the copy bandwidth) while the first configurations compile.
  auto starting = std::async(std::launch::async, [&]() -> std::unique_ptr<Measurer> {
    if (options.simulation) return std::make_unique<SimulatedMeasurer>(*options.simulation);
    if (options.isolate && !kernel.origin.empty() && worker_program)
      return std::make_unique<WorkerMeasurer>(kernel, ordinal, problem, options.timing, pool.compiler().cache_dir(), *worker_program);
    default_entry.variant = pool.compiler().compile(default_entry.resolved.request);
    if (default_entry.variant.ok) default_entry.occupancy = occupancy_of(default_entry.resolved, default_entry.variant.usage, device);
    return std::make_unique<SessionMeasurer>(kernel, ordinal, problem, pool.compiler(), default_entry.launchable() ? &default_entry : nullptr,
                                             options.timing);
  });
  std::unique_ptr<Measurer> measurer;
  const auto await_measurer = [&] {
    if (measurer) return;
    measurer = starting.get();
    result.isolated = dynamic_cast<WorkerMeasurer*>(measurer.get()) != nullptr;
    result.copy_bandwidth_gbs = measurer->copy_bandwidth_gbs();
    // The device's copy bandwidth is stored once (or by `blocktune characterize`)
    // and kept: the model predicts with it, and a rerun must predict as the
    // first run did for its strategy to retrace the same steps.
    const auto metrics = store.device_metrics(device_id);
    if (result.copy_bandwidth_gbs > 0 && std::ranges::none_of(metrics, [](const DeviceMetric& m) { return m.name == copy_bandwidth_metric; }))
      store.set_device_metric(device_id, copy_bandwidth_metric, result.copy_bandwidth_gbs, "GB/s");
  };
  // Without a stored copy bandwidth the model waits for this run's measurement of it.
  if (std::ranges::none_of(store.device_metrics(device_id), [](const DeviceMetric& m) { return m.name == copy_bandwidth_metric; }))
    await_measurer();

  // 3. The model's scores: predicted times, with the resources of the
  // variants compiled so far standing in for those not compiled yet.
  const DeviceParameters parameters = model_parameters(device, store.device_metrics(device_id));
  ResourceEstimator estimator(kernel);
  const auto predicted_seconds = [&](const PlanEntry& entry, const ProblemSize& size) {
    try {
      const auto prediction = predict_entry(kernel, device, size, entry, parameters);
      return prediction && std::isfinite(prediction->seconds) && prediction->seconds > 0 ? prediction->seconds : kNoPrediction;
    } catch (const std::exception&) {
      return kNoPrediction;
    }
  };
  // The configuration planned with a compiled variant's resources where known, else the estimator's; nullopt where
  // its launch geometry cannot be computed.
  const auto estimated_entry = [&](const Config& config, const ProblemSize& size,
                                   const std::optional<ResourceUsage>& usage) -> std::optional<PlanEntry> {
    PlanEntry entry;
    entry.config = config;
    try {
      entry.resolved = resolve(kernel, entry.config, device, size);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    entry.variant.ok = true;
    entry.variant.usage = usage ? *usage : estimator.estimate(entry.config);
    entry.occupancy = occupancy_of(entry.resolved, entry.variant.usage, device);
    return entry;
  };
  // Per time step.
  const auto entry_per_step = [&](const std::optional<PlanEntry>& entry, const ProblemSize& size) {
    return entry ? predicted_seconds(*entry, size) / static_cast<double>(entry->resolved.steps_per_launch) : kNoPrediction;
  };
  const auto predicted_per_step = [&](const Config& config, const ProblemSize& size, const std::optional<ResourceUsage>& usage) {
    return entry_per_step(estimated_entry(config, size, usage), size);
  };
  // Corrected by what the nearest other size of the kernel measured on this
  // device, where the store has one (search/include/blocktune/transfer.hpp).
  if (options.use_model && options.transfer_sizes) find_size_transfer(store, device_id, kernel_id, problem_id, problem, options.timing.flush_l2, predicted_per_step, result);
  const std::optional<SizeTransfer>& transfer = result.transfer;
  const auto transfer_factor = [&](const Config& config) { return transfer ? transfer->factor(config.to_string()) : 1.0; };
  // The search asks a candidate's score and resident warps one next to the
  // other: both from one planning, kept until the next candidate or until a
  // compiled variant changes the estimated resources.
  struct Planned {
    std::uint64_t index;
    std::size_t resources_known;
    std::optional<PlanEntry> entry;
  };
  std::optional<Planned> last_planned;
  const auto planned = [&](std::uint64_t index) -> const std::optional<PlanEntry>& {
    if (!last_planned || last_planned->index != index || last_planned->resources_known != estimator.learned())
      last_planned = Planned{index, estimator.learned(), estimated_entry(space.at(index), problem, std::nullopt)};
    return last_planned->entry;
  };
  const ModelScores model_scores{
      .score = [&](std::uint64_t index) { return entry_per_step(planned(index), problem); },
      .are_times = true,
      .count_work = work_counted,
      .resident_warps = [&](std::uint64_t index) {
        const auto& entry = planned(index);
        return entry ? resident_warps(device, *entry, parameters) : 0;
      }};
  const ModelScores scores =
      transfer ? transferred_scores(model_scores, *transfer, [&](std::uint64_t index) { return space.at(index).to_string(); }, space.size())
               : model_scores;
  if (scores.measured)
    result.transfer_note += fmt::format(
        "; that is nearly every configuration here, so the search measures its fastest corrected prediction each time, the first "
        "before the default configuration where it predicts the default {} times slower or more",
        kMeasuredLeadMargin);

  // 4. The budget: the user's, or for a space too large to measure in about
  // ten minutes a default one, said at the start.
  std::optional<double> max_seconds = options.max_seconds;
  std::optional<std::size_t> patience = options.patience;
  if (!options.max_seconds && !options.max_evaluations && !options.patience) {
    const double estimate =
        static_cast<double>(result.valid) * std::max(kAssumedMeasureSeconds, kAssumedCompileSeconds / pool.workers());
    if (estimate > options.default_budget_seconds) {
      max_seconds = options.default_budget_seconds;
      patience = options.default_patience;
      result.budget_note = fmt::format(
          "{} valid configurations would take about {} to measure completely; tuning for at most {} and stopping after {} "
          "measurements without a faster configuration (set --max-seconds, --max-evaluations or --patience to change this)",
          result.valid, duration_text(estimate), duration_text(*max_seconds), *patience);
      progress.budget_note = result.budget_note;
    }
  }
  report();

  // 5. The pipeline: the strategy proposes a few ahead; each proposal is
  // answered by the store or compiled on the pool while the GPU measures the
  // one before it; the GPU takes them in the order proposed, so that a rerun
  // with the same strategy, seed and look-ahead retraces the same steps.
  // A kernel that counts no work still gets the model's prior, which ranks
  // occupancy, waves and launch overhead only: the search learns from it,
  // weighed by how well it predicts what this run measures, but does not
  // start from its favourite (developed on the example kernels' recordings
  // predicted as if they counted no work and on pnpoly and hotspot, judged on
  // the eighth held-out set: bench/results/search-calibration/model-without-work-counts/).
  // Another size's measured times count the work for it (transferred_scores).
  if (options.use_model && !scores.count_work)
    result.model_note = "the kernel counts no work (objective bytes_moved or flops, or work; docs/specs.md), so the model's predictions "
                        "rank occupancy, waves and launch overhead only; the search learns from them without starting from their favourite";
  // The default configuration is measured first: it is compiled anyway, as
  // the reference for correctness, and the report's speed-up is against it.
  // (Second where the predictions corrected by another size's measurements
  // put it kMeasuredLeadMargin times slower than their fastest; after the
  // search where the model's own guesses put it kGuessedPutOffMargin times
  // slower: Search::put_off.)
  std::vector<std::uint64_t> first;
  if (!kernel.default_config.empty())
    if (const auto index = space.index_of(default_entry.config)) first.push_back(*index);
  const auto search = make_strategy(options.strategy)->start(space, options.use_model ? &scores : nullptr, options.seed, first);
  const std::size_t lookahead = options.lookahead > 0 ? options.lookahead : pool.workers() + 1;
  std::deque<Proposal> queue;
  // Configurations that differ only in launch settings share a variant: one
  // compile each (a compile timeout, which the cache does not keep, included).
  std::unordered_map<std::string, std::shared_future<CompiledVariant>> variants;  // by the request's content hash
  std::size_t new_in_queue = 0, since_improvement = 0;
  // The model's favourite of what this run compiled: the architecture's
  // default for GPUs never tuned (the run-time query's last resort).
  std::optional<std::pair<double, TrialRecord>> favourite;
  bool exhausted = false;
  const auto stop_reason = [&]() -> std::string {
    if (options.stop_requested && options.stop_requested()) return "interrupted";
    if (options.max_evaluations && result.measured >= *options.max_evaluations)
      return fmt::format("stopped after {} new trials (--max-evaluations)", result.measured);
    if (max_seconds && seconds_since(start) > *max_seconds) return fmt::format("stopped after {:.0f} s (--max-seconds)", seconds_since(start));
    if (patience && since_improvement >= *patience)
      return fmt::format("stopped after {} measurements without a faster configuration (--patience)", since_improvement);
    return {};
  };
  // A proposal is answered by the store, or compiled on the pool.
  const auto make_proposal = [&](std::uint64_t index) {
    Proposal proposal;
    proposal.index = index;
    proposal.entry.config = space.at(index);
    if (auto found = stored.find(proposal.entry.config.to_string()); found != stored.end()) {
      proposal.stored = found->second;
      return proposal;
    }
    try {
      proposal.entry.resolved = resolve(kernel, proposal.entry.config, device, problem);
      const std::string key = content_hash(proposal.entry.resolved.request.identity());
      auto variant = variants.find(key);
      if (variant == variants.end()) variant = variants.emplace(key, pool.submit(proposal.entry.resolved.request)).first;
      proposal.variant = variant->second;
    } catch (const std::exception& error) {
      proposal.unresolvable = error.what();
    }
    ++new_in_queue;
    return proposal;
  };
  // Once the search has stopped (but for an interruption or a lost GPU), the
  // start candidates it put off: the default configuration, for the report.
  bool closing = false;
  const auto close_with_put_off = [&] {
    closing = true;
    queue.clear();
    new_in_queue = 0;
    for (const std::uint64_t index : search->put_off()) queue.push_back(make_proposal(index));
    if (!queue.empty())
      result.model_note = fmt::format("the model predicts the default configuration {} times slower than its favourite or more, so the "
                                      "search put it off; it is measured after the search, for the report's speed-up",
                                      kGuessedPutOffMargin);
    return !queue.empty();
  };
  const auto stop = [&](std::string why) {
    result.stopped = std::move(why);
    result.interrupted = result.stopped == "interrupted";
  };
  for (;;) {
    while (!closing && !exhausted && queue.size() < lookahead &&
           (!options.max_evaluations || result.measured + new_in_queue < *options.max_evaluations) && stop_reason().empty()) {
      const auto index = search->propose();
      if (!index) {
        exhausted = true;
        break;
      }
      queue.push_back(make_proposal(*index));
    }
    if (queue.empty()) {
      if (closing) break;
      if (!exhausted) stop(stop_reason());
      if (result.interrupted || !close_with_put_off()) break;
    }
    Proposal proposal = std::move(queue.front());
    queue.pop_front();
    TrialRecord trial;
    if (proposal.stored) {
      trial = std::move(*proposal.stored);
      ++result.resumed;
    } else {
      --new_in_queue;
      if (std::string why = closing ? std::string() : stop_reason(); !why.empty()) {
        stop(std::move(why));
        if (result.interrupted || !close_with_put_off()) break;
        continue;
      }
      PlanEntry& entry = proposal.entry;
      if (!proposal.unresolvable.empty()) {
        trial = static_trial(entry);
        trial.outcome = Outcome::launch_error;
        trial.resident_warps = 0;
        trial.message = fmt::format("the launch geometry cannot be computed: {}", proposal.unresolvable);
      } else {
        // A long compile keeps the progress moving: what the GPU waits for, and for how long.
        const auto waiting_since = Clock::now();
        while (proposal.variant.wait_for(std::chrono::seconds(1)) != std::future_status::ready) {
          progress.stage = "compiling";
          progress.config = &entry.config;
          progress.waiting_seconds = seconds_since(waiting_since);
          report();
        }
        progress.stage = "measuring";
        entry.variant = proposal.variant.get();
        if (entry.variant.ok) {
          entry.occupancy = occupancy_of(entry.resolved, entry.variant.usage, device);
          estimator.learn(entry.config, entry.variant.usage);
        }
        trial = static_trial(entry);
        trial.resident_warps = resident_warps(device, entry, parameters);
        if (entry.launchable()) {
          const double predicted = predicted_seconds(entry, problem);
          if (options.use_model)
            search->refine_score(proposal.index, predicted / static_cast<double>(trial.steps_per_launch) * transfer_factor(entry.config));
          if (predicted < kNoPrediction) trial.predicted_ms = predicted * 1000;  // stored for reports
          // The fallback for GPUs never tuned serves every step count: one step per launch.
          if (trial.steps_per_launch == 1 && (!favourite || predicted < favourite->first)) favourite.emplace(predicted, trial);
          const int launches = options.timing.warmup + options.timing.max_repeats + 1;
          const double timeout = std::max(options.timeout_floor_seconds,
                                          progress.best_ms ? options.timeout_factor * *progress.best_ms * static_cast<double>(trial.steps_per_launch) * launches / 1000 : 0.0);
          await_measurer();
          trial = measurer->measure(entry, std::move(trial), timeout);
        }
      }
      trial.l2_flushed = options.timing.flush_l2;  // also for a configuration that never ran: this run's
      store.add_trial(device_id, kernel_id, problem_id, trial);
      ++result.measured;
      if (result.first_measurement_seconds < 0) result.first_measurement_seconds = seconds_since(start);
    }
    // The search minimises the time per step: what N steps cost, but for
    // the remainder, which the winner's plan composes at the end.
    const double per_step_ms = trial.median_ms / static_cast<double>(trial.steps_per_launch);
    const bool faster = trial.outcome == Outcome::ok && (!progress.best_ms || per_step_ms < *progress.best_ms);
    if (faster) {
      progress.best_ms = per_step_ms;
      progress.best_config = trial.config;
    }
    since_improvement = faster ? 0 : since_improvement + (proposal.stored ? 0 : 1);
    search->tell(proposal.index, {trial.outcome == Outcome::ok ? std::optional(per_step_ms / 1000) : std::nullopt,
                                  trial.compile_s + trial.verify_s + trial.benchmark_s});
    result.trials.push_back(std::move(trial));
    ++progress.done;
    progress.resumed = result.resumed;
    progress.config = &proposal.entry.config;
    progress.trial = &result.trials.back();
    report();
    if (const std::string lost = measurer ? measurer->lost() : std::string(); !lost.empty()) {
      result.stopped = fmt::format("the GPU context was lost ({}); every trial so far is stored and a rerun resumes after it", lost);
      break;
    }
  }
  result.calibration = search->calibration();
  await_measurer();  // a worker still starting is waited for, then stopped
  result.worker_restarts = measurer->restarts();
  result.compile_restarts = pool.worker_restarts();
  if (favourite) store.set_arch_default(kernel.name, device.cc_major, device.cc_minor, favourite->second.config, favourite->second.shape);
  result.winner = store.update_winner(device_id, kernel_id, problem_id, kernel.default_config, problem.time_steps, options.timing.flush_l2);
  return result;
}

std::string model_summary(const TuneResult& result) {
  std::vector<double> predicted, corrected, measured;
  for (const TrialRecord& trial : result.trials)
    if (trial.outcome == Outcome::ok && trial.predicted_ms) {
      predicted.push_back(*trial.predicted_ms);
      if (result.transfer) corrected.push_back(*trial.predicted_ms * result.transfer->factor(trial.config));
      measured.push_back(trial.median_ms);
    }
  if (predicted.size() < 3) return {};
  std::string summary = fmt::format("its predictions rank the {} configurations that ran with Spearman {:.2f}", predicted.size(),
                                    spearman(predicted, measured));
  if (result.transfer) summary += fmt::format(", corrected by the other problem size {:.2f}", spearman(corrected, measured));
  if (const auto& c = result.calibration)
    summary += fmt::format("; the search weighs them {:.2f} (1: as predicted, 0: ignored), corrected per parameter value by {:+.2f} to {:+.2f}",
                           c->weight, c->lowest_correction, c->highest_correction);
  return summary;
}

Remeasured measure_many(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const std::vector<Config>& configs,
                        const VariantCompiler& compiler, const TimingOptions& timing) {
  const DeviceInfo device = query_device(ordinal);
  // In a worker process, where one is found: NVRTC crashes on some sources, and then only that configuration fails.
  CompilePool pool(compiler, {.workers = 1, .executable = find_worker_executable()});
  std::vector<PlanEntry> entries;
  for (const Config& config : configs) entries.push_back(plan_one(kernel, config, device, problem, pool));
  const PlanEntry default_entry = plan_one(kernel, Config::parse(kernel.default_config), device, problem, pool);
  const auto first_launchable = std::ranges::find_if(entries, &PlanEntry::launchable);
  const PlanEntry* reference = default_entry.launchable() ? &default_entry
                               : first_launchable != entries.end() ? &*first_launchable
                                                                   : nullptr;
  Remeasured result;
  std::optional<MeasurementSession> session;
  if (reference) session.emplace(kernel, ordinal, problem, pool.compiler(), reference);
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
