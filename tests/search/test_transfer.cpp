#include <catch2/catch.hpp>

#include <blocktune/transfer.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace blocktune;

namespace {

// Configurations "x=0" .. "x=n-1", each measured ratio_of(i) times its prediction of 1 ms.
template <typename Ratio>
std::vector<MeasuredAndPredicted> measured(int n, Ratio ratio_of) {
  std::vector<MeasuredAndPredicted> out;
  for (int i = 0; i < n; ++i) out.push_back({"x=" + std::to_string(i), 1e-3 * ratio_of(i), 1e-3});
  return out;
}

}  // namespace

TEST_CASE("a size transfer scales a measured configuration by its measured over predicted time there", "[transfer]") {
  const auto transfer = SizeTransfer::from(measured(10, [](int i) { return 1.0 + i; }));
  REQUIRE(transfer);
  CHECK(transfer->configurations() == 10);
  CHECK(transfer->factor("x=0") == Approx(1.0));
  CHECK(transfer->factor("x=9") == Approx(10.0));
  // Not measured there: the geometric mean of the ten ratios, 10!^(1/10).
  double log_sum = 0;
  for (int i = 1; i <= 10; ++i) log_sum += std::log(double(i));
  CHECK(transfer->factor("x=42") == Approx(std::exp(log_sum / 10)));
}

TEST_CASE("a size transfer keeps half the model's difference between the two sizes, in logarithms", "[transfer]") {
  // All ten measured 2 ms there, predicted 1 ms there; here the model predicts the even ones 4 ms, the odd ones 1 ms.
  std::vector<MeasuredAndPredicted> some = measured(10, [](int) { return 2.0; });
  for (std::size_t i = 0; i < some.size(); ++i) some[i].predicted_here_seconds = i % 2 ? 1e-3 : 4e-3;
  const auto transfer = SizeTransfer::from(some);
  REQUIRE(transfer);
  const ModelScores model{[](std::uint64_t candidate) { return candidate % 2 ? 1e-3 : 4e-3; }, true, false};
  const ModelScores scores = transferred_scores(model, *transfer, [](std::uint64_t candidate) { return "x=" + std::to_string(candidate); }, 10);
  // Measured alike there, 4x apart in the model's eyes here: 2x apart (m (q / p)^0.5: 2 ms x 2 and 2 ms x 1).
  CHECK(scores.score(0) == Approx(4e-3));
  CHECK(scores.score(1) == Approx(2e-3));
  // Without a prediction here the ratio is the plain one.
  some[0].predicted_here_seconds = 0;
  CHECK(SizeTransfer::from(some)->factor("x=0") == Approx(2.0));
}

TEST_CASE("a size transfer needs ten configurations with both times, and skips the others", "[transfer]") {
  CHECK_FALSE(SizeTransfer::from(measured(9, [](int) { return 2.0; })));
  std::vector<MeasuredAndPredicted> some = measured(10, [](int) { return 2.0; });
  some[3].measured_seconds = 0;                                  // failed there
  CHECK_FALSE(SizeTransfer::from(some));
  some.push_back({"x=10", 4e-3, 2e-3});
  some.push_back({"x=11", 1e-3, std::nan("")});                  // no prediction
  some.push_back({"x=12", 1e-3, 0});
  const auto transfer = SizeTransfer::from(some);
  REQUIRE(transfer);
  CHECK(transfer->configurations() == 10);
  CHECK(transfer->factor("x=3") == Approx(2.0));  // the typical ratio, all of them 2
  CHECK(transfer->factor("x=11") == Approx(2.0));
}

TEST_CASE("transferred scores multiply the model's by the factor of each candidate's configuration", "[transfer]") {
  const auto transfer = SizeTransfer::from(measured(10, [](int i) { return i < 5 ? 0.5 : 2.0; }));
  REQUIRE(transfer);
  const ModelScores model{[](std::uint64_t candidate) { return 1e-3 * double(candidate + 1); }, true, false};
  const auto config_of = [](std::uint64_t candidate) { return "x=" + std::to_string(candidate); };
  const ModelScores scores = transferred_scores(model, *transfer, config_of, 21);
  CHECK(scores.score(0) == Approx(0.5e-3));
  CHECK(scores.score(7) == Approx(16e-3));
  CHECK(scores.score(20) == Approx(21e-3));  // not measured there: the typical ratio, 1
  CHECK(scores.are_times);
  // Measured over predicted times carry the work a kernel's counts may leave out.
  CHECK(scores.count_work);
  // 10 measured of 21 candidates: most scores are the model's guesses.
  CHECK_FALSE(scores.measured);
}

TEST_CASE("transferred scores are measured ones where the other size measured nearly as many configurations", "[transfer]") {
  const auto transfer = SizeTransfer::from(measured(10, [](int) { return 2.0; }));
  REQUIRE(transfer);
  const ModelScores model{[](std::uint64_t candidate) { return 1e-3 * double(candidate + 1); }, true, true};
  const auto config_of = [](std::uint64_t candidate) { return "x=" + std::to_string(candidate); };
  CHECK(transferred_scores(model, *transfer, config_of, 10).measured);
  CHECK(transferred_scores(model, *transfer, config_of, 11).measured);  // 10 >= 0.9 x 11
  CHECK_FALSE(transferred_scores(model, *transfer, config_of, 12).measured);
  CHECK_FALSE(model.measured);  // the model's own scores are guesses
}

TEST_CASE("a size transfer measures how differently the model ranks the configurations at the two sizes", "[transfer]") {
  // Predicted here 0.9 or 1.1 times the prediction there, alternately: log ratios of spread ln(1.1/0.9) / 2.
  std::vector<MeasuredAndPredicted> some = measured(10, [](int) { return 2.0; });
  for (std::size_t i = 0; i < some.size(); ++i) some[i].predicted_here_seconds = some[i].predicted_seconds * (i % 2 ? 1.1 : 0.9);
  const auto apart = SizeTransfer::from(some);
  REQUIRE(apart);
  CHECK(apart->model_distance() == Approx(std::log(1.1 / 0.9) / 2));
  // Every prediction here the one there scaled: the model sees the sizes alike.
  for (MeasuredAndPredicted& m : some) m.predicted_here_seconds = 3 * m.predicted_seconds;
  CHECK(SizeTransfer::from(some)->model_distance() == Approx(0).margin(1e-12));
  // Fewer than ten with a prediction here: unknown, as far as it can be.
  some[0].predicted_here_seconds = 0;
  const auto unknown = SizeTransfer::from(some);
  REQUIRE(unknown);
  CHECK(std::isinf(unknown->model_distance()));
  CHECK(unknown->configurations() == 10);  // the correction itself needs no prediction here
}

TEST_CASE("of the nearest sizes, the correction is taken from the one the model sees most alike", "[transfer]") {
  // Ten sizes, nearest in element count first by index; each one's model distance as given.
  const std::vector<std::int64_t> size{4096};
  std::vector<std::vector<std::int64_t>> sizes;
  for (std::int64_t i = 0; i < 10; ++i) sizes.push_back({4096 << (i + 1)});
  std::vector<double> spread(10, 0.2);
  std::vector<std::size_t> asked;
  const auto measured_at = [&](std::size_t i) {
    asked.push_back(i);
    std::vector<MeasuredAndPredicted> out = measured(10, [](int) { return 2.0; });
    for (std::size_t c = 0; c < out.size(); ++c) out[c].predicted_here_seconds = out[c].predicted_seconds * std::exp(c % 2 ? spread[i] : -spread[i]);
    return out;
  };
  // All alike to the model: the nearest in element count.
  auto chosen = nearest_size_transfer(sizes, size, measured_at);
  REQUIRE(chosen);
  CHECK(chosen->index == 0);
  CHECK(chosen->transfer.model_distance() == Approx(0.2));
  CHECK(chosen->compared == kSizesCompared);
  // A farther size the model sees more alike is preferred...
  spread[5] = 0.05;
  chosen = nearest_size_transfer(sizes, size, measured_at);
  CHECK(chosen->index == 5);
  CHECK(chosen->nearest_model_distance == Approx(0.2));  // the nearest's, for tune's note
  // ... unless its distance is within kModelDistanceTolerance of a nearer one's.
  spread[3] = 0.05 + 0.5 * kModelDistanceTolerance;
  CHECK(nearest_size_transfer(sizes, size, measured_at)->index == 3);
  spread[3] = 0.2;
  // ... among the kSizesCompared nearest only: the ninth and tenth are never read.
  spread[5] = 0.2;
  spread[8] = 0;
  asked.clear();
  CHECK(nearest_size_transfer(sizes, size, measured_at)->index == 0);
  CHECK(asked == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7});
  // Without the model's predictions here no size is seen as more alike than another: the nearest.
  const auto unpredicted = [&](std::size_t i) {
    auto out = measured_at(i);
    for (MeasuredAndPredicted& m : out) m.predicted_here_seconds = 0;
    return out;
  };
  CHECK(nearest_size_transfer(sizes, size, unpredicted)->index == 0);
  // A size with too few measurements is not one of them: the next one is read in its place.
  const auto some_too_few = [&](std::size_t i) { return i == 2 ? measured(9, [](int) { return 2.0; }) : measured_at(i); };
  asked.clear();
  CHECK(nearest_size_transfer(sizes, size, some_too_few)->index == 8);
  CHECK(asked == std::vector<std::size_t>{0, 1, 3, 4, 5, 6, 7, 8});
}

TEST_CASE("a size transfer averaged with others takes each configuration's ratio relative to each size's typical one", "[transfer]") {
  // Here: ratios 1 and 4 alternately (typical 2). Another size: the model twice as far off overall (typical 4), with
  // "x=0" measured at its typical ratio and one configuration only it measured.
  const auto here = SizeTransfer::from(measured(10, [](int i) { return i % 2 ? 4.0 : 1.0; }));
  std::vector<MeasuredAndPredicted> other_measured = measured(10, [](int i) { return i % 2 ? 8.0 : 2.0; });
  other_measured[0].measured_seconds = 4e-3;
  other_measured.push_back({"x=10", 8e-3, 1e-3});
  const auto other = SizeTransfer::from(other_measured);
  REQUIRE(here);
  REQUIRE(other);
  const double other_typical = other->factor("x=42");
  const SizeTransfer* const others[] = {&*other};
  const SizeTransfer averaged = here->averaged_with(others);
  // x=1: 4/2 here and 8/typical there, relative; the geometric mean, times the typical ratio here.
  CHECK(averaged.factor("x=1") == Approx(2 * std::sqrt(2.0 * 8 / other_typical)));
  // x=0: half the typical ratio here, the typical one there: pulled halfway (in logarithms) towards the typical.
  CHECK(averaged.factor("x=0") == Approx(2 * std::sqrt(0.5 * 4 / other_typical)));
  CHECK(averaged.factor("x=10") == Approx(2 * 8 / other_typical));  // measured there only
  CHECK(averaged.factor("x=42") == Approx(2.0));                    // measured nowhere: the typical ratio here
  CHECK(averaged.configurations() == 11);
  CHECK(averaged.model_distance() == here->model_distance());
  // Averaged with none, it is itself.
  CHECK(here->averaged_with({}).factor("x=1") == Approx(4.0));
}

TEST_CASE("a correction averages the chosen size with the next sizes the model sees alike", "[transfer]") {
  // Eight sizes nearest first by index; size i measures "x=0" i + 1 times its typical ratio (2), the others at it.
  const std::vector<std::int64_t> size{4096};
  std::vector<std::vector<std::int64_t>> sizes;
  for (std::int64_t i = 0; i < 8; ++i) sizes.push_back({4096 << (i + 1)});
  std::vector<double> spread(8, 0.05);
  const auto measured_at = [&](std::size_t i) {
    std::vector<MeasuredAndPredicted> out = measured(20, [](int) { return 2.0; });
    out[0].measured_seconds *= double(i + 1);
    for (std::size_t c = 0; c < out.size(); ++c) out[c].predicted_here_seconds = out[c].predicted_seconds * std::exp(c % 2 ? spread[i] : -spread[i]);
    return out;
  };
  const auto relative_x0 = [](const NearestTransfer& chosen) { return chosen.transfer.factor("x=0") / chosen.transfer.factor("x=42"); };
  // All alike: the nearest, averaged with the next kSizesAveraged - 1.
  static_assert(kSizesAveraged == 3);
  auto chosen = nearest_size_transfer(sizes, size, measured_at);
  REQUIRE(chosen);
  CHECK(chosen->index == 0);
  CHECK(chosen->averaged_with == std::vector<std::size_t>{1, 2});
  // Relative to the typical ratio, x=0 is the geometric mean of what each of the three sizes measured alone.
  std::vector<double> alone;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto transfer = SizeTransfer::from(measured_at(i));
    alone.push_back(transfer->factor("x=0") / transfer->factor("x=42"));
  }
  CHECK(relative_x0(*chosen) == Approx(std::cbrt(alone[0] * alone[1] * alone[2])));
  // A size the model sees otherwise is skipped, not averaged: the next alike one in its place.
  spread[1] = 0.05 + 2 * kModelDistanceTolerance;
  chosen = nearest_size_transfer(sizes, size, measured_at);
  CHECK(chosen->index == 0);
  CHECK(chosen->averaged_with == std::vector<std::size_t>{2, 3});
  // Only the chosen one alike: nothing averaged in.
  std::ranges::fill(spread, 0.3);
  spread[4] = 0.05;
  chosen = nearest_size_transfer(sizes, size, measured_at);
  CHECK(chosen->index == 4);
  CHECK(chosen->averaged_with.empty());
  CHECK(relative_x0(*chosen) == Approx(SizeTransfer::from(measured_at(4))->factor("x=0") / SizeTransfer::from(measured_at(4))->factor("x=42")));
}

TEST_CASE("problem sizes are taken nearest in element count first", "[transfer]") {
  const std::vector<std::vector<std::int64_t>> sizes{{1024, 1024}, {4096}, {512, 512, 512}, {2100}, {8192}};
  const std::vector<std::int64_t> size{4096};
  CHECK(nearest_sizes_first(sizes, size) == std::vector<std::size_t>{1, 3, 4, 0, 2});
  const std::vector<std::vector<std::int64_t>> tied{{8192}, {1000}, {8192}};
  CHECK(nearest_sizes_first(tied, size) == std::vector<std::size_t>{0, 2, 1});  // the same size: in order
  CHECK(nearest_sizes_first({}, size).empty());
  // The same element count in another shape first.
  const std::vector<std::vector<std::int64_t>> shapes{{1536, 1024}, {1024, 2048}, {1024, 1024}};
  const std::vector<std::int64_t> wide{2048, 1024};
  CHECK(nearest_sizes_first(shapes, wide) == std::vector<std::size_t>{1, 0, 2});
}
