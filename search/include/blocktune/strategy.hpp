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
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blocktune/space.hpp"

namespace blocktune {

// The outcome of measuring one configuration.
struct Evaluation {
  std::optional<double> time;  // kernel time in seconds; empty for a failed configuration (compile error, fault, ...)
  double cost_seconds = 0;     // what measuring it took (compile + benchmark), charged to the budget
};

using Evaluator = std::function<Evaluation(const Config&)>;

// Limits on a search; any combination, and the search stops at the first one
// reached. A measurement starts only while every limit has room left, so the
// last one may carry the time spent past `seconds`.
struct Budget {
  std::optional<std::size_t> evaluations;
  std::optional<double> seconds;   // total cost_seconds
  std::optional<double> fraction;  // of the candidates: 0.1 allows ceil(0.1 * candidates) measurements
};

struct SearchResult {
  std::vector<std::pair<std::size_t, Evaluation>> history;  // candidate indices, in measurement order
  std::optional<std::size_t> best;                          // the fastest successful candidate
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // `model_score`, where given, ranks the candidates (one score each, lower =
  // predicted faster; positive scores are taken as predicted times, which
  // surrogate uses as its prior); strategies that do not use a model ignore it.
  // Throws std::invalid_argument, before measuring anything, for model scores
  // of the wrong size or not finite, where the strategy needs a model that is
  // not given, and where it moves through neighbours but the candidates do
  // not all name the same parameters in the same order.
  virtual SearchResult run(const std::vector<Config>& candidates, const std::vector<double>* model_score,
                           const Evaluator& evaluate, const Budget& budget, std::uint64_t seed) const = 0;
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
//             scores are times (its prior; the model's favourite first)
std::vector<std::string> strategy_names();
std::unique_ptr<Strategy> make_strategy(std::string_view name);  // throws std::invalid_argument listing the names

// The best of these on the spaces recorded under tests/data/spaces: within 97%
// of the optimum's speed within a tenth of the evaluations in 99 to 100% of
// the replayed runs, and the best methodology score on each space
// (bench/results/replay/).
inline constexpr std::string_view kDefaultStrategy = "surrogate";

}  // namespace blocktune
