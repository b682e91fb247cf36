#include "blocktune/strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "search_state.hpp"

namespace blocktune {

namespace {

using detail::CandidatePool;
using detail::Run;
using detail::StartPlace;
using detail::Technique;

class InOrder final : public Technique {
 public:
  explicit InOrder(Run& run) : run_(run) {}

  std::optional<std::uint64_t> propose() override {
    const auto next = run_.state.first_unproposed(next_);
    if (next) next_ = *next + 1;
    return next;
  }

 private:
  Run& run_;
  std::uint64_t next_ = 0;
};

class UniformRandom final : public Technique {
 public:
  explicit UniformRandom(Run& run) : run_(run) {}
  std::optional<std::uint64_t> propose() override { return run_.state.random_unproposed(run_.random); }

 private:
  Run& run_;
};

// Measures the model's favourites (of the pool, on a space too large to rank
// whole) in batches; after each batch, climbs from the best found through its
// neighbours, the model's favourite first, until the best is a local optimum.
class ModelGuided final : public Technique {
 public:
  explicit ModelGuided(Run& run)
      : run_(run), pool_(run.state, run.random), batch_(std::clamp<std::uint64_t>(run.state.size() / 100, 5, 50)) {
    rank();
  }

  std::optional<std::uint64_t> propose() override {
    if (taken_from_batch_ == batch_) {
      if (const auto neighbour = favourite_neighbour_of_best()) return neighbour;
      taken_from_batch_ = 0;
    }
    if (pool_.refill()) rank();
    while (!ranking_.empty() && run_.state.proposed(ranking_.begin()->second)) ranking_.erase(ranking_.begin());
    if (ranking_.empty()) return std::nullopt;
    ++taken_from_batch_;
    return ranking_.begin()->second;
  }

  void refined(std::uint64_t candidate) override {
    const auto ranked = ranked_score_.find(candidate);
    if (ranked == ranked_score_.end()) return;
    ranking_.erase({ranked->second, candidate});
    ranked->second = run_.prior.score(candidate);
    ranking_.emplace(ranked->second, candidate);
  }

 private:
  void rank() {
    ranking_.clear();
    ranked_score_.clear();
    for (const std::uint64_t candidate : pool_.members()) {
      if (run_.state.proposed(candidate)) continue;
      const double score = run_.prior.score(candidate);
      ranking_.emplace(score, candidate);
      ranked_score_.emplace(candidate, score);
    }
  }

  std::optional<std::uint64_t> favourite_neighbour_of_best() {
    const auto best = run_.state.best();
    if (!best) return std::nullopt;
    std::optional<std::pair<double, std::uint64_t>> favourite;
    for (const std::uint64_t neighbour : run_.unproposed_neighbours(*best)) {
      const std::pair scored(run_.prior.score(neighbour), neighbour);
      if (!favourite || scored < *favourite) favourite = scored;
    }
    if (!favourite) return std::nullopt;
    return favourite->second;
  }

  Run& run_;
  CandidatePool pool_;
  std::set<std::pair<double, std::uint64_t>> ranking_;  // (score, candidate), the pool's not yet proposed
  std::unordered_map<std::uint64_t, double> ranked_score_;  // each ranked candidate's score in ranking_
  std::uint64_t batch_;
  std::uint64_t taken_from_batch_ = 0;
};

// Simulated annealing: a random neighbour of the current point not yet
// proposed is measured and moved to if faster, or if slower with probability
// exp(-relative slowdown / temperature). The temperature falls geometrically
// over the first tenth of the space's candidates measured (at least 50
// measurements, at most 1000): a search proposes without knowing its budget.
class Annealing final : public Technique {
 public:
  explicit Annealing(Run& run)
      : run_(run), cooling_measurements_(std::clamp<std::uint64_t>(run.state.size() / 10, 50, 1000)) {}

  std::optional<std::uint64_t> propose() override {
    if (current_) {
      const auto neighbours = run_.unproposed_neighbours(*current_);
      if (!neighbours.empty()) {
        const std::uint64_t chosen = neighbours[run_.random.below(neighbours.size())];
        outstanding_.emplace(chosen, false);
        return chosen;
      }
    }
    const auto restart = run_.state.random_unproposed(run_.random);
    if (restart) outstanding_.emplace(*restart, true);
    return restart;
  }

  void observe(std::uint64_t candidate) override {
    const auto proposal = outstanding_.find(candidate);
    if (proposal == outstanding_.end()) return;
    const bool restart = proposal->second;
    outstanding_.erase(proposal);
    if (restart || !current_ || accept(candidate)) current_ = candidate;
  }

 private:
  static constexpr double kStartTemperature = 1.0;  // a point twice as slow is taken with probability 1/e
  static constexpr double kEndTemperature = 0.01;

  bool accept(std::uint64_t candidate) {
    const auto time = run_.state.time(candidate);
    const auto current_time = run_.state.time(*current_);
    if (!time) return false;
    if (!current_time || *time <= *current_time) return true;
    const double cooled = std::min(1.0, static_cast<double>(run_.state.told_count()) /
                                            static_cast<double>(cooling_measurements_));
    const double temperature = kStartTemperature * std::pow(kEndTemperature / kStartTemperature, cooled);
    const double slowdown = (*time - *current_time) / *current_time;
    return run_.random.uniform() < std::exp(-slowdown / temperature);
  }

  Run& run_;
  std::uint64_t cooling_measurements_;
  std::optional<std::uint64_t> current_;
  std::unordered_map<std::uint64_t, bool> outstanding_;  // this technique's proposals not told yet: restarts?
};

// A steady-state genetic algorithm. The population is the fastest
// configurations measured so far (by any technique); each proposal is a child
// of two tournament winners by uniform crossover and step mutation.
class Genetic final : public Technique {
 public:
  explicit Genetic(Run& run) : run_(run) {}

  std::optional<std::uint64_t> propose() override {
    if (population_.size() < kPopulation) return run_.state.random_unproposed(run_.random);
    const CandidateSpace& space = run_.state.space();
    const std::size_t dimensions = space.dimensions();
    std::vector<std::uint32_t> mother(dimensions), father(dimensions), child(dimensions);
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      space.coordinates(tournament(), mother);
      space.coordinates(tournament(), father);
      for (std::size_t p = 0; p < dimensions; ++p) {
        child[p] = run_.random.below(2) == 0 ? mother[p] : father[p];
        if (run_.random.below(dimensions) == 0) child[p] = step(child[p], space.extent(p));
      }
      if (const auto found = space.find(child); found && !run_.state.proposed(*found)) return found;
    }
    return std::nullopt;
  }

  void observe(std::uint64_t candidate) override {
    if (!run_.state.time(candidate)) return;
    if (population_.size() < kPopulation) {
      population_.push_back(candidate);
      return;
    }
    const auto slowest = std::max_element(population_.begin(), population_.end(),
                                          [&](std::uint64_t a, std::uint64_t b) { return run_.state.faster(a, b); });
    if (run_.state.faster(candidate, *slowest)) *slowest = candidate;
  }

 private:
  static constexpr std::size_t kPopulation = 20;
  static constexpr int kAttempts = 16;  // children tried before giving up (all proposed or invalid)

  std::uint64_t tournament() {
    const std::uint64_t a = population_[run_.random.below(population_.size())];
    const std::uint64_t b = population_[run_.random.below(population_.size())];
    return run_.state.faster(b, a) ? b : a;
  }

  std::uint32_t step(std::uint32_t coordinate, std::uint32_t extent) {
    if (extent == 1) return coordinate;
    if (coordinate == 0) return 1;
    if (coordinate + 1 == extent) return coordinate - 1;
    return run_.random.below(2) == 0 ? coordinate - 1 : coordinate + 1;
  }

  Run& run_;
  std::vector<std::uint64_t> population_;
};

// The AUC bandit of OpenTuner (Ansel et al., PACT 2014): each measurement goes
// to the technique with the highest credit plus exploration bonus. Credit is
// the recency-weighted fraction of a technique's recent measurements that
// found a new best; the bonus favours techniques used little lately.
class Bandit final : public Technique {
 public:
  explicit Bandit(Run& run) : run_(run) {
    if (run.prior.given()) arms_.push_back(std::make_unique<ModelGuided>(run));
    arms_.push_back(std::make_unique<Annealing>(run));
    arms_.push_back(std::make_unique<Genetic>(run));
  }

  std::optional<std::uint64_t> propose() override {
    std::vector<std::size_t> order(arms_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::vector<double> scores(arms_.size());
    for (std::size_t arm = 0; arm < arms_.size(); ++arm) scores[arm] = score(arm);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    for (const std::size_t arm : order) {
      if (const auto candidate = arms_[arm]->propose()) {
        proposer_.emplace(*candidate, arm);
        return candidate;
      }
    }
    return std::nullopt;
  }

  void observe(std::uint64_t candidate) override {
    if (const auto proposal = proposer_.find(candidate); proposal != proposer_.end()) {
      window_.emplace_back(proposal->second, run_.state.best() == candidate);
      if (window_.size() > kWindow) window_.pop_front();
      proposer_.erase(proposal);
    }
    for (const auto& arm : arms_) arm->observe(candidate);
  }

  void refined(std::uint64_t candidate) override {
    for (const auto& arm : arms_) arm->refined(candidate);
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
  std::deque<std::pair<std::size_t, bool>> window_;           // (arm, found a new best) per measurement
  std::unordered_map<std::uint64_t, std::size_t> proposer_;  // the arm of each proposal not told yet
};

// A time that cannot be compared (NaN, infinite, negative) is a failure.
std::optional<double> comparable(std::optional<double> time) {
  if (time && !(std::isfinite(*time) && *time >= 0)) return std::nullopt;
  return time;
}

using TechniqueFactory = std::unique_ptr<Technique> (*)(Run&);

// A technique driven through the Search interface, after the candidates it
// is to start from (but for a technique's lead, which comes first); when it
// has no idea, a random candidate not yet proposed.
class TechniqueSearch final : public Search {
 public:
  TechniqueSearch(const CandidateSpace& space, const ModelScores* model, std::uint64_t seed, TechniqueFactory make,
                  std::vector<std::uint64_t> first)
      : run_(space, model, seed), technique_(make(run_)), first_(std::move(first)) {}

  std::optional<std::uint64_t> propose() override {
    if (std::exchange(at_start_, false)) {
      const StartPlace place = technique_->start_place(first_);
      if (place == StartPlace::after_search) put_off_ = std::exchange(first_, {});
      if (place != StartPlace::first)
        if (const auto lead = own_proposal()) return lead;
    }
    while (next_first_ < first_.size()) {
      const std::uint64_t candidate = first_[next_first_++];
      if (candidate >= run_.state.size() || run_.state.proposed(candidate)) continue;
      run_.state.propose(candidate);
      return candidate;
    }
    return own_proposal();
  }

  void tell(std::uint64_t candidate, const Evaluation& evaluation) override {
    run_.state.tell(candidate, comparable(evaluation.time));
    technique_->observe(candidate);
  }

  void refine_score(std::uint64_t candidate, double score) override {
    if (run_.state.told(candidate)) return;
    run_.prior.refine(candidate, score);
    technique_->refined(candidate);
  }

  std::optional<ModelCalibration> calibration() const override { return technique_->calibration(); }

  std::vector<std::uint64_t> put_off() override {
    std::vector<std::uint64_t> proposed;
    for (const std::uint64_t candidate : std::exchange(put_off_, {}))
      if (candidate < run_.state.size() && !run_.state.proposed(candidate)) {
        run_.state.propose(candidate);
        proposed.push_back(candidate);
      }
    return proposed;
  }

 private:
  std::optional<std::uint64_t> own_proposal() {
    auto candidate = technique_->propose();
    if (!candidate) candidate = run_.state.random_unproposed(run_.random);
    if (candidate) run_.state.propose(*candidate);
    return candidate;
  }

  Run run_;
  std::unique_ptr<Technique> technique_;
  std::vector<std::uint64_t> first_;  // to propose before the technique's own, from next_first_ on
  std::size_t next_first_ = 0;
  std::vector<std::uint64_t> put_off_;  // start candidates left to the driver, after the search
  bool at_start_ = true;  // nothing proposed yet
};

struct StrategyEntry {
  std::string_view name;
  TechniqueFactory make_technique;
  bool needs_model;
};

template <typename T>
std::unique_ptr<Technique> make(Run& run) {
  return std::make_unique<T>(run);
}

constexpr StrategyEntry kStrategies[] = {
    {"exhaustive", make<InOrder>, false}, {"random", make<UniformRandom>, false},
    {"model", make<ModelGuided>, true},   {"annealing", make<Annealing>, false},
    {"genetic", make<Genetic>, false},    {"bandit", make<Bandit>, false},
    {"surrogate", detail::make_surrogate, false},
};

class TechniqueStrategy final : public Strategy {
 public:
  explicit TechniqueStrategy(const StrategyEntry& entry) : entry_(entry) {}

  std::string name() const override { return std::string(entry_.name); }

 private:
  std::unique_ptr<Search> make_search(const CandidateSpace& space, const ModelScores* model, std::uint64_t seed,
                                      std::vector<std::uint64_t> first) const override {
    if (entry_.needs_model && !model)
      throw std::invalid_argument(fmt::format("the {} strategy needs model scores", entry_.name));
    return std::make_unique<TechniqueSearch>(space, model, seed, entry_.make_technique, std::move(first));
  }

  const StrategyEntry& entry_;
};

}  // namespace

std::unique_ptr<Search> Strategy::start(const CandidateSpace& space, const ModelScores* model, std::uint64_t seed,
                                        std::span<const std::uint64_t> first) const {
  return make_search(space, model, seed, {first.begin(), first.end()});
}

SearchResult Strategy::run(const CandidateSpace& space, const ModelScores* model, const Evaluator& evaluate,
                           const Budget& budget, std::uint64_t seed, std::span<const std::uint64_t> first) const {
  std::optional<std::uint64_t> max_evaluations = budget.evaluations;
  if (budget.fraction) {
    // The tolerance keeps 0.1 * 1000 from rounding up to 101.
    const double allowed = std::max(std::ceil(*budget.fraction * static_cast<double>(space.size()) - 1e-9), 0.0);
    const auto from_fraction = static_cast<std::uint64_t>(allowed);
    max_evaluations = std::min(max_evaluations.value_or(from_fraction), from_fraction);
  }
  const auto search = start(space, model, seed, first);
  SearchResult result;
  double spent_seconds = 0;
  std::optional<double> best_time;
  while ((!max_evaluations || result.history.size() < *max_evaluations) &&
         (!budget.seconds || spent_seconds < *budget.seconds)) {
    const auto candidate = search->propose();
    if (!candidate) break;
    Evaluation evaluation = evaluate(*candidate);
    evaluation.time = comparable(evaluation.time);
    spent_seconds += evaluation.cost_seconds;
    search->tell(*candidate, evaluation);
    if (evaluation.time && (!best_time || *evaluation.time < *best_time)) {
      best_time = evaluation.time;
      result.best = *candidate;
    }
    result.history.emplace_back(*candidate, std::move(evaluation));
  }
  return result;
}

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
