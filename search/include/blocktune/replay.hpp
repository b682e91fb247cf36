#pragma once
// Replaying strategies on completely measured search spaces, and comparing
// them with the methodology of Willemsen, van Werkhoven and van Nieuwpoort,
// "A methodology for comparing optimization algorithms for auto-tuning"
// (FGCS 2024): best-so-far curves over simulated tuning time, standardised
// against the expected curve of random search.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blocktune/strategy.hpp"

namespace blocktune {

// A search space measured completely; the three vectors are parallel.
struct RecordedSpace {
  std::vector<Config> configs;
  std::vector<std::optional<double>> time;  // kernel time in seconds; empty = failed
  std::vector<double> cost_seconds;         // what measuring it took (compile + benchmark)
  // Candidates every replayed strategy measures first, as tune would (its
  // kernel's default configuration, where the recording names one).
  std::vector<std::uint64_t> first;
  // The part of cost_seconds[0] that was the recording run's one-time start-up
  // (its first launch, the reference output), where known: every search pays
  // it once, whatever it measures first, so replays charge it to none.
  double start_up_seconds = 0;
};

// Model scores listed per candidate, candidate i's at scores[i]. Asking for
// one past the end throws std::invalid_argument naming both counts.
ModelScores listed_model_scores(std::vector<double> scores, bool are_times, bool count_work = true);

// Runs `strategy` on the recording (candidate i is configs[i]): each
// measurement returns the recorded result and costs its recorded cost on the
// simulated clock. Throws std::invalid_argument where the vectors of `space`
// differ in length or its configurations do not name the same parameters.
SearchResult replay(const RecordedSpace& space, const Strategy& strategy, const Budget& budget, std::uint64_t seed,
                    const ModelScores* model = nullptr);

// A search made elsewhere (another tuner), given as the candidates it
// measured, in order: each is answered with its recorded result and charged
// its recorded cost the first time; a repeat is answered from a cache, costs
// nothing and is left out of the history. Score it like a replay:
// methodology_score(BestSoFar(replay_sequence(space, order)), ...). Throws
// std::invalid_argument for a candidate outside the space.
SearchResult replay_sequence(const RecordedSpace& space, std::span<const std::uint64_t> candidates);

// The best time a search has found, as a step function of simulated time: a
// measurement counts once its cost has been paid.
class BestSoFar {
 public:
  explicit BestSoFar(const SearchResult& result);
  std::optional<double> at(double seconds) const;  // empty while nothing has succeeded

 private:
  std::vector<double> found_at_;  // simulated time of each improvement
  std::vector<double> best_;      // the best time from then on
};

// The expected best-so-far of uniform random search without replacement over
// the recorded space, computed exactly rather than simulated. Failed
// configurations are drawn like any other but find nothing; draws that find
// nothing count as finding the slowest successful time, the value the
// methodology's curves start from.
class RandomBaseline {
 public:
  // Throws std::invalid_argument where nothing in the space succeeded.
  explicit RandomBaseline(const RecordedSpace& space);

  // E[best of `draws` distinct configurations drawn uniformly].
  double expected_best(std::size_t draws) const;
  // Random search affords floor(seconds / mean_cost()) draws by then (all of
  // them if measuring costs nothing).
  std::size_t draws_by(double seconds) const;
  double at(double seconds) const { return expected_best(draws_by(seconds)); }

  double optimum() const { return sorted_times_.front(); }
  double slowest() const { return sorted_times_.back(); }
  double mean_cost() const { return mean_cost_; }

  // The methodology's time budget: when random search is expected to have
  // come `cutoff` of the way from the median time to the optimum.
  double budget_seconds(double cutoff = 0.95) const;

 private:
  std::size_t space_size_;
  std::vector<double> sorted_times_;  // successful times, fastest first
  double mean_cost_;
};

// P(t) = (f_random(t) - f_search(t)) / (f_random(t) - f_opt): 0 is as good as
// random search, 1 is the optimum, negative is worse than random. A search
// that has found nothing yet stands at the slowest successful time. Where
// random search is certain to have found the optimum, P is 1 for a search
// that has found it too and 0 otherwise.
double performance_at(const BestSoFar& search, const RandomBaseline& random, double seconds);

// The mean of P(t) over `samples` times evenly spaced in (0, budget_seconds].
double methodology_score(const BestSoFar& search, const RandomBaseline& random, double budget_seconds,
                         std::size_t samples = 100);

// A search is near-optimal when time_opt / best_found >= kNearOptimalSpeed
// using at most kEvaluationFraction of the space's evaluations.
inline constexpr double kNearOptimalSpeed = 0.97;
inline constexpr double kEvaluationFraction = 0.10;

struct ReplaySummary {
  std::string strategy;
  std::size_t runs = 0;              // one per seed
  double mean_score = 0;             // methodology_score at the baseline's budget_seconds(), mean over seeds
  // The standard error of mean_score: the seeds' sample standard deviation
  // over sqrt(runs); 0 with one seed. Two strategies (or a strategy with and
  // without a model) differ by more than their seeds only where their means
  // differ by a few of these.
  double score_standard_error = 0;
  double near_optimal_fraction = 0;  // of the seeds whose search was near-optimal
  // Mean over seeds of the evaluations an unlimited search made up to and
  // including its first near-optimal one.
  double mean_evaluations_to_near_optimal = 0;
};

// Called after every replayed measurement with the seeds done so far.
using ReplayProgress = std::function<void(std::size_t seeds_done)>;

// Replays `strategy` once per seed with the methodology's time budget (for
// the score), once with `evaluation_fraction` of the evaluations (for
// near-optimality) and once without a budget (for the evaluations it needs).
ReplaySummary summarize(const RecordedSpace& space, const Strategy& strategy, std::span<const std::uint64_t> seeds,
                        const ModelScores* model = nullptr, double evaluation_fraction = kEvaluationFraction,
                        const ReplayProgress& progress = {});

}  // namespace blocktune
