#pragma once
// The machinery the strategies share (not installed; strategy.cpp only).

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "blocktune/strategy.hpp"

namespace blocktune::detail {

// Random numbers that are the same on every standard library: only the
// engine's raw output is used, never std::*_distribution.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  std::size_t below(std::size_t n);  // uniform in [0, n); n > 0
  double uniform();                  // uniform in [0, 1)

 private:
  std::mt19937_64 engine_;
};

// The candidates as points of a grid: coordinate p of a candidate is the rank
// of its value among the distinct values of parameter p (integers ascending,
// then strings in lexicographic order), so that neighbours are one step apart.
class Geometry {
 public:
  explicit Geometry(const std::vector<Config>& candidates);

  std::size_t dimensions() const { return extents_.size(); }
  std::uint32_t extent(std::size_t parameter) const { return extents_[parameter]; }
  std::span<const std::uint32_t> coordinates(std::size_t candidate) const;
  std::optional<std::size_t> find(std::span<const std::uint32_t> coordinates) const;
  // Candidates that differ from `candidate` in one parameter by one step.
  std::vector<std::size_t> neighbours(std::size_t candidate) const;

 private:
  std::vector<std::uint32_t> extents_;
  std::vector<std::uint32_t> coordinates_;  // dimensions() per candidate
  std::vector<std::size_t> sorted_;         // candidates in lexicographic order of coordinates
};

// The measurements of one search: what has been measured, the budget left and
// the best so far.
class SearchState {
 public:
  SearchState(const std::vector<Config>& candidates, const Evaluator& evaluate, const Budget& budget);

  std::size_t size() const { return times_.size(); }
  bool done() const;
  // Fraction of the budget spent, in [0, 1]; with no budget, of the candidates measured.
  double progress() const;

  void measure(std::size_t candidate);  // requires !done() and !measured(candidate)
  bool measured(std::size_t candidate) const { return slot_[candidate] == kMeasured; }
  const std::optional<double>& time(std::size_t candidate) const { return times_[candidate]; }
  std::optional<std::size_t> best() const { return best_; }
  bool faster(std::size_t a, std::size_t b) const;  // measured a beat measured b (failures are slowest)

  std::size_t random_unmeasured(Random& random) const;  // requires !done()
  SearchResult take_result() { return {std::move(history_), best_}; }

 private:
  static constexpr std::size_t kMeasured = static_cast<std::size_t>(-1);

  const std::vector<Config>& candidates_;
  const Evaluator& evaluate_;
  std::optional<std::size_t> max_evaluations_;
  std::optional<double> max_seconds_;
  double spent_seconds_ = 0;
  std::vector<std::optional<double>> times_;
  std::vector<std::size_t> unmeasured_;  // in no particular order, for O(1) random choice and removal
  std::vector<std::size_t> slot_;        // by candidate: its position in unmeasured_, or kMeasured
  std::vector<std::pair<std::size_t, Evaluation>> history_;
  std::optional<std::size_t> best_;
};

// One way of choosing the next candidate. Techniques run alone or side by
// side under the bandit, so each one is told of every measurement.
class Technique {
 public:
  virtual ~Technique() = default;
  // An unmeasured candidate, or nothing when the technique has no idea.
  virtual std::optional<std::size_t> propose() = 0;
  virtual void observe(std::size_t /*candidate*/) {}
};

}  // namespace blocktune::detail
