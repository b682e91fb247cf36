#pragma once
// What another problem size of the same kernel measured on the same device,
// as a correction of the model's predictions for this one. Where the model is
// wrong for a configuration, it is wrong in much the same way at a
// neighbouring size (developed on every recorded space but the fourteenth
// held-out set: bench/results/search-calibration/size-transfer/), and most
// where the model itself sees the two sizes alike
// (bench/results/search-calibration/model-nearest-size/).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blocktune/strategy.hpp"

namespace blocktune {

// A configuration measured at the other size, with the model's prediction
// there and at the size being tuned (0 where it has none: its ratio is then
// the plain one), all per time step.
struct MeasuredAndPredicted {
  std::string config;  // Config::to_string()
  double measured_seconds = 0;
  double predicted_seconds = 0;
  double predicted_here_seconds = 0;
};

// How much of the model's difference between the two sizes a correction
// keeps, per configuration, in logarithms: a configuration measured m there,
// where the model predicts p there and q here, is scored m (q / p)^weight.
// At 1 (the plain ratio: q times m / p) the model's size effects count in
// full and its errors in them with them: the 40-deep grid's z walks, the
// tiles of a smaller matrix. At 0 the other size's measured ranking stands,
// and a matrix product's best tiles at one shape were taken for another's.
// Half gained over 1 and 0 on the recordings of the correction's development
// and on those held out from it (bench/results/search-calibration/model-size-effect/).
inline constexpr double kModelSizeEffectWeight = 0.5;

// A configuration predicted q here is scored q times its factor: its
// measured/predicted ratio at the other size, times (p / q)^(1 -
// kModelSizeEffectWeight) where the model predicts it p there; one not
// measured there, q times the geometric mean of those factors, so that it
// keeps its place among the others.
class SizeTransfer {
 public:
  // Fewer configurations with both times positive and finite say too little.
  static constexpr std::size_t kMinimumConfigurations = 10;

  static std::optional<SizeTransfer> from(std::span<const MeasuredAndPredicted> measured);

  double factor(std::string_view config) const;
  std::size_t configurations() const { return ratios_.size(); }
  // How differently the model ranks the configurations at the two sizes: the
  // spread (standard deviation) of the logarithms of their predicted times
  // here over there; infinite where fewer than kMinimumConfigurations have
  // both predictions. 0 where the model sees one size as the other scaled.
  double model_distance() const { return model_distance_; }

  // This transfer with each configuration's ratio averaged (a geometric mean)
  // with the ratios `others` measured for it, each taken relative to its own
  // transfer's typical ratio (the model's overall error differs from size to
  // size; what carries over is how each configuration departs from it). One
  // size's measurement noise then weighs less where the space is flat. The
  // model distance and typical ratio stay this one's.
  SizeTransfer averaged_with(std::span<const SizeTransfer* const> others) const;

 private:
  std::map<std::string, double, std::less<>> ratios_;
  double typical_ratio_ = 1;
  double model_distance_ = 0;
};

// Where the other size measured at least this share of as many configurations
// as the space has candidates, nearly every candidate's score is a
// measurement (ModelScores::measured); where fewer, the model's guesses
// scaled. (By count, not by matching each candidate: a space may be too large
// to list.)
inline constexpr double kMeasuredShare = 0.9;

// `model`'s scores (predicted times) times the transfer's factor for each
// candidate's configuration, of a space of `candidates`. They count the
// kernel's work (ModelScores::count_work) even where the model's do not:
// measured times carry it.
ModelScores transferred_scores(ModelScores model, SizeTransfer transfer,
                               std::function<std::string(std::uint64_t candidate)> config_of, std::uint64_t candidates);

// Indices of `sizes` (problem dimensions), nearest to `size` first: by the
// ratio of their element counts (products of the dimensions), ties in order.
std::vector<std::size_t> nearest_sizes_first(std::span<const std::vector<std::int64_t>> sizes, std::span<const std::int64_t> size);

// How many of the sizes nearest in element count nearest_size_transfer
// compares (each one's measurements are read): a bound on the cost where a
// database holds many sizes; 8 found nearly all of the gain of comparing every
// size on the flushed development sets.
inline constexpr std::size_t kSizesCompared = 8;

// Model distances closer than this to the lowest count as equal: differences
// of the order of the model's own size effects on a bandwidth-bound kernel
// (0.000-0.005 between the sums of squares' sizes) said nothing of which
// size's errors carry over, and chose worse than the element count there.
inline constexpr double kModelDistanceTolerance = 0.01;

// How many of the sizes the model sees alike a correction averages (the
// chosen one and the next ones in element count): three gained on every set
// timed with the L2 flushed (tune's default), held out included; all of them
// (up to kSizesCompared) lost on the warm sums of squares, and three lost a
// little there too with one recording per size
// (bench/results/search-calibration/sizes-averaged/).
inline constexpr std::size_t kSizesAveraged = 3;

// The correction `tune` applies: of the kSizesCompared sizes nearest to `size`
// in element count whose measurements make a SizeTransfer, the nearest of
// those the model sees most alike (a model_distance() within
// kModelDistanceTolerance of the lowest), its index and the transfer,
// averaged with up to kSizesAveraged - 1 more of those alike sizes, nearest
// first. Where the element count alone chose, the best tiles of a matrix
// product at one shape were taken for another's
// (bench/results/search-calibration/model-nearest-size/). `measured_at` is
// asked for a size's measurements only as they are needed, nearest first.
struct NearestTransfer {
  std::size_t index = 0;
  SizeTransfer transfer;
  std::vector<std::size_t> averaged_with;  // indices of the other sizes averaged in, nearest first
  std::size_t compared = 1;                // how many sizes it was chosen among
  double nearest_model_distance = 0;       // that of the nearest of them in element count (so a note can say why)
};
std::optional<NearestTransfer> nearest_size_transfer(
    std::span<const std::vector<std::int64_t>> sizes, std::span<const std::int64_t> size,
    const std::function<std::vector<MeasuredAndPredicted>(std::size_t index)>& measured_at);

}  // namespace blocktune
