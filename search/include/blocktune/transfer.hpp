#pragma once
// What another problem size of the same kernel measured on the same device,
// as a correction of the model's predictions for this one. Where the model is
// wrong for a configuration, it is wrong in much the same way at a
// neighbouring size (developed on every recorded space but the fourteenth
// held-out set: bench/results/search-calibration/size-transfer/).

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
// there, both per time step.
struct MeasuredAndPredicted {
  std::string config;  // Config::to_string()
  double measured_seconds = 0;
  double predicted_seconds = 0;
};

// A configuration predicted p here is scored p times its measured/predicted
// ratio at the other size; one not measured there, p times the geometric
// mean of those ratios, so that it keeps its place among the others.
class SizeTransfer {
 public:
  // Fewer configurations with both times positive and finite say too little.
  static constexpr std::size_t kMinimumConfigurations = 10;

  static std::optional<SizeTransfer> from(std::span<const MeasuredAndPredicted> measured);

  double factor(std::string_view config) const;
  std::size_t configurations() const { return ratios_.size(); }

 private:
  std::map<std::string, double, std::less<>> ratios_;
  double typical_ratio_ = 1;
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

// The correction `tune` applies: of `sizes`, the nearest to `size` whose
// measurements make a SizeTransfer, its index and the transfer. `measured_at`
// is asked for a size's measurements only as they are needed, nearest first.
struct NearestTransfer {
  std::size_t index = 0;
  SizeTransfer transfer;
};
std::optional<NearestTransfer> nearest_size_transfer(
    std::span<const std::vector<std::int64_t>> sizes, std::span<const std::int64_t> size,
    const std::function<std::vector<MeasuredAndPredicted>(std::size_t index)>& measured_at);

}  // namespace blocktune
