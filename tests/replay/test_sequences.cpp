// Searches made by other tools, scored with the methodology of replay run
// (replay_sequence, search sequence files, `blocktune replay score`).
#include <catch2/catch.hpp>

#include <blocktune/cli_replay.hpp>
#include <blocktune/recording.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <span>
#include <fstream>
#include <numeric>

#include "cli_run.hpp"
#include "replay_cli.hpp"
#include "replay_test_util.hpp"
#include "temp_dir.hpp"

using namespace blocktune;
using blocktune::test::replay_cli;
using blocktune::test::committed_space;
using blocktune::test::TempDir;
using Json = nlohmann::ordered_json;

namespace {

const std::string kKernelTunerCache = BLOCKTUNE_TEST_DATA_DIR "/search/kernel_tuner_cache.json";

std::vector<std::uint64_t> order_of(const SearchResult& result) {
  std::vector<std::uint64_t> order;
  for (const auto& entry : result.history) order.push_back(entry.first);
  return order;
}

double score_of(const RecordedSpace& space, std::span<const std::uint64_t> order) {
  const RandomBaseline random(space);
  return methodology_score(BestSoFar(replay_sequence(space, order)), random, random.budget_seconds());
}

// A sequence file with one run per order, each configuration as its canonical text.
std::string sequences_json(const RecordedSpace& space, const std::vector<std::vector<std::uint64_t>>& orders) {
  Json runs = Json::array();
  for (const auto& order : orders) {
    Json configs = Json::array();
    for (const std::uint64_t i : order) configs.push_back(space.configs[i].to_string());
    runs.push_back({{"name", "seed " + std::to_string(runs.size() + 1)}, {"configs", std::move(configs)}});
  }
  return Json{{"runs", std::move(runs)}}.dump();
}

}  // namespace

TEST_CASE("A sequence that measures the optimum first scores about 1") {
  const RecordedSpace space = read_recording(committed_space("transpose", "8192x8192")).space;
  const RandomBaseline random(space);
  std::uint64_t optimum = 0;
  for (std::uint64_t i = 0; i < space.configs.size(); ++i)
    if (space.time[i] && *space.time[i] == random.optimum()) optimum = i;
  const std::vector<std::uint64_t> order = {optimum};
  // P(t) is 0 until the optimum's cost is paid, 1 from then on.
  const double score = score_of(space, order);
  CHECK(score <= 1.0);
  CHECK(score >= 1 - space.cost_seconds[optimum] / random.budget_seconds() - 0.01);
  CHECK(score > 0.9);
}

TEST_CASE("Random search's own order, given as a sequence, scores what its replay scores") {
  const RecordedSpace space = read_recording(committed_space("stencil3d_r4")).space;
  const RandomBaseline random(space);
  const double budget = random.budget_seconds();
  const auto strategy = make_strategy("random");
  std::vector<std::vector<std::uint64_t>> orders;
  double replayed = 0, squares = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const double score = methodology_score(BestSoFar(replay(space, *strategy, {.seconds = budget}, seed)), random, budget);
    replayed += score;
    squares += score * score;
    orders.push_back(order_of(replay(space, *strategy, {}, seed)));
  }
  const auto sequences = parse_search_sequences(sequences_json(space, orders), space);
  REQUIRE(sequences.size() == 5);
  double scored = 0;
  for (std::size_t run = 0; run < sequences.size(); ++run) {
    CHECK(sequences[run].name == "seed " + std::to_string(run + 1));
    CHECK(sequences[run].candidates == orders[run]);
    scored += score_of(space, sequences[run].candidates);
  }
  CHECK(scored / 5 == Approx(replayed / 5).margin(1e-12));
  std::vector<std::uint64_t> seeds(5);
  std::iota(seeds.begin(), seeds.end(), std::uint64_t{1});
  const ReplaySummary summary = summarize(space, *strategy, seeds);
  CHECK(scored / 5 == Approx(summary.mean_score).margin(1e-12));
  // Its standard error: the seeds' sample standard deviation over sqrt(5).
  const double mean = replayed / 5;
  CHECK(summary.score_standard_error > 0);
  CHECK(summary.score_standard_error == Approx(std::sqrt((squares - 5 * mean * mean) / 4 / 5)).epsilon(1e-9));
  CHECK(summarize(space, *strategy, std::span(seeds).first(1)).score_standard_error == 0);
}

TEST_CASE("A repeated configuration in a sequence costs nothing") {
  const RecordedSpace space = read_recording(committed_space("transpose", "8192x8192")).space;
  const std::vector<std::uint64_t> once = {5, 17, 3, 40, 8};
  const std::vector<std::uint64_t> repeated = {5, 17, 5, 3, 17, 40, 40, 8};
  const SearchResult result = replay_sequence(space, repeated);
  CHECK(order_of(result) == once);
  CHECK(order_of(replay_sequence(space, once)) == once);
  CHECK(score_of(space, repeated) == score_of(space, once));
  double charged = 0;
  for (const auto& entry : result.history) charged += entry.second.cost_seconds;
  CHECK(charged == space.cost_seconds[5] + space.cost_seconds[17] + space.cost_seconds[3] + space.cost_seconds[40] +
                       space.cost_seconds[8]);
  CHECK_THROWS_WITH(replay_sequence(space, std::vector<std::uint64_t>{1, space.configs.size()}),
                    Catch::Contains("position 2"));
}

TEST_CASE("Sequences name configurations by parameter values or text, and unknown ones are errors") {
  const RecordedSpace space = read_kernel_tuner_recording(kKernelTunerCache).space;
  // The cache's values as Kernel Tuner writes them (2.0 for 2, 0.5 as text), the text in any parameter order.
  const auto sequences = parse_search_sequences(R"({"tool": "kernel_tuner", "runs": [
      {"name": "a", "configs": [{"fraction": 0.5, "tile": 2.0, "variant": "vec4", "block_size_x": 128},
                                "tile=1,block_size_x=64,variant=plain,fraction=0.5"]},
      {"configs": []}]})",
                                                space);
  REQUIRE(sequences.size() == 2);
  CHECK(sequences[0].name == "a");
  CHECK(sequences[0].candidates == std::vector<std::uint64_t>{3, 0});
  CHECK(sequences[1].name == "run 2");
  CHECK(sequences[1].candidates.empty());

  const auto fails_with = [&](const std::string& text, const std::string& what) {
    CHECK_THROWS_WITH(parse_search_sequences(text, space), what);
  };
  fails_with(R"({"runs": [{"configs": []}, {"name": "ga seed 2", "configs": ["block_size_x=64,tile=1,variant=plain,fraction=0.5",
             {"block_size_x": 1024, "tile": 2, "variant": "vec4", "fraction": 0.5}]}]})",
             "ga seed 2, configuration 2 of 2: block_size_x=1024,tile=2,variant=vec4,fraction=0.5 is not a "
             "configuration of the space");
  fails_with(R"({"runs": [{"configs": [{"block_size_x": 64, "tile": 1, "variant": "plain"}]}]})",
             "run 1, configuration 1 of 1: it has no value for parameter 'fraction'");
  fails_with(R"({"runs": [{"configs": [{"block_size_x": 64, "tile": 1, "variant": "plain", "fraction": 0.5, "z": 1}]}]})",
             "run 1, configuration 1 of 1: the space has no parameter 'z'");
  fails_with(R"({"runs": [{"configs": [[64, 1]]}]})",
             "run 1, configuration 1 of 1: [64,1] is neither an object of parameter values nor a configuration's text");
  fails_with(R"({"runs": [{"name": "x"}]})", "x has no \"configs\" list");
  fails_with(R"([1, 2])", "it is not a list of search sequences: it has no \"runs\" list");
  fails_with("{", "it is not JSON");
}

TEST_CASE("replay score prints the space's budget and each run's score as JSON") {
  const TempDir dir;
  const auto space_file = committed_space("transpose", "8192x8192");
  const RecordedSpace space = read_recording(space_file).space;
  const RandomBaseline random(space);

  const auto facts = replay_cli({"score", "--space", space_file.string()});
  INFO(facts.err);
  REQUIRE(facts.code == 0);
  const Json budget = Json::parse(facts.out);
  CHECK(budget["configurations"] == space.configs.size());
  CHECK(budget["budget_s"].get<double>() == random.budget_seconds());
  CHECK(budget["mean_cost_s"].get<double>() == random.mean_cost());
  CHECK(budget["random_evaluations_in_budget"] == random.draws_by(random.budget_seconds()));
  CHECK(!budget.contains("runs"));

  const std::vector<std::uint64_t> first = {5, 17, 5, 3}, second = {40, 8};
  const auto file = dir / "runs.json";
  std::ofstream(file) << sequences_json(space, {first, second});
  const auto output = dir / "scores.json";
  const auto scored =
      replay_cli({"score", "--space", space_file.string(), "--sequences", file.string(), "--output", output.string()});
  INFO(scored.err);
  REQUIRE(scored.code == 0);
  CHECK(scored.out.empty());
  std::ifstream stream(output);
  const Json scores = Json::parse(stream);
  REQUIRE(scores["runs"].size() == 2);
  CHECK(scores["runs"][0]["name"] == "seed 1");
  CHECK(scores["runs"][0]["score"].get<double>() == score_of(space, first));
  CHECK(scores["runs"][0]["evaluations"] == 3);
  CHECK(scores["runs"][0]["repeats"] == 1);
  CHECK(scores["runs"][1]["score"].get<double>() == score_of(space, second));
  CHECK(scores["runs"][1]["covers_budget"] == false);
  CHECK(scores["mean_score"].get<double>() == Approx((score_of(space, first) + score_of(space, second)) / 2));

  std::ofstream(dir / "unknown.json") << R"({"runs": [{"name": "pso seed 3", "configs": ["tile=3,block_rows=8,pad=0,carveout=-1"]}]})";
  const auto unknown = replay_cli({"score", "--space", space_file.string(), "--sequences", (dir / "unknown.json").string()});
  CHECK(unknown.code == 1);
  CHECK_THAT(unknown.err, Catch::Contains("blocktune replay score: search sequences '") &&
                              Catch::Contains("pso seed 3, configuration 1 of 1: tile=3,block_rows=8,pad=0,carveout=-1 "
                                              "is not a configuration of the space"));

  const auto from_cache = replay_cli({"score", "--kernel-tuner-cache", kKernelTunerCache});
  REQUIRE(from_cache.code == 0);
  CHECK(Json::parse(from_cache.out)["configurations"] == 5);
  CHECK(replay_cli({"score"}).code == 2);
  CHECK(replay_cli({"score", "--space", space_file.string(), "--kernel-tuner-cache", kKernelTunerCache}).code == 2);
}

TEST_CASE("replay run writes its results as JSON too") {
  const TempDir dir;
  const auto space_file = committed_space("transpose", "8192x8192");
  const auto file = dir / "run.json";
  const auto ran = replay_cli({"run", "--space", space_file.string(), "--kernel-tuner-cache", kKernelTunerCache,
                               "--strategies", "random,model", "--seeds", "2", "--json", file.string()});
  INFO(ran.err);
  REQUIRE(ran.code == 0);
  std::ifstream stream(file);
  const Json json = Json::parse(stream);
  CHECK(json["seeds"] == 2);
  REQUIRE(json["spaces"].size() == 2);
  const RandomBaseline random(read_recording(space_file).space);
  CHECK(json["spaces"][0]["space"]["budget_s"].get<double>() == random.budget_seconds());
  CHECK(json["spaces"][0]["strategies"]["random"]["score"].is_number());
  CHECK(json["spaces"][0]["strategies"]["random"]["score_standard_error"].get<double>() >= 0);
  CHECK(json["spaces"][1]["strategies"]["model"].is_null());  // no model scores in a Kernel Tuner cache
  CHECK_THAT(ran.out, Catch::Contains("score +- s.e."));
}
