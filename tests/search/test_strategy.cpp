#include <catch2/catch.hpp>

#include <blocktune/strategy.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "synthetic_space.hpp"

using namespace blocktune;
using blocktune::testing::synthetic_measurement;
using blocktune::testing::synthetic_space;

namespace {

const std::vector<Config>& candidates() {
  static const std::vector<Config> configs = synthetic_space().enumerate();
  return configs;
}

// Scores equal to the true times: a perfect model. Failures rank last.
std::vector<double> perfect_model() {
  std::vector<double> scores;
  for (const Config& config : candidates()) scores.push_back(synthetic_measurement(config).time.value_or(1.0));
  return scores;
}

std::size_t optimum_index() {
  const auto scores = perfect_model();
  return static_cast<std::size_t>(std::min_element(scores.begin(), scores.end()) - scores.begin());
}

// Runs a strategy on the synthetic space, recording every call of the evaluator.
struct Observed {
  SearchResult result;
  std::vector<std::string> calls;
};

Observed run(std::string_view name, const Budget& budget, std::uint64_t seed) {
  static const std::vector<double> model = perfect_model();
  Observed observed;
  const Evaluator evaluate = [&](const Config& config) {
    observed.calls.push_back(config.to_string());
    return synthetic_measurement(config);
  };
  observed.result = make_strategy(name)->run(candidates(), &model, evaluate, budget, seed);
  return observed;
}

std::vector<std::size_t> indices(const SearchResult& result) {
  std::vector<std::size_t> measured;
  for (const auto& entry : result.history) measured.push_back(entry.first);
  return measured;
}

}  // namespace

TEST_CASE("Strategies are made by name") {
  const auto names = strategy_names();
  CHECK(names == std::vector<std::string>{"exhaustive", "random", "model", "annealing", "genetic", "bandit", "surrogate"});
  CHECK(std::find(names.begin(), names.end(), kDefaultStrategy) != names.end());
  for (const auto& name : names) CHECK(make_strategy(name)->name() == name);
  CHECK_THROWS_WITH(make_strategy("hyperband"),
                    Catch::Contains("'hyperband'") && Catch::Contains("exhaustive, random, model"));
}

TEST_CASE("Without a budget every strategy measures every candidate exactly once") {
  REQUIRE(candidates().size() == 264);
  for (const auto& name : strategy_names()) {
    INFO(name);
    const Observed observed = run(name, {}, 7);
    const auto measured = indices(observed.result);
    CHECK(measured.size() == candidates().size());
    CHECK(std::set(measured.begin(), measured.end()).size() == candidates().size());
    REQUIRE(observed.calls.size() == measured.size());
    for (std::size_t i = 0; i < measured.size(); ++i) CHECK(observed.calls[i] == candidates()[measured[i]].to_string());
    CHECK(observed.result.best == optimum_index());
  }
}

TEST_CASE("Strategies are deterministic given the seed") {
  for (const auto& name : strategy_names()) {
    INFO(name);
    const Budget budget{.evaluations = 60};
    const auto first = indices(run(name, budget, 42).result);
    CHECK(first == indices(run(name, budget, 42).result));
    if (name != "exhaustive" && name != "model")  // these two ignore the seed by design
      CHECK(first != indices(run(name, budget, 43).result));
  }
}

TEST_CASE("Strategies stay within every kind of budget") {
  for (const auto& name : strategy_names()) {
    INFO(name);
    CHECK(run(name, {.evaluations = 17}, 1).result.history.size() == 17);
    CHECK(run(name, {.fraction = 0.1}, 1).result.history.size() == 27);  // ceil(26.4)
    CHECK(run(name, {.evaluations = 40, .fraction = 0.1}, 1).result.history.size() == 27);
    CHECK(run(name, {.evaluations = 0}, 1).result.history.empty());

    // A measurement starts only while time is left, so only the last one may overrun.
    const auto history = run(name, {.seconds = 20.0}, 1).result.history;
    double spent = 0;
    for (std::size_t i = 0; i + 1 < history.size(); ++i) spent += history[i].second.cost_seconds;
    CHECK(spent < 20.0);
    CHECK(spent + history.back().second.cost_seconds >= 20.0);
  }
}

TEST_CASE("Failed configurations count against the budget and do not stop the search") {
  // Every other candidate fails: the budget is spent on both kinds.
  const Evaluator half_fail = [](const Config& config) {
    const bool fails = (config.get_int("block_x") + config.get_int("block_y") + config.get_int("unroll")) % 2 == 1;
    return fails ? Evaluation{std::nullopt, 1.0} : synthetic_measurement(config);
  };
  const Evaluator all_fail = [](const Config&) { return Evaluation{std::nullopt, 1.0}; };
  const auto model = perfect_model();
  for (const auto& name : strategy_names()) {
    INFO(name);
    const auto strategy = make_strategy(name);
    const auto result = strategy->run(candidates(), &model, half_fail, {.evaluations = 50}, 3);
    CHECK(result.history.size() == 50);
    const auto failures = std::count_if(result.history.begin(), result.history.end(),
                                        [](const auto& entry) { return !entry.second.time; });
    CHECK(failures > 0);
    REQUIRE(result.best.has_value());
    for (const auto& [index, evaluation] : result.history)
      if (evaluation.time) CHECK(*evaluation.time >= *half_fail(candidates()[*result.best]).time);

    const auto hopeless = strategy->run(candidates(), &model, all_fail, {}, 3);
    CHECK(hopeless.history.size() == candidates().size());
    CHECK_FALSE(hopeless.best.has_value());
  }
}

TEST_CASE("Exhaustive search measures the candidates in list order") {
  const auto measured = indices(run("exhaustive", {.evaluations = 5}, 9).result);
  CHECK(measured == std::vector<std::size_t>{0, 1, 2, 3, 4});
}

TEST_CASE("The model strategy with a perfect model measures the optimum first") {
  const Observed observed = run("model", {.evaluations = 1}, 5);
  REQUIRE(observed.result.history.size() == 1);
  CHECK(observed.result.history.front().first == optimum_index());
  CHECK(observed.result.best == optimum_index());
}

TEST_CASE("The model strategy refines around the best when the model is wrong about it") {
  // The model ranks by everything except the variant, which it gets backwards:
  // its favourites are "plain", and the optimum ("vec4") is two steps away.
  std::vector<double> misled;
  for (const Config& config : candidates()) {
    Config flipped = config;
    const std::string& variant = std::get<std::string>(config.at("variant"));
    const char* opposite = variant == "plain" ? "vec4" : variant == "vec4" ? "plain" : "vec2";
    std::vector<std::pair<std::string, Value>> entries = config.entries();
    entries.back().second = std::string(opposite);
    misled.push_back(synthetic_measurement(Config(entries)).time.value_or(1.0));
  }
  const Evaluator evaluate = synthetic_measurement;
  const auto result = make_strategy("model")->run(candidates(), &misled, evaluate, {.evaluations = 12}, 0);
  CHECK(result.best == optimum_index());
}

TEST_CASE("Model scores are checked") {
  const Evaluator evaluate = synthetic_measurement;
  const std::vector<double> too_few(3, 1.0);
  CHECK_THROWS_WITH(make_strategy("model")->run(candidates(), nullptr, evaluate, {}, 0),
                    Catch::Contains("needs model scores"));
  CHECK_THROWS_WITH(make_strategy("random")->run(candidates(), &too_few, evaluate, {}, 0),
                    Catch::Contains("3 model scores for 264 candidates"));
  std::vector<double> not_finite(candidates().size(), 1.0);
  not_finite[7] = std::nan("");
  CHECK_THROWS_WITH(make_strategy("bandit")->run(candidates(), &not_finite, evaluate, {}, 0),
                    Catch::Contains("finite"));
}

TEST_CASE("Strategies that move through neighbours need consistent candidates") {
  const std::vector<Config> mixed{Config::parse("a=1,b=2"), Config::parse("a=2,c=2")};
  int calls = 0;
  const Evaluator evaluate = [&](const Config&) {
    ++calls;
    return Evaluation{1.0, 1.0};
  };
  CHECK_THROWS_WITH(make_strategy("annealing")->run(mixed, nullptr, evaluate, {}, 0),
                    Catch::Contains("do not name the same parameters"));
  CHECK(calls == 0);
  CHECK(make_strategy("random")->run(mixed, nullptr, evaluate, {}, 0).history.size() == 2);
}

TEST_CASE("Strategies handle empty and single-candidate lists") {
  const Evaluator evaluate = synthetic_measurement;
  const std::vector<Config> none;
  const std::vector<Config> one{candidates().front()};
  const std::vector<double> no_scores, one_score{0.5};
  for (const auto& name : strategy_names()) {
    INFO(name);
    const auto strategy = make_strategy(name);
    CHECK(strategy->run(none, &no_scores, evaluate, {}, 0).history.empty());
    const auto single = strategy->run(one, &one_score, evaluate, {}, 0);
    CHECK(single.history.size() == 1);
    CHECK(single.best == std::size_t{0});
  }
}

TEST_CASE("Guided strategies beat random search on a smooth landscape") {
  // Mean best time over 20 seeds with a quarter of the space: deterministic,
  // and far from a close call on this landscape.
  const auto mean_best = [](std::string_view name) {
    double total = 0;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      const Observed observed = run(name, {.fraction = 0.25}, seed);
      total += *synthetic_measurement(candidates()[*observed.result.best]).time;
    }
    return total / 20;
  };
  const double random = mean_best("random");
  for (const char* name : {"model", "annealing", "genetic", "bandit", "surrogate"}) {
    INFO(name);
    CHECK(mean_best(name) < random);
  }
}
