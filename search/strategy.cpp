#include "blocktune/strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <stdexcept>

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
