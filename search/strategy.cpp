#include "blocktune/strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "search_state.hpp"

namespace blocktune {

namespace {

using detail::Geometry;
using detail::Random;
using detail::SearchState;
using detail::Technique;

// Everything one run of a strategy works with.
class Run {
 public:
  Run(const std::vector<Config>& candidates, const std::vector<double>* scores, const Evaluator& evaluate,
      const Budget& budget, std::uint64_t seed)
      : model_score(scores), state(candidates, evaluate, budget), random(seed), candidates_(candidates) {}

  const std::vector<double>* const model_score;
  SearchState state;
  Random random;

  // Built on first use: exhaustive and random search do without it.
  const Geometry& geometry() {
    if (!geometry_) geometry_.emplace(candidates_);
    return *geometry_;
  }

  std::vector<std::size_t> unmeasured_neighbours(std::size_t candidate) {
    std::vector<std::size_t> neighbours = geometry().neighbours(candidate);
    std::erase_if(neighbours, [&](std::size_t n) { return state.measured(n); });
    return neighbours;
  }

 private:
  const std::vector<Config>& candidates_;
  std::optional<Geometry> geometry_;
};

class InOrder final : public Technique {
 public:
  explicit InOrder(Run& run) : run_(run) {}

  std::optional<std::size_t> propose() override {
    while (next_ < run_.state.size() && run_.state.measured(next_)) ++next_;
    if (next_ == run_.state.size()) return std::nullopt;
    return next_;
  }

 private:
  Run& run_;
  std::size_t next_ = 0;
};

class UniformRandom final : public Technique {
 public:
  explicit UniformRandom(Run& run) : run_(run) {}
  std::optional<std::size_t> propose() override { return run_.state.random_unmeasured(run_.random); }

 private:
  Run& run_;
};

// Measures the model's favourites in batches; after each batch, climbs from
// the best found through its neighbours, the model's favourite first, until
// the best is a local optimum.
class ModelGuided final : public Technique {
 public:
  explicit ModelGuided(Run& run)
      : run_(run), score_(*run.model_score), ranking_(score_.size()),
        batch_(std::clamp<std::size_t>(score_.size() / 100, 5, 50)) {
    std::iota(ranking_.begin(), ranking_.end(), std::size_t{0});
    std::stable_sort(ranking_.begin(), ranking_.end(), [&](std::size_t a, std::size_t b) { return score_[a] < score_[b]; });
  }

  std::optional<std::size_t> propose() override {
    if (taken_from_batch_ == batch_) {
      if (const auto neighbour = favourite_neighbour_of_best()) return neighbour;
      taken_from_batch_ = 0;
    }
    while (next_ < ranking_.size() && run_.state.measured(ranking_[next_])) ++next_;
    if (next_ == ranking_.size()) return std::nullopt;
    ++taken_from_batch_;
    return ranking_[next_];
  }

 private:
  std::optional<std::size_t> favourite_neighbour_of_best() {
    const auto best = run_.state.best();
    if (!best) return std::nullopt;
    const auto neighbours = run_.unmeasured_neighbours(*best);
    if (neighbours.empty()) return std::nullopt;
    return *std::min_element(neighbours.begin(), neighbours.end(), [&](std::size_t a, std::size_t b) {
      return score_[a] < score_[b] || (score_[a] == score_[b] && a < b);
    });
  }

  Run& run_;
  const std::vector<double>& score_;
  std::vector<std::size_t> ranking_;
  std::size_t batch_;
  std::size_t taken_from_batch_ = 0;
  std::size_t next_ = 0;
};

// Simulated annealing: a random unmeasured neighbour of the current point is
// measured and moved to if faster, or if slower with probability
// exp(-relative slowdown / temperature); the temperature falls geometrically
// as the budget is spent.
class Annealing final : public Technique {
 public:
  explicit Annealing(Run& run) : run_(run) {}

  std::optional<std::size_t> propose() override {
    if (current_) {
      const auto neighbours = run_.unmeasured_neighbours(*current_);
      if (!neighbours.empty()) {
        proposed_ = neighbours[run_.random.below(neighbours.size())];
        restart_ = false;
        return proposed_;
      }
    }
    proposed_ = run_.state.random_unmeasured(run_.random);
    restart_ = true;
    return proposed_;
  }

  void observe(std::size_t candidate) override {
    if (candidate != proposed_) return;
    proposed_.reset();
    if (restart_ || accept(candidate)) current_ = candidate;
  }

 private:
  static constexpr double kStartTemperature = 1.0;  // a point twice as slow is taken with probability 1/e
  static constexpr double kEndTemperature = 0.01;

  bool accept(std::size_t candidate) {
    const auto& time = run_.state.time(candidate);
    const auto& current_time = run_.state.time(*current_);
    if (!time) return false;
    if (!current_time || *time <= *current_time) return true;
    const double temperature = kStartTemperature * std::pow(kEndTemperature / kStartTemperature, run_.state.progress());
    const double slowdown = (*time - *current_time) / *current_time;
    return run_.random.uniform() < std::exp(-slowdown / temperature);
  }

  Run& run_;
  std::optional<std::size_t> current_;
  std::optional<std::size_t> proposed_;
  bool restart_ = false;
};

// A steady-state genetic algorithm. The population is the fastest
// configurations measured so far (by any technique); each proposal is a child
// of two tournament winners by uniform crossover and step mutation.
class Genetic final : public Technique {
 public:
  explicit Genetic(Run& run) : run_(run) {}

  std::optional<std::size_t> propose() override {
    if (population_.size() < kPopulation) return run_.state.random_unmeasured(run_.random);
    const Geometry& geometry = run_.geometry();
    std::vector<std::uint32_t> child(geometry.dimensions());
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      const auto mother = geometry.coordinates(tournament());
      const auto father = geometry.coordinates(tournament());
      for (std::size_t p = 0; p < child.size(); ++p) {
        child[p] = run_.random.below(2) == 0 ? mother[p] : father[p];
        if (run_.random.below(child.size()) == 0) child[p] = step(child[p], geometry.extent(p));
      }
      if (const auto found = geometry.find(child); found && !run_.state.measured(*found)) return found;
    }
    return std::nullopt;
  }

  void observe(std::size_t candidate) override {
    if (!run_.state.time(candidate)) return;
    if (population_.size() < kPopulation) {
      population_.push_back(candidate);
      return;
    }
    const auto slowest = std::max_element(population_.begin(), population_.end(),
                                          [&](std::size_t a, std::size_t b) { return run_.state.faster(a, b); });
    if (run_.state.faster(candidate, *slowest)) *slowest = candidate;
  }

 private:
  static constexpr std::size_t kPopulation = 20;
  static constexpr int kAttempts = 16;  // children tried before giving up (all measured or invalid)

  std::size_t tournament() {
    const std::size_t a = population_[run_.random.below(population_.size())];
    const std::size_t b = population_[run_.random.below(population_.size())];
    return run_.state.faster(b, a) ? b : a;
  }

  std::uint32_t step(std::uint32_t coordinate, std::uint32_t extent) {
    if (extent == 1) return coordinate;
    if (coordinate == 0) return 1;
    if (coordinate + 1 == extent) return coordinate - 1;
    return run_.random.below(2) == 0 ? coordinate - 1 : coordinate + 1;
  }

  Run& run_;
  std::vector<std::size_t> population_;
};

// Bayesian optimisation with a cheap surrogate: ridge regression of log time
// on each parameter's value and each pair of values (one-hot), which learns
// which values and combinations are fast, updated after every measurement
// (recursive least squares).
//
// Given predicted times as model scores (the execution-time model's), it
// starts from them: the regression learns the measurements' difference from
// the model, and the model's favourite is measured first. It then measures a
// few candidates that cover the values measured least; then proposes the
// candidate with the lowest confidence bound (predicted time minus one
// standard deviation) among those predicted fastest, so that values
// it knows little about get their chance; now and then the predicted-fastest
// neighbour of the best measured (to settle the details there), and now and
// then a random candidate (a model only learns where it looks).
//
// Ranks that are not times (the occupancy ranking of older recordings) are not
// used: on the recorded H100 stencil spaces it runs against speed, and even as
// a learned feature it made the search worse (bench/results/replay/README.md).
class Surrogate final : public Technique {
 public:
  explicit Surrogate(Run& run) : run_(run) {
    const Geometry& geometry = run.geometry();
    const std::size_t dimensions = geometry.dimensions();

    // Feature 0 is the intercept; then one per value of each parameter; then,
    // where that stays affordable, one per pair of values.
    std::size_t features = 1;
    value_offset_.resize(dimensions);
    for (std::size_t p = 0; p < dimensions; ++p) {
      value_offset_[p] = features;
      features += geometry.extent(p);
    }
    const std::size_t value_features = features;
    std::vector<std::size_t> pair_offset;
    for (std::size_t p = 0; p < dimensions; ++p) {
      for (std::size_t q = p + 1; q < dimensions; ++q) {
        pair_offset.push_back(features);
        features += std::size_t{geometry.extent(p)} * geometry.extent(q);
      }
    }
    if (features > kMaxFeatures) {
      features = value_features;
      pair_offset.clear();
    }

    features_per_candidate_ = 1 + dimensions + pair_offset.size();
    features_.reserve(run.state.size() * features_per_candidate_);
    for (std::size_t candidate = 0; candidate < run.state.size(); ++candidate) {
      const auto point = geometry.coordinates(candidate);
      features_.push_back(0);
      for (std::size_t p = 0; p < dimensions; ++p)
        features_.push_back(static_cast<std::uint32_t>(value_offset_[p] + point[p]));
      if (pair_offset.empty()) continue;
      for (std::size_t p = 0, pair = 0; p < dimensions; ++p)
        for (std::size_t q = p + 1; q < dimensions; ++q, ++pair)
          features_.push_back(
              static_cast<std::uint32_t>(pair_offset[pair] + std::size_t{point[p]} * geometry.extent(q) + point[q]));
    }

    // The prior: weights near zero, pairs more so than single values; the intercept is free.
    feature_count_ = features;
    inverse_.assign(features * features, 0.0);
    for (std::size_t f = 0; f < features; ++f) {
      const double precision = f == 0 ? kInterceptPrecision : f < value_features ? kValuePrecision : kPairPrecision;
      inverse_[f * features + f] = 1 / precision;
    }
    prediction_.assign(run.state.size(), 0.0);
    // Model scores that are predicted times are the prior: the regression
    // learns how the measurements differ from the model, in log time.
    // Scores that are only ranks (occupancy, where 0 ranks first) say nothing
    // of how much faster, and are left out.
    if (run.model_score && std::ranges::all_of(*run.model_score, [](double score) { return score > 0; })) {
      double mean = 0;
      for (const double score : *run.model_score) mean += std::log(score);
      mean /= static_cast<double>(run.model_score->size());
      for (std::size_t candidate = 0; candidate < prediction_.size(); ++candidate)
        prediction_[candidate] = std::log((*run.model_score)[candidate]) - mean;
      has_prior_ = true;
    }
    variance_.resize(run.state.size());
    for (std::size_t candidate = 0; candidate < run.state.size(); ++candidate) {
      variance_[candidate] = 0;
      for (const std::uint32_t f : features_of(candidate)) variance_[candidate] += inverse_[f * features + f];
    }
    value_measurements_.assign(value_features, 0);
  }

  std::optional<std::size_t> propose() override {
    if (learned_ == 0 && has_prior_) return lowest_confidence_bound();  // the model's favourite
    if (learned_ < kStart) return least_measured_values();
    if (run_.random.uniform() < kExplore) return run_.state.random_unmeasured(run_.random);
    if (run_.random.uniform() < kLocal && run_.state.best()) {
      const auto neighbours = run_.unmeasured_neighbours(*run_.state.best());
      if (!neighbours.empty())
        return *std::min_element(neighbours.begin(), neighbours.end(), [&](std::size_t a, std::size_t b) {
          return std::pair(prediction_[a], a) < std::pair(prediction_[b], b);
        });
    }
    return lowest_confidence_bound();
  }

  void observe(std::size_t candidate) override {
    // A failure is learned as the slowest time measured, once there is one.
    if (const auto& time = run_.state.time(candidate)) {
      slowest_ = std::max(slowest_, std::log(*time));
      learn(candidate, std::log(*time));
      for (const std::size_t failed : std::exchange(failures_to_learn_, {})) learn(failed, slowest_);
    } else if (learned_ == 0) {
      failures_to_learn_.push_back(candidate);
    } else {
      learn(candidate, slowest_);
    }
  }

 private:
  static constexpr std::size_t kMaxFeatures = 1000;  // each measurement costs features^2
  static constexpr double kInterceptPrecision = 1e-6;
  static constexpr double kValuePrecision = 1.0;  // in log time: a value may well make a kernel e times slower
  static constexpr double kPairPrecision = 3.0;   // pairs matter less, and there are many
  static constexpr std::size_t kStart = 5;        // measurements covering the values before the model leads
  static constexpr double kExplore = 0.2;         // chance of a random candidate
  static constexpr double kLocal = 0.4;           // chance of a neighbour of the best
  static constexpr std::size_t kShortlist = 64;   // predicted fastest, of which the lowest bound is taken
  // ... but at most this fraction of the space: on a space of a few hundred,
  // 64 candidates would be half of it and the bound would only explore.
  static constexpr double kShortlistFraction = 0.05;
  static constexpr double kConfidence = 1.0;      // standard deviations below the prediction

  // sum of values[f] over the features; four partial sums, because this is
  // the search's innermost loop and one would wait on every addition.
  static double sum_of(const std::vector<double>& values, std::span<const std::uint32_t> features) {
    double sums[4] = {0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 4 <= features.size(); i += 4)
      for (std::size_t lane = 0; lane < 4; ++lane) sums[lane] += values[features[i + lane]];
    for (; i < features.size(); ++i) sums[0] += values[features[i]];
    return (sums[0] + sums[1]) + (sums[2] + sums[3]);
  }

  std::span<const std::uint32_t> features_of(std::size_t candidate) const {
    return std::span(features_).subspan(candidate * features_per_candidate_, features_per_candidate_);
  }

  // The unmeasured candidate whose values have been measured least, at random among equals.
  std::size_t least_measured_values() {
    double best_rarity = -1;
    std::size_t chosen = 0, ties = 0;
    for (std::size_t candidate = 0; candidate < run_.state.size(); ++candidate) {
      if (run_.state.measured(candidate)) continue;
      double rarity = 0;
      for (std::size_t p = 0; p < value_offset_.size(); ++p)
        rarity += 1.0 / (1.0 + static_cast<double>(value_measurements_[features_of(candidate)[1 + p]]));
      if (rarity > best_rarity + 1e-9) {
        best_rarity = rarity;
        chosen = candidate;
        ties = 1;
      } else if (rarity > best_rarity - 1e-9 && run_.random.below(++ties) == 0) {
        chosen = candidate;  // reservoir sampling: each of the equals with the same chance
      }
    }
    return chosen;
  }

  // Of the shortlist of candidates predicted fastest, the one whose prediction
  // minus kConfidence standard deviations is lowest.
  std::optional<std::size_t> lowest_confidence_bound() {
    shortlist_.clear();
    for (std::size_t candidate = 0; candidate < run_.state.size(); ++candidate)
      if (!run_.state.measured(candidate)) shortlist_.emplace_back(prediction_[candidate], candidate);
    if (shortlist_.empty()) return std::nullopt;
    const auto fraction = static_cast<std::size_t>(kShortlistFraction * static_cast<double>(run_.state.size()));
    const std::size_t size = std::min({kShortlist, std::max<std::size_t>(fraction, 1), shortlist_.size()});
    std::nth_element(shortlist_.begin(), shortlist_.begin() + static_cast<std::ptrdiff_t>(size - 1), shortlist_.end());
    shortlist_.resize(size);

    // The residual spread of the measurements so far stands in for the noise.
    const double noise = learned_ > 0 ? std::sqrt(squared_errors_ / static_cast<double>(learned_)) : 0.0;
    std::optional<std::pair<double, std::size_t>> lowest;
    for (const auto& [prediction, candidate] : shortlist_) {
      const std::pair bound(prediction - kConfidence * noise * std::sqrt(std::max(variance_[candidate], 0.0)),
                            candidate);
      if (!lowest || bound < *lowest) lowest = bound;
    }
    return lowest->second;
  }

  // Sherman-Morrison: the inverse of (X'X + prior) after one more row x, and
  // with it every candidate's prediction and variance x' inverse x.
  void learn(std::size_t candidate, double target) {
    const std::size_t n = feature_count_;
    const auto x = features_of(candidate);
    std::vector<double> u(n, 0.0);  // inverse * x; the inverse is symmetric, so rows serve as columns
    for (const std::uint32_t f : x)
      for (std::size_t i = 0; i < n; ++i) u[i] += inverse_[f * n + i];
    double denominator = 1;
    for (const std::uint32_t f : x) denominator += u[f];
    for (std::size_t i = 0; i < n; ++i) {
      const double scaled = u[i] / denominator;
      double* row = &inverse_[i * n];
      for (std::size_t j = 0; j < n; ++j) row[j] -= scaled * u[j];
    }
    // The weights move by u * error / denominator, so a candidate's prediction
    // moves by (its x' u) * error / denominator, and its variance by -(x' u)^2 / denominator.
    const double error = target - prediction_[candidate];
    const double step = error / denominator, shrink = 1 / denominator;
    for (std::size_t other = 0; other < run_.state.size(); ++other) {
      const double overlap = sum_of(u, features_of(other));
      prediction_[other] += overlap * step;
      variance_[other] -= overlap * overlap * shrink;
    }
    squared_errors_ += error * error;
    for (std::size_t p = 0; p < value_offset_.size(); ++p) ++value_measurements_[x[1 + p]];
    ++learned_;
  }

  Run& run_;
  bool has_prior_ = false;  // predictions start from the model's predicted times
  std::vector<std::size_t> value_offset_;  // per parameter, the feature of its first value
  std::size_t features_per_candidate_ = 0;
  std::size_t feature_count_ = 0;
  std::vector<std::uint32_t> features_;  // features_per_candidate_ per candidate
  std::vector<double> inverse_;          // of X'X + prior, feature_count_ squared
  std::vector<double> prediction_;       // per candidate: log time
  std::vector<double> variance_;         // per candidate: x' inverse x, the prediction's variance over the noise's
  std::vector<std::pair<double, std::size_t>> shortlist_;  // reused by lowest_confidence_bound()
  std::vector<std::size_t> value_measurements_;            // per value feature
  std::size_t learned_ = 0;
  double squared_errors_ = 0;  // of each prediction just before its measurement was learned
  double slowest_ = -std::numeric_limits<double>::infinity();  // log time
  std::vector<std::size_t> failures_to_learn_;
};

// The AUC bandit of OpenTuner (Ansel et al., PACT 2014): each measurement goes
// to the technique with the highest credit plus exploration bonus. Credit is
// the recency-weighted fraction of a technique's recent measurements that
// found a new best; the bonus favours techniques used little lately.
class Bandit final : public Technique {
 public:
  explicit Bandit(Run& run) : run_(run) {
    if (run.model_score) arms_.push_back(std::make_unique<ModelGuided>(run));
    arms_.push_back(std::make_unique<Annealing>(run));
    arms_.push_back(std::make_unique<Genetic>(run));
  }

  std::optional<std::size_t> propose() override {
    std::vector<std::size_t> order(arms_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::vector<double> scores(arms_.size());
    for (std::size_t arm = 0; arm < arms_.size(); ++arm) scores[arm] = score(arm);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    for (const std::size_t arm : order) {
      if (const auto candidate = arms_[arm]->propose()) {
        proposer_ = arm;
        return candidate;
      }
    }
    proposer_.reset();
    return std::nullopt;
  }

  void observe(std::size_t candidate) override {
    if (proposer_) {
      window_.emplace_back(*proposer_, run_.state.best() == candidate);
      if (window_.size() > kWindow) window_.pop_front();
      proposer_.reset();
    }
    for (const auto& arm : arms_) arm->observe(candidate);
  }

 private:
  static constexpr std::size_t kWindow = 50;  // measurements remembered
  static constexpr double kExploration = 0.05;

  double score(std::size_t arm) const {
    double uses = 0, weighted_successes = 0, weights = 0;
    for (const auto& [user, found_best] : window_) {
      if (user != arm) continue;
      uses += 1;
      weights += uses;  // the j-th use weighs j: recent results count more
      if (found_best) weighted_successes += uses;
    }
    if (uses == 0) return std::numeric_limits<double>::infinity();
    return weighted_successes / weights +
           kExploration * std::sqrt(2 * std::log(static_cast<double>(window_.size())) / uses);
  }

  Run& run_;
  std::vector<std::unique_ptr<Technique>> arms_;
  std::deque<std::pair<std::size_t, bool>> window_;  // (arm, found a new best) per measurement
  std::optional<std::size_t> proposer_;
};

using TechniqueFactory = std::unique_ptr<Technique> (*)(Run&);

struct StrategyEntry {
  std::string_view name;
  TechniqueFactory make_technique;
  bool needs_model;
  bool needs_geometry;  // moves through neighbours
};

template <typename T>
std::unique_ptr<Technique> make(Run& run) {
  return std::make_unique<T>(run);
}

constexpr StrategyEntry kStrategies[] = {
    {"exhaustive", make<InOrder>, false, false}, {"random", make<UniformRandom>, false, false},
    {"model", make<ModelGuided>, true, true},    {"annealing", make<Annealing>, false, true},
    {"genetic", make<Genetic>, false, true},     {"bandit", make<Bandit>, false, true},
    {"surrogate", make<Surrogate>, false, true},
};

class TechniqueStrategy final : public Strategy {
 public:
  explicit TechniqueStrategy(const StrategyEntry& entry) : entry_(entry) {}

  std::string name() const override { return std::string(entry_.name); }

  SearchResult run(const std::vector<Config>& candidates, const std::vector<double>* model_score,
                   const Evaluator& evaluate, const Budget& budget, std::uint64_t seed) const override {
    if (model_score && model_score->size() != candidates.size())
      throw std::invalid_argument(
          fmt::format("{} model scores for {} candidates", model_score->size(), candidates.size()));
    if (model_score && !std::all_of(model_score->begin(), model_score->end(), [](double s) { return std::isfinite(s); }))
      throw std::invalid_argument("model scores must be finite");
    if (entry_.needs_model && !model_score)
      throw std::invalid_argument(fmt::format("the {} strategy needs model scores", entry_.name));

    Run search(candidates, model_score, evaluate, budget, seed);
    if (entry_.needs_geometry) search.geometry();  // validates the candidates before anything is measured
    const auto technique = entry_.make_technique(search);
    while (!search.state.done()) {
      const auto proposed = technique->propose();
      const std::size_t candidate = proposed ? *proposed : search.state.random_unmeasured(search.random);
      search.state.measure(candidate);
      technique->observe(candidate);
    }
    return search.state.take_result();
  }

 private:
  const StrategyEntry& entry_;
};

}  // namespace

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const StrategyEntry& entry : kStrategies) names.emplace_back(entry.name);
  return names;
}

std::unique_ptr<Strategy> make_strategy(std::string_view name) {
  for (const StrategyEntry& entry : kStrategies)
    if (entry.name == name) return std::make_unique<TechniqueStrategy>(entry);
  throw std::invalid_argument(
      fmt::format("unknown search strategy '{}' (known: {})", name, fmt::join(strategy_names(), ", ")));
}

}  // namespace blocktune
