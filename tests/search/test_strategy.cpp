#include <catch2/catch.hpp>

#include <blocktune/strategy.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "synthetic_space.hpp"

using namespace blocktune;
using blocktune::testing::synthetic_measurement;
using blocktune::testing::synthetic_space;

namespace {

const std::vector<Config>& configs() {
  static const std::vector<Config> listed = synthetic_space().enumerate();
  return listed;
}

const ListedCandidates& candidates() {
  static const ListedCandidates listed(configs());
  return listed;
}

Evaluation measure(std::uint64_t candidate) { return synthetic_measurement(configs()[candidate]); }

// Scores equal to the true times: a perfect model. Failures rank last.
std::vector<double> perfect_scores() {
  std::vector<double> scores;
  for (const Config& config : configs()) scores.push_back(synthetic_measurement(config).time.value_or(1.0));
  return scores;
}

ModelScores listed(std::vector<double> scores) {
  return {[scores = std::move(scores)](std::uint64_t candidate) { return scores.at(candidate); }, true};
}

const ModelScores& perfect_model() {
  static const ModelScores model = listed(perfect_scores());
  return model;
}

std::uint64_t optimum_index() {
  const auto scores = perfect_scores();
  return static_cast<std::uint64_t>(std::min_element(scores.begin(), scores.end()) - scores.begin());
}

// Runs a strategy on the synthetic space, recording every call of the evaluator.
struct Observed {
  SearchResult result;
  std::vector<std::string> calls;
};

Observed run(std::string_view name, const Budget& budget, std::uint64_t seed) {
  Observed observed;
  const Evaluator evaluate = [&](std::uint64_t candidate) {
    observed.calls.push_back(configs()[candidate].to_string());
    return measure(candidate);
  };
  observed.result = make_strategy(name)->run(candidates(), &perfect_model(), evaluate, budget, seed);
  return observed;
}

std::vector<std::uint64_t> indices(const SearchResult& result) {
  std::vector<std::uint64_t> measured;
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
    for (std::size_t i = 0; i < measured.size(); ++i) CHECK(observed.calls[i] == configs()[measured[i]].to_string());
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
  const Evaluator half_fail = [](std::uint64_t candidate) {
    const Config& config = configs()[candidate];
    const bool fails = (config.get_int("block_x") + config.get_int("block_y") + config.get_int("unroll")) % 2 == 1;
    return fails ? Evaluation{std::nullopt, 1.0} : synthetic_measurement(config);
  };
  const Evaluator all_fail = [](std::uint64_t) { return Evaluation{std::nullopt, 1.0}; };
  for (const auto& name : strategy_names()) {
    INFO(name);
    const auto strategy = make_strategy(name);
    const auto result = strategy->run(candidates(), &perfect_model(), half_fail, {.evaluations = 50}, 3);
    CHECK(result.history.size() == 50);
    const auto failures = std::count_if(result.history.begin(), result.history.end(),
                                        [](const auto& entry) { return !entry.second.time; });
    CHECK(failures > 0);
    REQUIRE(result.best.has_value());
    for (const auto& [index, evaluation] : result.history)
      if (evaluation.time) CHECK(*evaluation.time >= *half_fail(*result.best).time);

    const auto hopeless = strategy->run(candidates(), &perfect_model(), all_fail, {}, 3);
    CHECK(hopeless.history.size() == candidates().size());
    CHECK_FALSE(hopeless.best.has_value());
  }
}

TEST_CASE("Exhaustive search measures the candidates in list order") {
  const auto measured = indices(run("exhaustive", {.evaluations = 5}, 9).result);
  CHECK(measured == std::vector<std::uint64_t>{0, 1, 2, 3, 4});
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
  for (const Config& config : configs()) {
    Config flipped = config;
    const std::string& variant = std::get<std::string>(config.at("variant"));
    const char* opposite = variant == "plain" ? "vec4" : variant == "vec4" ? "plain" : "vec2";
    std::vector<std::pair<std::string, Value>> entries = config.entries();
    entries.back().second = std::string(opposite);
    misled.push_back(synthetic_measurement(Config(entries)).time.value_or(1.0));
  }
  const ModelScores model = listed(misled);
  const auto result = make_strategy("model")->run(candidates(), &model, measure, {.evaluations = 12}, 0);
  CHECK(result.best == optimum_index());
}

TEST_CASE("Model scores are checked") {
  CHECK_THROWS_WITH(make_strategy("model")->run(candidates(), nullptr, measure, {}, 0),
                    Catch::Contains("needs model scores"));
  std::vector<double> not_finite(configs().size(), 1.0);
  not_finite[7] = std::nan("");
  const ModelScores broken = listed(not_finite);
  int calls = 0;
  const Evaluator counted = [&](std::uint64_t candidate) {
    ++calls;
    return measure(candidate);
  };
  // On a space this small every score is asked for before anything is proposed.
  CHECK_THROWS_WITH(make_strategy("bandit")->run(candidates(), &broken, counted, {}, 0),
                    Catch::Contains("candidate 7") && Catch::Contains("finite"));
  CHECK(calls == 0);
  std::vector<double> negative(configs().size(), 1.0);
  negative[3] = -1;
  const ModelScores not_times = listed(negative);
  CHECK_THROWS_WITH(make_strategy("surrogate")->run(candidates(), &not_times, counted, {}, 0),
                    Catch::Contains("candidate 3") && Catch::Contains("positive times"));
  CHECK(calls == 0);
  ModelScores negative_warps = perfect_model();
  negative_warps.resident_warps = [](std::uint64_t candidate) { return candidate == 5 ? -2 : 32; };
  CHECK_THROWS_WITH(make_strategy("surrogate")->run(candidates(), &negative_warps, counted, {}, 0),
                    Catch::Contains("candidate 5 keeps -2 warps resident"));
  CHECK(calls == 0);
}

TEST_CASE("Listed candidates must name the same parameters, once each") {
  CHECK_THROWS_WITH(ListedCandidates({Config::parse("a=1,b=2"), Config::parse("a=2,c=2")}),
                    Catch::Contains("do not name the same parameters") && Catch::Contains("a=2,c=2"));
  CHECK_THROWS_WITH(ListedCandidates({Config::parse("a=1,b=2"), Config::parse("a=2,b=2"), Config::parse("a=1,b=2")}),
                    Catch::Contains("'a=1,b=2' is listed twice"));
}

TEST_CASE("Strategies handle empty and single-candidate lists") {
  const ListedCandidates none({});
  const ListedCandidates one({configs().front()});
  const ModelScores one_score = listed({0.5});
  const Evaluator evaluate = [](std::uint64_t candidate) {
    CHECK(candidate == 0);
    return measure(0);
  };
  for (const auto& name : strategy_names()) {
    INFO(name);
    const auto strategy = make_strategy(name);
    CHECK(strategy->run(none, &one_score, evaluate, {}, 0).history.empty());
    const auto single = strategy->run(one, &one_score, evaluate, {}, 0);
    CHECK(single.history.size() == 1);
    CHECK(single.best == std::uint64_t{0});
  }
}

TEST_CASE("Guided strategies beat random search on a smooth landscape") {
  // Mean best time over 20 seeds with a quarter of the space: deterministic,
  // and far from a close call on this landscape.
  const auto mean_best = [](std::string_view name) {
    double total = 0;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      const Observed observed = run(name, {.fraction = 0.25}, seed);
      total += *measure(*observed.result.best).time;
    }
    return total / 20;
  };
  const double random = mean_best("random");
  for (const char* name : {"model", "annealing", "genetic", "bandit", "surrogate"}) {
    INFO(name);
    CHECK(mean_best(name) < random);
  }
}

// The surrogate's online calibration: what it measures decides how much the
// model's predicted times count. A model that predicts the reverse of the
// truth loses its weight; a perfect one keeps it.
TEST_CASE("The surrogate calibrates the model's weight on what it measures") {
  const auto weight_after = [](const ModelScores& model) {
    const auto search = make_strategy("surrogate")->start(candidates(), &model, 1);
    for (int i = 0; i < 60; ++i) {
      const auto candidate = search->propose();
      REQUIRE(candidate);
      search->tell(*candidate, measure(*candidate));
    }
    const auto calibration = search->calibration();
    REQUIRE(calibration);
    CHECK(calibration->measurements == 60);
    CHECK(calibration->lowest_correction <= calibration->highest_correction);
    return calibration->weight;
  };
  std::vector<double> reversed;
  for (const double time : perfect_scores()) reversed.push_back(1 / time);
  const double trusted = weight_after(perfect_model());
  const double distrusted = weight_after(listed(reversed));
  INFO("perfect model: " << trusted << ", reversed model: " << distrusted);
  CHECK(trusted > 0.7);
  CHECK(distrusted < 0.3);

  // Without predicted times there is nothing to calibrate.
  CHECK_FALSE(make_strategy("surrogate")->start(candidates(), nullptr, 1)->calibration());
  CHECK_FALSE(make_strategy("genetic")->start(candidates(), &perfect_model(), 1)->calibration());
}

// Without a model nothing says where the fast configurations are, but the
// extremes of a range are where the slowest and costliest ones lie: the
// surrogate starts in the middle of each numeric parameter's values
// (block_x 64 and block_y 4 of five values each, unroll 2 or 4 of 1-8),
// whatever the seed, and covers the other values from there outwards, the
// ends of the ranges last.
TEST_CASE("Without a model the surrogate covers the numeric ranges from the middle outwards") {
  std::set<std::string> first_variants;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    const auto search = make_strategy("surrogate")->start(candidates(), nullptr, seed);
    std::vector<Config> proposed;
    for (int i = 0; i < 2; ++i) {
      const auto candidate = search->propose();
      REQUIRE(candidate);
      search->tell(*candidate, measure(*candidate));
      proposed.push_back(configs()[*candidate]);
    }
    const Config& first = proposed[0];
    const Config& second = proposed[1];
    INFO(first.to_string() << " then " << second.to_string());
    CHECK(first.get_int("block_x") == 64);
    CHECK(first.get_int("block_y") == 4);
    CHECK((first.get_int("unroll") == 2 || first.get_int("unroll") == 4));
    // The middles of the gaps left: a quarter of the range from the first.
    CHECK((second.get_int("block_x") == 32 || second.get_int("block_x") == 128));
    CHECK((second.get_int("block_y") == 2 || second.get_int("block_y") == 8));
    CHECK(second.get_int("unroll") == 6 - first.get_int("unroll"));
    first_variants.insert(std::get<std::string>(first.at("variant")));
  }
  // The string parameter has no middle: the seeds still vary it.
  CHECK(first_variants.size() > 1);
}

// Spread, not just central: on one parameter of nine values the covering
// measurements take the middle, then the middles of the two halves (not the
// middle's neighbours), so that a trend along the values can be learned.
TEST_CASE("The surrogate's covering measurements spread over a long numeric range") {
  std::vector<Config> nine;
  for (std::int64_t value = 1; value <= 9; ++value) nine.push_back(Config({{"tile", Value(value)}}));
  const ListedCandidates listed(nine);
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const auto search = make_strategy("surrogate")->start(listed, nullptr, seed);
    std::set<std::int64_t> covered;
    for (int i = 0; i < 3; ++i) {
      const auto candidate = search->propose();
      REQUIRE(candidate);
      const std::int64_t tile = nine[*candidate].get_int("tile");
      if (i == 0) CHECK(tile == 5);
      covered.insert(tile);
      search->tell(*candidate, {1e-3 * static_cast<double>(tile), 1.0});
    }
    CHECK(covered == std::set<std::int64_t>{3, 5, 7});
  }
}

// Candidates other than the optimum that the perfect model predicts within
// the surrogate's put-off margin of it: start candidates it measures first.
std::vector<std::uint64_t> near_optimum() {
  const auto scores = perfect_scores();
  std::vector<std::uint64_t> near;
  for (std::uint64_t c = 0; c < scores.size(); ++c)
    if (c != optimum_index() && scores[c] < kGuessedPutOffMargin * scores[optimum_index()]) near.push_back(c);
  return near;
}

// tune starts every strategy from the kernel's default configuration: it is
// proposed before anything the strategy chooses (with a model's guesses that
// predict it nearly as fast as their favourite; for other predictions, see the
// surrogate's lead and put-off below), a repeat or an index outside the space
// is skipped, and the strategy goes on as it would have.
TEST_CASE("Every strategy proposes the candidates it is started from first") {
  const std::uint64_t outside = candidates().size();
  const auto near = near_optimum();
  REQUIRE(near.size() >= 2);
  const std::vector<std::uint64_t> first = {near[0], near[0], outside, near[1]};
  for (const std::string& name : strategy_names()) {
    INFO(name);
    const auto result = make_strategy(name)->run(candidates(), &perfect_model(), measure, {.evaluations = 20}, 5, first);
    const auto measured = indices(result);
    REQUIRE(measured.size() == 20);
    CHECK(measured[0] == near[0]);
    CHECK(measured[1] == near[1]);
    CHECK(std::set(measured.begin(), measured.end()).size() == measured.size());
  }
}

// The model's favourite is the first of the surrogate's own proposals even
// when the search learned from a start candidate first (the regression's
// confidence bound would otherwise pick whatever the one measurement made
// uncertain), and the covering that follows is the one it makes without a
// start candidate.
TEST_CASE("After its start candidates the surrogate measures the model's favourite, then covers as without them") {
  // Without a model: the covering measurements it makes unstarted...
  const auto plain = indices(make_strategy("surrogate")->run(candidates(), nullptr, measure, {.evaluations = 3}, 2));
  // ... and a start candidate it would not have measured: the slowest (not the optimum).
  std::vector<std::uint64_t> by_time(configs().size());
  std::iota(by_time.begin(), by_time.end(), std::uint64_t{0});
  const auto scores = perfect_scores();
  std::ranges::stable_sort(by_time, [&](std::uint64_t a, std::uint64_t b) { return scores[a] > scores[b]; });
  const std::uint64_t start = *std::ranges::find_if(by_time, [&](std::uint64_t c) { return std::ranges::find(plain, c) == plain.end(); });
  REQUIRE(start != optimum_index());
  const std::vector<std::uint64_t> first = {start};

  // With the model, a start candidate it predicts near enough to its favourite to measure first (the slowest of them).
  const auto near = near_optimum();
  const std::uint64_t near_start = *std::ranges::max_element(near, {}, [&](std::uint64_t c) { return scores[c]; });
  const auto with_model = make_strategy("surrogate")->run(candidates(), &perfect_model(), measure, {.evaluations = 4}, 2,
                                                         std::vector<std::uint64_t>{near_start});
  REQUIRE(with_model.history.size() == 4);
  CHECK(with_model.history[0].first == near_start);
  CHECK(with_model.history[1].first == optimum_index());

  const auto started = indices(make_strategy("surrogate")->run(candidates(), nullptr, measure, {.evaluations = 4}, 2, first));
  REQUIRE(started.size() == 4);
  CHECK(started[0] == start);
  CHECK(std::vector(started.begin() + 1, started.end()) == plain);
}

// Predictions of a kernel that counts no work (occupancy, waves and launch
// overhead only) tie by the hundred for fastest, and their favourite is the
// first of the ties in the space's order: the surrogate learns from them but
// covers the values first, as it does without a model.
TEST_CASE("The surrogate does not start from the favourite of a model that counts no work") {
  ModelScores thin = perfect_model();
  thin.count_work = false;
  const auto covering = indices(make_strategy("surrogate")->run(candidates(), nullptr, measure, {.evaluations = 3}, 2));
  const auto with_thin = indices(make_strategy("surrogate")->run(candidates(), &thin, measure, {.evaluations = 3}, 2));
  const auto with_model = indices(make_strategy("surrogate")->run(candidates(), &perfect_model(), measure, {.evaluations = 3}, 2));
  REQUIRE(with_thin.size() == 3);
  CHECK(with_model[0] == optimum_index());
  CHECK(with_thin[0] != optimum_index());
  CHECK(with_thin[0] == covering[0]);
}

// Scores measured at another problem size are no guess to guard against: the
// surrogate measures its fastest prediction each time, where with the model's
// own scores it first covers the values it has not measured and explores.
TEST_CASE("With scores measured at another size the surrogate measures its fastest prediction each time") {
  ModelScores measured_elsewhere = perfect_model();
  measured_elsewhere.measured = true;
  std::vector<std::uint64_t> fastest(configs().size());
  std::iota(fastest.begin(), fastest.end(), std::uint64_t{0});
  const auto scores = perfect_scores();
  std::ranges::stable_sort(fastest, [&](std::uint64_t a, std::uint64_t b) { return scores[a] < scores[b]; });
  fastest.resize(12);

  for (const std::uint64_t seed : {1, 2, 3}) {
    // The twelve fastest, in the order of its regression (which learns what
    // tells near-ties apart, so not exactly the scores' order).
    const auto greedy = indices(make_strategy("surrogate")->run(candidates(), &measured_elsewhere, measure, {.evaluations = 12}, seed));
    REQUIRE(greedy.size() == 12);
    CHECK(greedy[0] == fastest[0]);
    CHECK(std::set(greedy.begin(), greedy.end()) == std::set(fastest.begin(), fastest.end()));
    const auto guarded = indices(make_strategy("surrogate")->run(candidates(), &perfect_model(), measure, {.evaluations = 12}, seed));
    REQUIRE(guarded.size() == 12);
    CHECK(guarded[0] == fastest[0]);  // the model's favourite first either way
    CHECK(std::set(guarded.begin(), guarded.end()) != std::set(fastest.begin(), fastest.end()));
  }
}

// A prior measured at another size that predicts a default configuration
// much slower than its fastest is usually right: the surrogate then measures
// its fastest prediction before the candidates it is started from, then
// those, then goes on. A start candidate predicted within 1.2x of the fastest
// keeps its place (the safer first result), as do the start candidates of the
// other strategies, which do not start from the prior's favourite, and of the
// surrogate with the model's guesses.
TEST_CASE("With scores measured at another size the surrogate's favourite leads the start candidates") {
  ModelScores measured_elsewhere = perfect_model();
  measured_elsewhere.measured = true;
  const auto scores = perfect_scores();
  const auto slowest = static_cast<std::uint64_t>(std::ranges::max_element(scores) - scores.begin());
  REQUIRE(slowest != optimum_index());
  const std::vector<std::uint64_t> first = {slowest};

  for (const std::uint64_t seed : {1, 2}) {
    const auto led = indices(make_strategy("surrogate")->run(candidates(), &measured_elsewhere, measure, {.evaluations = 4}, seed, first));
    REQUIRE(led.size() == 4);
    CHECK(led[0] == optimum_index());
    CHECK(led[1] == slowest);
    CHECK(std::set(led.begin(), led.end()).size() == 4);
  }
  // A start candidate predicted nearly as fast as the optimum.
  std::optional<std::uint64_t> close;
  for (std::uint64_t c = 0; c < scores.size() && !close; ++c)
    if (c != optimum_index() && scores[c] < 1.1 * scores[optimum_index()]) close = c;
  REQUIRE(close);
  const std::vector<std::uint64_t> close_first = {*close};
  const auto kept = indices(make_strategy("surrogate")->run(candidates(), &measured_elsewhere, measure, {.evaluations = 2}, 1, close_first));
  REQUIRE(kept.size() == 2);
  CHECK(kept[0] == *close);
  CHECK(kept[1] == optimum_index());

  for (const std::string& name : strategy_names()) {
    if (name == "surrogate") continue;
    INFO(name);
    const auto started = indices(make_strategy(name)->run(candidates(), &measured_elsewhere, measure, {.evaluations = 3}, 1, first));
    REQUIRE_FALSE(started.empty());
    CHECK(started[0] == slowest);
  }
}

// The model's own guesses predict the start candidate (tune's default) far
// slower than their favourite: the search does not measure it, and hands it
// to its driver once asked (tune measures it after the search).
TEST_CASE("The model's guesses put off a start candidate they predict much slower than their favourite") {
  const auto scores = perfect_scores();
  const auto slowest = static_cast<std::uint64_t>(std::ranges::max_element(scores) - scores.begin());
  REQUIRE(scores[slowest] >= kGuessedPutOffMargin * scores[optimum_index()]);
  const std::vector<std::uint64_t> first = {slowest};

  for (const std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    const auto search = make_strategy("surrogate")->start(candidates(), &perfect_model(), seed, first);
    std::vector<std::uint64_t> proposed;
    for (int i = 0; i < 20; ++i) {
      const auto candidate = search->propose();
      REQUIRE(candidate);
      proposed.push_back(*candidate);
      search->tell(*candidate, measure(*candidate));
    }
    CHECK(proposed[0] == optimum_index());
    CHECK(std::ranges::find(proposed, slowest) == proposed.end());
    CHECK(search->put_off() == std::vector<std::uint64_t>{slowest});
    CHECK(search->put_off().empty());  // handed over once
    search->tell(slowest, measure(slowest));
    for (int i = 0; i < 5; ++i) CHECK(search->propose() != slowest);
    // A replay (Strategy::run) never measures it.
    const auto replayed = indices(make_strategy("surrogate")->run(candidates(), &perfect_model(), measure, {.evaluations = 20}, seed, first));
    CHECK(std::ranges::find(replayed, slowest) == replayed.end());
  }

  // Within the margin of the favourite (the slowest such): measured first, nothing put off.
  const auto within = near_optimum();
  REQUIRE_FALSE(within.empty());
  const std::uint64_t close = *std::ranges::max_element(within, {}, [&](std::uint64_t c) { return scores[c]; });
  const auto near = make_strategy("surrogate")->start(candidates(), &perfect_model(), 1, std::vector<std::uint64_t>{close});
  CHECK(near->propose() == close);
  CHECK(near->put_off().empty());

  // Guesses that do not count the kernel's work, and every other strategy: the start candidate first.
  ModelScores without_work = perfect_model();
  without_work.count_work = false;
  CHECK(make_strategy("surrogate")->start(candidates(), &without_work, 1, first)->propose() == slowest);
  for (const std::string& name : strategy_names()) {
    if (name == "surrogate") continue;
    INFO(name);
    const auto search = make_strategy(name)->start(candidates(), &perfect_model(), 1, first);
    CHECK(search->propose() == slowest);
    CHECK(search->put_off().empty());
  }
}

// A grid-stride kernel: block_size x blocks_per_sm threads stay on each SM,
// and its fastest launches keep 1,024 of them there whatever the block size
// (as sums of squares do on an H100), where the model predicts the fully
// occupied SM fastest. Each launch's count of resident warps lets the
// surrogate carry what it measured of one launch over to the others that keep
// as many warps, a product no parameter names.
TEST_CASE("The surrogate learns how fast each count of resident warps is") {
  SearchSpace space;
  const auto integers = [](std::initializer_list<std::int64_t> values) { return std::vector<Value>(values.begin(), values.end()); };
  space.add_parameter({"block_size", integers({64, 128, 256, 512, 1024})});
  space.add_parameter({"items", integers({1, 2, 4, 8, 16})});
  space.add_parameter({"blocks_per_sm", integers({1, 2, 4, 8, 16})});
  space.add_constraint("block_size * blocks_per_sm <= 2048");
  const std::vector<Config> grid_stride = space.enumerate();
  const ListedCandidates grid_candidates(grid_stride);
  const auto threads = [&](std::uint64_t c) { return static_cast<double>(grid_stride[c].get_int("block_size") * grid_stride[c].get_int("blocks_per_sm")); };
  const auto time_with_best = [&](std::uint64_t c, double best_threads) {
    const auto items = static_cast<double>(grid_stride[c].get_int("items"));
    return 1e-3 * (1 + 0.1 * std::abs(std::log2(threads(c) / best_threads)) + 0.01 * std::abs(std::log2(items / 4)));
  };
  const Evaluator measure_grid_stride = [&](std::uint64_t c) { return Evaluation{time_with_best(c, 1024), 1.0}; };
  std::vector<double> guesses;
  for (std::uint64_t c = 0; c < grid_stride.size(); ++c) guesses.push_back(time_with_best(c, 2048));
  const ModelScores model = listed(guesses);
  ModelScores with_resident = model;
  std::map<std::uint64_t, int> asked;  // per candidate, how often its count was asked for
  with_resident.resident_warps = [&](std::uint64_t c) {
    ++asked[c];
    return static_cast<int>(threads(c) / 32);
  };

  // Over 20 seeds: how many of the first 15 measurements keep 1,024 threads on an SM.
  const auto measured_at_1024 = [&](const ModelScores& scores) {
    int total = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed)
      for (const auto& [candidate, evaluation] : make_strategy("surrogate")->run(grid_candidates, &scores, measure_grid_stride, {.evaluations = 15}, seed).history)
        total += threads(candidate) == 1024;
    return total;
  };
  const double without = measured_at_1024(model), with = measured_at_1024(with_resident);
  INFO("of 300 measurements at 1,024 threads per SM, without the counts: " << without << ", with them: " << with);
  CHECK(with >= 1.2 * without);  // 97 without, 128 with at the precision chosen

  // A refined score (the compiled variant's resources) asks for the candidate's count again.
  const auto search = make_strategy("surrogate")->start(grid_candidates, &with_resident, 1);
  const auto candidate = search->propose();
  REQUIRE(candidate);
  const int before = asked[*candidate];
  search->refine_score(*candidate, guesses[*candidate]);
  CHECK(asked[*candidate] == before + 1);
}

TEST_CASE("The surrogate asks a candidate's resident warps next to its score: a model may plan each candidate once") {
  // Every call of the model, in order: 's' for a score, 'r' for a count of resident warps.
  std::vector<std::pair<char, std::uint64_t>> asked;
  const ModelScores model{.score = [&](std::uint64_t c) {
                            asked.emplace_back('s', c);
                            return 1e-3 * (1.0 + static_cast<double>(c % 97) / 97.0);
                          },
                          .are_times = true,
                          .resident_warps = [&](std::uint64_t c) {
                            asked.emplace_back('r', c);
                            return static_cast<int>(8 * (1 + c % 8));
                          }};
  const auto each_count_next_to_its_score = [&] {
    for (std::size_t i = 0; i < asked.size(); ++i) {
      if (asked[i].first != 'r') continue;
      const bool after = i > 0 && asked[i - 1] == std::pair('s', asked[i].second);
      const bool before = i + 1 < asked.size() && asked[i + 1] == std::pair('s', asked[i].second);
      if (!after && !before) return false;
    }
    return true;
  };

  SECTION("a space searched whole: each candidate once, score then count, before the first proposal") {
    const auto search = make_strategy("surrogate")->start(candidates(), &model, 1);
    REQUIRE(asked.size() == 2 * configs().size());
    for (std::uint64_t c = 0; c < configs().size(); ++c) {
      CHECK(asked[2 * c] == std::pair('s', c));
      CHECK(asked[2 * c + 1] == std::pair('r', c));
    }
    for (int i = 0; i < 10; ++i) {
      const auto candidate = search->propose();
      REQUIRE(candidate);
      search->tell(*candidate, measure(*candidate));
    }
    CHECK(asked.size() == 2 * configs().size());  // the search itself asks nothing more
    const auto refined = search->propose();
    REQUIRE(refined);
    search->refine_score(*refined, 2e-3);
    CHECK(asked.size() == 2 * configs().size() + 1);  // the refined candidate's count, asked again
    CHECK(asked.back() == std::pair('r', *refined));
  }

  SECTION("a larger space, sampled: every count asked next to the same candidate's score") {
    std::vector<Value> sixteen;
    for (std::int64_t value = 1; value <= 16; ++value) sixteen.emplace_back(value);
    SearchSpace large;
    for (const char* name : {"a", "b", "c", "d"}) large.add_parameter({name, sixteen});
    const ConstrainedSpace space(large);
    REQUIRE(space.size() == 65536);  // over kWholeSpaceLimit
    const auto search = make_strategy("surrogate")->start(space, &model, 1);
    for (int i = 0; i < 20; ++i) {
      const auto candidate = search->propose();
      REQUIRE(candidate);
      search->tell(*candidate, Evaluation{1e-3, 1.0});
    }
    const auto counts = std::ranges::count(asked, 'r', &std::pair<char, std::uint64_t>::first);
    CHECK(counts >= 4096);  // the pool's sample
    CHECK(counts < 8192);   // nothing like the space
    CHECK(each_count_next_to_its_score());
  }
}
