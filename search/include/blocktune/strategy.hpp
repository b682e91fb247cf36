#pragma once
// Search strategies: which configurations of a search space to measure, and
// in what order, within a budget.
//
// Every strategy measures each candidate at most once, charges failed
// configurations to the budget like any other, carries on past them, and is
// deterministic given its seed. Unless the budget stops it first, a strategy
// runs until every candidate has been measured.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blocktune/candidates.hpp"

namespace blocktune {

// The outcome of measuring one configuration.
struct Evaluation {
  std::optional<double> time;  // kernel time in seconds; empty for a failed configuration (compile error, fault, ...)
  double cost_seconds = 0;     // what measuring it took (compile + benchmark), charged to the budget
};

// Measures the candidate with this index of the space being searched.
using Evaluator = std::function<Evaluation(std::uint64_t candidate)>;

// Limits on a search; any combination, and the search stops at the first one
// reached. A measurement starts only while every limit has room left, so the
// last one may carry the time spent past `seconds`.
struct Budget {
  std::optional<std::size_t> evaluations;
  std::optional<double> seconds;   // total cost_seconds
  std::optional<double> fraction;  // of the candidates: 0.1 allows ceil(0.1 * candidates) measurements
};

struct SearchResult {
  std::vector<std::pair<std::uint64_t, Evaluation>> history;  // candidate indices, in measurement order
  std::optional<std::uint64_t> best;                          // the fastest successful candidate
};

// What a model says of the candidates before they are measured: lower is
// predicted faster. `score` is asked only for the candidates a strategy looks
// at (all of them in a small space, a sample in a large one), and must return
// a finite number.
struct ModelScores {
  std::function<double(std::uint64_t candidate)> score;
  // The scores are predicted times in seconds (surrogate takes them as its
  // prior, and judges them against what it measures); otherwise a ranking.
  bool are_times = false;
  // The times count the kernel's work (its bytes and flops). A kernel that
  // counts none is predicted from occupancy, waves and launch overhead alone:
  // many configurations tie for fastest, and the first of them says nothing.
  // surrogate then learns from the scores as from any, but does not start
  // from their favourite.
  bool count_work = true;
  // The scores are, for nearly every candidate, a time measured at another
  // problem size (transferred_scores), not the model's guess: surrogate then
  // measures its fastest prediction each time, without the exploration that
  // guards against a wrong model. Such a prior ranks a space much as its own
  // times do, and on a flat one the exploration costs the exact optimum
  // (bench/results/search-calibration/measured-prior/). Its fastest is
  // measured even before the candidates the search is started from where it
  // predicts each of them kMeasuredLeadMargin times slower or more.
  bool measured = false;
  // The warps each candidate's launch keeps resident on an SM (the blocks an
  // SM holds at once by the occupancy rules, fewer where the grid has fewer
  // per SM, times a block's warps); empty where not known. surrogate learns
  // how fast each count is: on a grid-stride kernel the fastest launches keep
  // one count of threads on every SM, a product of block size and blocks per
  // SM that no parameter names (bench/results/search-calibration/resident-warps/).
  // Asked again for a candidate whose score was refined (its compiled resources),
  // and asked of a candidate next to its score wherever the search asks both
  // (so a model that plans a candidate once for both need keep only the last).
  std::function<int(std::uint64_t candidate)> resident_warps;
};

// The most resident warps per SM any GPU has (64 since Kepler); a count above
// it is taken as this many.
inline constexpr int kMaxResidentWarps = 64;

// How much slower a measured prior must predict the start candidates (tune's
// default configuration) for its fastest to be measured before them: nearer,
// the first result is as good either way and the default the safer start
// (bench/results/search-calibration/measured-prior-leads/).
inline constexpr double kMeasuredLeadMargin = 1.2;

// How much slower the model's own guesses (a prior that counts the kernel's
// work, not measured) must predict the start candidates than its favourite
// for the surrogate to put them off: not measured by the search at all, but
// after it, by whoever drives it (Search::put_off). On a flat space the
// methodology charges a search much for one slow measurement, wherever it
// falls, and the default's teaches the regression little it needs
// (bench/results/search-calibration/guessed-prior-puts-off/).
inline constexpr double kGuessedPutOffMargin = 1.5;

// How a search has come to weigh the model's predicted times, from what it
// measured: the log predicted time enters its regression of log time with
// `weight` (1: as predicted; 0: ignored; negative: reversed), plus a
// correction per parameter value, the lowest and highest of which are given.
struct ModelCalibration {
  double weight = 1;
  double lowest_correction = 0, highest_correction = 0;
  std::size_t measurements = 0;  // it has learned from
};

// One run of a strategy over a space, driven from outside: propose, measure,
// tell. Several proposals may be outstanding at once (a tuner compiles the
// next few while the GPU measures), and their results may be told in any
// order; a proposal is never repeated. Deterministic: the same seed, space,
// scores and sequence of calls give the same proposals.
class Search {
 public:
  virtual ~Search() = default;
  // The next candidate to measure; nullopt once every candidate has been proposed.
  virtual std::optional<std::uint64_t> propose() = 0;
  // The result of a proposed candidate.
  virtual void tell(std::uint64_t candidate, const Evaluation& evaluation) = 0;
  // A better model score for a candidate, learned before its result (its
  // compiled registers and shared memory instead of an estimate).
  virtual void refine_score(std::uint64_t candidate, double score) = 0;
  // How the search weighs the model now; nullopt where it takes no predicted
  // times or does not calibrate them.
  virtual std::optional<ModelCalibration> calibration() const { return std::nullopt; }
  // The candidates it was started from that it put off and has not proposed
  // (kGuessedPutOffMargin), proposed now, for its driver to measure after
  // the search: tune measures its default configuration there for the
  // report's speed-up. Empty where it put off none.
  virtual std::vector<std::uint64_t> put_off() { return {}; }
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // `model`, where given, ranks the candidates; strategies that do not use a
  // model ignore it. `first` are proposed before anything the strategy
  // chooses, in that order, and learned from like its own proposals: tune's
  // is the kernel's default configuration, which it compiles anyway as the
  // reference for correctness, and which the report's speed-up is against
  // (repeats and candidates outside the space are skipped). The surrogate
  // may lead them with its favourite (kMeasuredLeadMargin) or put them off
  // until after the search (kGuessedPutOffMargin, Search::put_off). Throws
  // std::invalid_argument, before anything is proposed, where the strategy
  // needs a model that is not given. `space` and `model` must outlive the
  // search.
  std::unique_ptr<Search> start(const CandidateSpace& space, const ModelScores* model, std::uint64_t seed,
                                std::span<const std::uint64_t> first = {}) const;

  // One candidate at a time: propose, evaluate, tell, until the budget or the
  // space runs out. Throws std::invalid_argument for a model score that is
  // not finite.
  SearchResult run(const CandidateSpace& space, const ModelScores* model, const Evaluator& evaluate, const Budget& budget,
                   std::uint64_t seed, std::span<const std::uint64_t> first = {}) const;

 private:
  virtual std::unique_ptr<Search> make_search(const CandidateSpace& space, const ModelScores* model, std::uint64_t seed,
                                              std::vector<std::uint64_t> first) const = 0;
};

// exhaustive  every candidate in list order
// random      uniform random order (random search without replacement)
// model       the top of the model ranking, then hill-climbing from the best
//             found through neighbours (one parameter one step away) in model
//             order; back to the ranking when the best is a local optimum
// annealing   simulated annealing over the neighbour graph, restarting at a
//             random candidate when it runs out of unmeasured neighbours
// genetic     a steady-state genetic algorithm: tournament selection, uniform
//             crossover, step mutation, one new child per measurement
// bandit      a multi-armed bandit choosing, measurement by measurement, among
//             model (when scores are given), annealing and genetic, crediting
//             each with the new bests it found recently (the AUC bandit of
//             OpenTuner); genetic breeds from, and model climbs from, the
//             best configurations any of them found
// surrogate   Bayesian optimisation: a regression of log time on the
//             parameters' values and pairs of values, learned from the
//             measurements, proposes the candidate with the lowest confidence
//             bound; mixed with moves to neighbours of the best and random
//             candidates; starts from predicted times where the model
//             scores are times (its prior; the model's favourite first of
//             its own proposals where the scores count work)
std::vector<std::string> strategy_names();
std::unique_ptr<Strategy> make_strategy(std::string_view name);  // throws std::invalid_argument listing the names

// The best of these on the spaces recorded under tests/data/spaces: within 97%
// of the optimum's speed within a tenth of the evaluations in 99 to 100% of
// the replayed runs, and the best methodology score on each space
// (bench/results/replay/).
inline constexpr std::string_view kDefaultStrategy = "surrogate";

}  // namespace blocktune
