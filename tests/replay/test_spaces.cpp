// Strategies replayed on the spaces measured on an H100 (tests/data/spaces).
#include <catch2/catch.hpp>

#include <blocktune/recording.hpp>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <optional>
#include <string_view>

#include "replay_test_util.hpp"

using namespace blocktune;
using blocktune::test::committed_space;
using blocktune::test::committed_spaces;

namespace {

std::vector<std::uint64_t> indices(const SearchResult& result) {
  std::vector<std::uint64_t> measured;
  for (const auto& entry : result.history) measured.push_back(entry.first);
  return measured;
}

std::vector<std::uint64_t> seeds(std::uint64_t count) {
  std::vector<std::uint64_t> result(count);
  std::iota(result.begin(), result.end(), std::uint64_t{1});
  return result;
}

// A recorded space and the mean methodology score of replays on it, over its own budget.
struct ScoredSpace {
  explicit ScoredSpace(const std::filesystem::path& file)
      : recording(read_recording(file)),
        model(recorded_model_scores(recording)),
        random(recording.space),
        budget(random.budget_seconds()) {}

  // The mean score of seeds 1..count, with the recorded predictions or without.
  double mean_score(std::string_view strategy, std::uint64_t count, bool with_model) const {
    double sum = 0;
    for (const std::uint64_t seed : seeds(count))
      sum += methodology_score(BestSoFar(replay(recording.space, *make_strategy(strategy), {.seconds = budget}, seed,
                                                with_model ? &*model : nullptr)),
                               random, budget);
    return sum / static_cast<double>(count);
  }

  Recording recording;
  std::optional<ModelScores> model;
  RandomBaseline random;
  double budget;
};

// A space recorded on the GPU machine, by file name (bench/results/spaces).
ScoredSpace held_out_space(std::string_view name) {
  return ScoredSpace(std::filesystem::path(BLOCKTUNE_SOURCE_DIR) / "bench/results/spaces" / name);
}

}  // namespace

TEST_CASE("The analytic random baseline matches random search replayed on a recorded space") {
  RecordedSpace space = read_recording(committed_space("stencil3d_r4")).space;
  space.first.clear();  // uniform random search, as the baseline counts it: not started from the default
  const RandomBaseline random(space);
  const auto strategy = make_strategy("random");

  // Per number of draws: the mean best of many replays against the exact expectation.
  constexpr std::size_t kDraws = 64, kRuns = 2000;
  std::vector<double> total(kDraws + 1, 0.0), total_squares(kDraws + 1, 0.0);
  for (const std::uint64_t seed : seeds(kRuns)) {
    const auto result = replay(space, *strategy, {.evaluations = kDraws}, seed);
    double best = random.slowest();
    for (std::size_t k = 1; k <= kDraws; ++k) {
      best = std::min(best, result.history[k - 1].second.time.value_or(best));
      total[k] += best;
      total_squares[k] += best * best;
    }
  }
  for (const std::size_t k : {1, 2, 4, 8, 16, 32, 64}) {
    INFO("k = " << k);
    const double mean = total[k] / kRuns;
    const double standard_error = std::sqrt((total_squares[k] / kRuns - mean * mean) / kRuns);
    // Deterministic seeds; four standard errors is far from a close call.
    CHECK(std::abs(mean - random.expected_best(k)) < 4 * standard_error);
  }

  // Over time, with each configuration's own cost: random search scores 0 on average.
  const double budget = random.budget_seconds();
  double score = 0;
  for (const std::uint64_t seed : seeds(400))
    score += methodology_score(BestSoFar(replay(space, *strategy, {.seconds = budget}, seed)), random, budget);
  CHECK(std::abs(score / 400) < 0.1);
}

TEST_CASE("Replays on a recorded space are deterministic") {
  const Recording recording = read_recording(committed_space("stencil3d_r1"));
  const auto model = recorded_model_scores(recording);
  REQUIRE(model);
  for (const auto& name : strategy_names()) {
    INFO(name);
    const auto strategy = make_strategy(name);
    const Budget budget{.evaluations = 80};
    const auto first = indices(replay(recording.space, *strategy, budget, 7, &*model));
    CHECK(first.size() == 80);
    CHECK(first == indices(replay(recording.space, *strategy, budget, 7, &*model)));
    if (name != "exhaustive" && name != "model")  // these two ignore the seed by design
      CHECK(first != indices(replay(recording.space, *strategy, budget, 8, &*model)));
  }
}

// The target of issue 5: the default strategy, given the scores the tuner has
// before any GPU time, gets within 97% of the optimum's speed within 10% of
// the evaluations in at least 90% of the (space, seed) runs, and its
// methodology score is clearly better than random search's (above 0.3) on
// every recorded space. The scores are the execution-time model's predictions
// recorded with each space (tests/model keeps them those of today's model).
TEST_CASE("The default strategy meets the target on the recorded spaces") {
  const auto strategy = make_strategy(kDefaultStrategy);
  double near_optimal_runs = 0, runs = 0;
  for (const auto& file : committed_spaces()) {
    INFO(file.filename().string());
    const Recording recording = read_recording(file);
    REQUIRE_FALSE(recording.predicted_seconds.empty());
    const auto model = recorded_model_scores(recording);
    const ReplaySummary summary = summarize(recording.space, *strategy, seeds(30), &*model);
    near_optimal_runs += summary.near_optimal_fraction * static_cast<double>(summary.runs);
    runs += static_cast<double>(summary.runs);
    CHECK(summary.mean_score > 0.3);
  }
  CHECK(committed_spaces().size() >= 10);
  CHECK(near_optimal_runs / runs >= 0.9);
}

// Issue 18, item 2: the model's predictions never make the default strategy
// more than 0.05 worse than the same strategy without them. Checked on the
// small recorded spaces (136-219 configurations), where 100 seeds are cheap:
// the mean over 10 seeds there moves by about 0.1 from seed set to seed set,
// over 100 by about 0.03 (bench/results/anchors-search, "Ten seeds are noisy").
TEST_CASE("The model does not make the default strategy worse than no model on the small recorded spaces") {
  std::size_t small_spaces = 0;
  for (const auto& file : committed_spaces()) {
    const ScoredSpace space(file);
    if (space.recording.space.configs.size() > 1000) continue;
    ++small_spaces;
    INFO(file.filename().string());
    REQUIRE(space.model);
    CHECK(space.mean_score(kDefaultStrategy, 100, true) >= space.mean_score(kDefaultStrategy, 100, false) - 0.05);
  }
  CHECK(small_spaces == 4);
}

// Issue 18, item 2, on a space nobody chose: CLBlast's GEMM, recorded whole on
// an H200 after the default strategy was final (bench/results/spaces). Its spec
// counts only flops, the same for every configuration, so the model ranks the
// space by occupancy alone, backwards:
// measured in the model's order it scores below random search. The default
// still does as well as without it: what it learns per parameter value
// outweighs the model (bench/results/spaces, "CLBlast's GEMM at 2048³").
TEST_CASE("A model that ranks a held-out space backwards does not make the default worse than no model") {
  const ScoredSpace gemm = held_out_space("gemm_cltune-2048x2048x2048-h200.csv.gz");
  REQUIRE(gemm.model);
  CHECK(gemm.mean_score("model", 1, true) < 0);
  const double with_model = gemm.mean_score(kDefaultStrategy, 5, true);
  CHECK(with_model >= gemm.mean_score(kDefaultStrategy, 5, false) - 0.05);
  CHECK(with_model > 0.8);
}

// Two more public kernels, recorded whole on an H200 after the default was
// final and never used to choose anything (bench/results/spaces, "two more
// public kernels"). Kernel Tuner's convolution counts its flops, so `tune`
// searches it with the model, which ranks it weakly (Spearman 0.26, its
// favourite 1,763rd of 1,944): the model must not cost the default more than
// 0.05, and the default must stay well above the genetic strategy.
TEST_CASE("A weakly right model does not make the default worse than no model on a held-out convolution") {
  const ScoredSpace convolution = held_out_space("convolution_small-4096x4096-h200.csv.gz");
  REQUIRE(convolution.model);
  const double with_model = convolution.mean_score(kDefaultStrategy, 30, true);
  CHECK(with_model >= convolution.mean_score(kDefaultStrategy, 30, false) - 0.05);
  CHECK(with_model > convolution.mean_score("genetic", 10, true) + 0.2);
}

// BAT's hotspot and Kernel Tuner's pnpoly count no work, so the model's
// predictions rank occupancy, waves and launch overhead only, and their
// recordings say so (`# predictions: without work counts`). `tune` searches
// with them all the same, learning from them without starting from their
// favourite (bench/results/search-calibration/model-without-work-counts/):
// 10 seeds, pnpoly 0.86 against 0.78 without, hotspot 0.74 against 0.63. The
// default beats random and genetic search by far on both.
TEST_CASE("With the occupancy-only model of a kernel that counts no work, the default does better than without, and than random and genetic search") {
  for (const char* name : {"pnpoly-20000000-h200.csv.gz", "hotspot_small-4096x4096-h200.csv.gz"}) {
    INFO(name);
    const ScoredSpace space = held_out_space(name);
    REQUIRE(space.model);
    CHECK_FALSE(space.model->count_work);
    const double with_model = space.mean_score(kDefaultStrategy, 10, true);
    CHECK(with_model > space.mean_score(kDefaultStrategy, 10, false) + 0.05);
    CHECK(with_model > space.mean_score("random", 10, true) + 0.3);
    CHECK(with_model > space.mean_score("genetic", 10, true) + 0.3);
  }
}

// Every strategy measures the kernel's default configuration first, as tune
// does. On transpose 4096² (recorded on an H200 after that change was final,
// bench/results/search-calibration, "The default configuration first") a
// search without the model started elsewhere opens with configurations several
// times slower than the default and scores about random search's 0; started
// from the default it is well above the 0.6.
TEST_CASE("Starting from the default configuration spares a model-free search a catastrophic start") {
  ScoredSpace transpose = held_out_space("h200-held-out-default/transpose-4096x4096-h200.csv.gz");
  REQUIRE(transpose.recording.space.first.size() == 1);
  const double from_default = transpose.mean_score(kDefaultStrategy, 20, false);
  transpose.recording.space.first.clear();
  const double elsewhere = transpose.mean_score(kDefaultStrategy, 20, false);
  INFO("from the default " << from_default << ", elsewhere " << elsewhere);
  CHECK(from_default > 0.6);
  CHECK(elsewhere < 0.3);
}
