#include "blocktune/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <stdexcept>

namespace blocktune {

namespace {

void check_parallel(const RecordedSpace& space) {
  if (space.time.size() != space.configs.size() || space.cost_seconds.size() != space.configs.size())
    throw std::invalid_argument(fmt::format("recorded space has {} configurations, {} times and {} costs",
                                            space.configs.size(), space.time.size(), space.cost_seconds.size()));
}

// What measuring candidate i costs a replayed search: its recorded cost, less
// the recording run's start-up where i was the run's first measurement.
double cost_of(const RecordedSpace& space, std::uint64_t i) {
  return i == 0 ? std::max(0.0, space.cost_seconds[0] - space.start_up_seconds) : space.cost_seconds[i];
}

// Thrown by the evaluator of an unlimited replay to end it at its first
// near-optimal measurement: what comes after it does not matter.
struct NearOptimalReached {};

// The recorded result of candidate i, reported to `progress` where given.
Evaluator recorded(const RecordedSpace& space, const std::function<void()>& progress = {}) {
  return [&space, progress](std::uint64_t i) {
    if (progress) progress();
    return Evaluation{space.time[i], cost_of(space, i)};
  };
}

// How many evaluations `strategy` makes up to and including its first near-optimal one.
std::size_t evaluations_to_near_optimal(const RecordedSpace& space, const ListedCandidates& candidates,
                                        const Strategy& strategy, std::uint64_t seed, const ModelScores* model,
                                        double optimum, const std::function<void()>& progress) {
  std::size_t evaluations = 0;
  const Evaluator evaluate = recorded(space, progress);
  const Evaluator until_near_optimal = [&](std::uint64_t i) {
    ++evaluations;
    if (space.time[i] && optimum / *space.time[i] >= kNearOptimalSpeed) throw NearOptimalReached{};
    return evaluate(i);
  };
  try {
    strategy.run(candidates, model, until_near_optimal, Budget{}, seed, space.first);
  } catch (const NearOptimalReached&) {
  }
  return evaluations;
}

}  // namespace

ModelScores listed_model_scores(std::vector<double> scores, bool are_times, bool count_work) {
  return {[scores = std::move(scores)](std::uint64_t candidate) {
            if (candidate >= scores.size())
              throw std::invalid_argument(
                  fmt::format("no model score for candidate {}: {} model scores given", candidate, scores.size()));
            return scores[candidate];
          },
          are_times, count_work};
}

SearchResult replay(const RecordedSpace& space, const Strategy& strategy, const Budget& budget, std::uint64_t seed,
                    const ModelScores* model) {
  check_parallel(space);
  return strategy.run(ListedCandidates(space.configs), model, recorded(space), budget, seed, space.first);
}

SearchResult replay_sequence(const RecordedSpace& space, std::span<const std::uint64_t> candidates) {
  check_parallel(space);
  SearchResult result;
  std::vector<bool> measured(space.configs.size(), false);
  for (std::size_t position = 0; position < candidates.size(); ++position) {
    const std::uint64_t candidate = candidates[position];
    if (candidate >= space.configs.size())
      throw std::invalid_argument(fmt::format("candidate {} (position {}) is outside the recorded space of {}",
                                              candidate, position + 1, space.configs.size()));
    if (measured[candidate]) continue;
    measured[candidate] = true;
    result.history.emplace_back(candidate, Evaluation{space.time[candidate], cost_of(space, candidate)});
    if (space.time[candidate] && (!result.best || *space.time[candidate] < *space.time[*result.best]))
      result.best = candidate;
  }
  return result;
}

BestSoFar::BestSoFar(const SearchResult& result) {
  double clock = 0;
  for (const auto& [candidate, evaluation] : result.history) {
    clock += evaluation.cost_seconds;
    if (evaluation.time && (best_.empty() || *evaluation.time < best_.back())) {
      found_at_.push_back(clock);
      best_.push_back(*evaluation.time);
    }
  }
}

std::optional<double> BestSoFar::at(double seconds) const {
  const auto later = std::upper_bound(found_at_.begin(), found_at_.end(), seconds);
  if (later == found_at_.begin()) return std::nullopt;
  return best_[static_cast<std::size_t>(later - found_at_.begin()) - 1];
}

RandomBaseline::RandomBaseline(const RecordedSpace& space) : space_size_(space.configs.size()) {
  check_parallel(space);
  for (const auto& time : space.time)
    if (time) sorted_times_.push_back(*time);
  if (sorted_times_.empty()) throw std::invalid_argument("no configuration of the recorded space succeeded");
  std::sort(sorted_times_.begin(), sorted_times_.end());
  double costs = 0;
  for (std::uint64_t i = 0; i < space_size_; ++i) costs += cost_of(space, i);
  mean_cost_ = costs / static_cast<double>(space_size_);
}

double RandomBaseline::expected_best(std::size_t draws) const {
  // With N configurations, the i-th fastest success is the best of k draws
  // when it is drawn and none of the i-1 faster ones is:
  //   P_i = C(N-i, k-1) / C(N, k),  P_1 = k/N,  P_{i+1} = P_i (N-i-k+1) / (N-i).
  // Whatever probability is left over is that of drawing only failures.
  const std::size_t n = space_size_;
  const std::size_t k = std::min(draws, n);
  if (k == 0) return slowest();
  double probability = static_cast<double>(k) / static_cast<double>(n);
  double expected = 0, covered = 0;
  for (std::size_t i = 1; i <= sorted_times_.size() && probability > 0; ++i) {
    expected += probability * sorted_times_[i - 1];
    covered += probability;
    probability = n - i >= k ? probability * static_cast<double>(n - i - k + 1) / static_cast<double>(n - i) : 0;
  }
  return expected + std::max(0.0, 1 - covered) * slowest();
}

std::size_t RandomBaseline::draws_by(double seconds) const {
  if (mean_cost_ <= 0) return space_size_;
  const double draws = std::floor(std::max(seconds, 0.0) / mean_cost_);
  return draws >= static_cast<double>(space_size_) ? space_size_ : static_cast<std::size_t>(draws);
}

double RandomBaseline::budget_seconds(double cutoff) const {
  const std::size_t count = sorted_times_.size();
  const double median = count % 2 == 1 ? sorted_times_[count / 2]
                                       : (sorted_times_[count / 2 - 1] + sorted_times_[count / 2]) / 2;
  const double target = optimum() + (median - optimum()) * (1 - cutoff);
  // expected_best() falls with the number of draws: find the first that reaches the target.
  std::size_t low = 1, high = space_size_;
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (expected_best(middle) <= target) high = middle;
    else low = middle + 1;
  }
  return static_cast<double>(low) * mean_cost_;
}

double performance_at(const BestSoFar& search, const RandomBaseline& random, double seconds) {
  const double found = search.at(seconds).value_or(random.slowest());
  const double expected = random.at(seconds);
  if (expected <= random.optimum()) return found <= random.optimum() ? 1.0 : 0.0;
  return (expected - found) / (expected - random.optimum());
}

double methodology_score(const BestSoFar& search, const RandomBaseline& random, double budget_seconds,
                         std::size_t samples) {
  if (samples == 0) throw std::invalid_argument("the methodology score needs at least one sample time");
  double total = 0;
  for (std::size_t j = 1; j <= samples; ++j)
    total += performance_at(search, random, budget_seconds * static_cast<double>(j) / static_cast<double>(samples));
  return total / static_cast<double>(samples);
}

ReplaySummary summarize(const RecordedSpace& space, const Strategy& strategy, std::span<const std::uint64_t> seeds,
                        const ModelScores* model, double evaluation_fraction, const ReplayProgress& progress) {
  const RandomBaseline random(space);
  const double budget = random.budget_seconds();
  ReplaySummary summary{strategy.name(), seeds.size()};
  if (seeds.empty()) return summary;
  const ListedCandidates candidates(space.configs);

  std::size_t near_optimal_runs = 0, seeds_done = 0;
  double total_score = 0, total_squared_score = 0, total_evaluations = 0;
  const std::function<void()> measured = [&] {
    if (progress) progress(seeds_done);
  };
  const Evaluator evaluate = recorded(space, measured);
  for (const std::uint64_t seed : seeds) {
    const SearchResult timed = strategy.run(candidates, model, evaluate, Budget{.seconds = budget}, seed, space.first);
    const double score = methodology_score(BestSoFar(timed), random, budget);
    total_score += score;
    total_squared_score += score * score;

    const SearchResult short_run =
        strategy.run(candidates, model, evaluate, Budget{.fraction = evaluation_fraction}, seed, space.first);
    if (short_run.best && random.optimum() / *space.time[*short_run.best] >= kNearOptimalSpeed) ++near_optimal_runs;

    total_evaluations += static_cast<double>(
        evaluations_to_near_optimal(space, candidates, strategy, seed, model, random.optimum(), measured));
    ++seeds_done;
  }
  const auto runs = static_cast<double>(seeds.size());
  summary.mean_score = total_score / runs;
  if (runs > 1) {
    const double variance = (total_squared_score - runs * summary.mean_score * summary.mean_score) / (runs - 1);
    summary.score_standard_error = std::sqrt(std::max(variance, 0.0) / runs);
  }
  summary.near_optimal_fraction = static_cast<double>(near_optimal_runs) / runs;
  summary.mean_evaluations_to_near_optimal = total_evaluations / runs;
  return summary;
}

}  // namespace blocktune
