#include <catch2/catch.hpp>

#include <blocktune/replay.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include "synthetic_space.hpp"

using namespace blocktune;
using blocktune::testing::synthetic_measurement;
using blocktune::testing::synthetic_space;

namespace {

RecordedSpace record(const std::vector<Config>& configs) {
  RecordedSpace space;
  for (const Config& config : configs) {
    const Evaluation evaluation = synthetic_measurement(config);
    space.configs.push_back(config);
    space.time.push_back(evaluation.time);
    space.cost_seconds.push_back(evaluation.cost_seconds);
  }
  return space;
}

// Twelve configurations: nine distinct times (two tied) and three failures, all costing one second.
RecordedSpace small_space() {
  const std::vector<std::optional<double>> times = {5.0, std::nullopt, 3.0, 8.0, 1.0, std::nullopt,
                                                    4.0, 2.0, 3.0, std::nullopt, 9.0, 6.0};
  RecordedSpace space;
  for (std::size_t i = 0; i < times.size(); ++i) {
    space.configs.push_back(Config({{"i", static_cast<std::int64_t>(i)}}));
    space.time.push_back(times[i]);
    space.cost_seconds.push_back(1.0);
  }
  return space;
}

// E[best of k draws without replacement], averaging over every k-subset.
double brute_force_expected_best(const RecordedSpace& space, std::size_t k, double nothing_found) {
  const std::size_t n = space.configs.size();
  std::vector<bool> chosen(n, false);
  std::fill(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(k), true);
  double total = 0;
  std::size_t subsets = 0;
  do {
    double best = nothing_found;
    for (std::size_t i = 0; i < n; ++i)
      if (chosen[i] && space.time[i]) best = std::min(best, *space.time[i]);
    total += best;
    ++subsets;
  } while (std::prev_permutation(chosen.begin(), chosen.end()));
  return total / static_cast<double>(subsets);
}

}  // namespace

TEST_CASE("Replay charges recorded costs and returns recorded times") {
  const RecordedSpace space = small_space();
  const auto result = replay(space, *make_strategy("exhaustive"), {.seconds = 4.5}, 0);
  REQUIRE(result.history.size() == 5);
  for (const auto& [index, evaluation] : result.history) {
    CHECK(evaluation.time == space.time[index]);
    CHECK(evaluation.cost_seconds == 1.0);
  }
  CHECK(result.best == std::size_t{4});

  RecordedSpace ragged = space;
  ragged.cost_seconds.pop_back();
  CHECK_THROWS_WITH(replay(ragged, *make_strategy("random"), {}, 0), Catch::Contains("12 configurations"));
}

TEST_CASE("Best-so-far is a step function of simulated time") {
  SearchResult result;
  result.history = {{0, {std::nullopt, 2.0}}, {1, {5.0, 1.0}}, {2, {7.0, 1.0}}, {3, {4.0, 0.5}}};
  const BestSoFar curve(result);
  CHECK_FALSE(curve.at(0.0).has_value());
  CHECK_FALSE(curve.at(2.9).has_value());
  CHECK(curve.at(3.0) == 5.0);  // counts once its cost is paid
  CHECK(curve.at(4.4) == 5.0);
  CHECK(curve.at(4.5) == 4.0);
  CHECK(curve.at(100.0) == 4.0);
}

TEST_CASE("The random baseline is the exact expected best of random draws") {
  const RecordedSpace space = small_space();
  const RandomBaseline random(space);
  CHECK(random.optimum() == 1.0);
  CHECK(random.slowest() == 9.0);
  CHECK(random.mean_cost() == 1.0);
  for (std::size_t k = 0; k <= space.configs.size(); ++k) {
    INFO("k = " << k);
    CHECK(random.expected_best(k) == Approx(brute_force_expected_best(space, k, 9.0)).epsilon(1e-12));
  }
  CHECK(random.expected_best(1) == Approx((5.0 + 3 + 8 + 1 + 4 + 2 + 3 + 9 + 6 + 3 * 9.0) / 12));
  CHECK(random.expected_best(100) == 1.0);
  CHECK(random.draws_by(0.0) == 0);
  CHECK(random.draws_by(3.99) == 3);
  CHECK(random.draws_by(1e9) == 12);
  CHECK(random.at(3.5) == random.expected_best(3));
}

TEST_CASE("The random baseline matches replayed random search") {
  // The synthetic space has unequal costs, so compare per number of draws.
  const RecordedSpace space = record(synthetic_space().enumerate());
  const RandomBaseline random(space);
  const auto strategy = make_strategy("random");
  constexpr std::size_t kDraws = 30, kRuns = 3000;
  std::vector<double> total(kDraws + 1, 0.0);
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    const auto result = replay(space, *strategy, {.evaluations = kDraws}, seed);
    double best = random.slowest();
    for (std::size_t k = 1; k <= kDraws; ++k) {
      if (const auto& time = result.history[k - 1].second.time) best = std::min(best, *time);
      total[k] += best;
    }
  }
  for (const std::size_t k : {1, 2, 5, 10, 20, 30}) {
    INFO("k = " << k);
    // Deterministic seeds; the tolerance is several standard errors of the mean.
    CHECK(total[k] / kRuns == Approx(random.expected_best(k)).epsilon(0.01));
  }
}

TEST_CASE("The methodology budget is when random search reaches the cutoff") {
  const RandomBaseline random(record(synthetic_space().enumerate()));
  const double budget = random.budget_seconds(0.95);
  const auto draws = static_cast<std::size_t>(std::llround(budget / random.mean_cost()));
  std::vector<double> sorted;  // 255 successes: the median is the middle one
  for (const Config& config : synthetic_space().enumerate())
    if (const auto time = synthetic_measurement(config).time) sorted.push_back(*time);
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const double target = random.optimum() + (median - random.optimum()) * 0.05;
  CHECK(random.expected_best(draws) <= target);
  CHECK(random.expected_best(draws - 1) > target);
  CHECK(random.budget_seconds(0.5) < budget);
}

TEST_CASE("P(t) is 0 for random search on average and 1 at the optimum") {
  const RecordedSpace space = small_space();  // equal costs: random search draws exactly t / cost times
  const RandomBaseline random(space);

  SearchResult optimum_first;
  optimum_first.history = {{4, {1.0, 1.0}}};
  const BestSoFar lucky(optimum_first);
  CHECK(performance_at(lucky, random, 0.5) == 0.0);  // nothing measured yet: as good as random
  CHECK(performance_at(lucky, random, 1.0) == 1.0);
  CHECK(methodology_score(lucky, random, 4.0, 4) == 1.0);

  SearchResult slowest_first;
  slowest_first.history = {{10, {9.0, 1.0}}, {3, {8.0, 1.0}}};
  CHECK(performance_at(BestSoFar(slowest_first), random, 2.0) < 0);  // worse than random

  const auto strategy = make_strategy("random");
  double total = 0;
  constexpr int kRuns = 4000;
  for (std::uint64_t seed = 0; seed < kRuns; ++seed)
    total += methodology_score(BestSoFar(replay(space, *strategy, {.seconds = 6.0}, seed)), random, 6.0, 6);
  CHECK(std::abs(total / kRuns) < 0.03);

  // All twelve measured: random search is certain to have the optimum.
  CHECK(performance_at(lucky, random, 12.0) == 1.0);
  CHECK(performance_at(BestSoFar(slowest_first), random, 12.0) == 0.0);
  CHECK_THROWS_AS(methodology_score(lucky, random, 4.0, 0), std::invalid_argument);
}

TEST_CASE("Summaries separate a perfect model from random search") {
  const RecordedSpace space = record(synthetic_space().enumerate());
  std::vector<double> times;
  for (const auto& time : space.time) times.push_back(time.value_or(1.0));
  const ModelScores perfect = listed_model_scores(times, true);
  const std::vector<std::uint64_t> seeds = {1, 2, 3, 4, 5, 6, 7, 8};

  const ReplaySummary model = summarize(space, *make_strategy("model"), seeds, &perfect);
  CHECK(model.strategy == "model");
  CHECK(model.runs == 8);
  CHECK(model.near_optimal_fraction == 1.0);
  CHECK(model.mean_score > 0.9);

  const ReplaySummary random = summarize(space, *make_strategy("random"), seeds);
  CHECK(random.mean_score < model.mean_score);
  CHECK(random.near_optimal_fraction < 1.0);
  CHECK(summarize(space, *make_strategy("random"), {}).runs == 0);
}
