#include "blocktune/transfer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace blocktune {

std::optional<SizeTransfer> SizeTransfer::from(std::span<const MeasuredAndPredicted> measured) {
  SizeTransfer transfer;
  double log_sum = 0;
  std::vector<double> log_here_over_there;
  for (const MeasuredAndPredicted& m : measured) {
    double ratio = m.measured_seconds / m.predicted_seconds;
    if (!(m.measured_seconds > 0) || !(m.predicted_seconds > 0) || !std::isfinite(ratio)) continue;
    const double here = m.predicted_here_seconds / m.predicted_seconds;
    const bool predicted_here = m.predicted_here_seconds > 0 && std::isfinite(here);
    if (predicted_here) ratio *= std::pow(here, kModelSizeEffectWeight - 1);
    if (!transfer.ratios_.emplace(m.config, ratio).second) continue;
    log_sum += std::log(ratio);
    if (predicted_here) log_here_over_there.push_back(std::log(here));
  }
  if (transfer.ratios_.size() < kMinimumConfigurations) return std::nullopt;
  transfer.typical_ratio_ = std::exp(log_sum / static_cast<double>(transfer.ratios_.size()));
  transfer.model_distance_ = std::numeric_limits<double>::infinity();
  if (log_here_over_there.size() >= kMinimumConfigurations) {
    const double n = static_cast<double>(log_here_over_there.size());
    const double mean = std::accumulate(log_here_over_there.begin(), log_here_over_there.end(), 0.0) / n;
    double squares = 0;
    for (const double x : log_here_over_there) squares += (x - mean) * (x - mean);
    transfer.model_distance_ = std::sqrt(squares / n);
  }
  return transfer;
}

SizeTransfer SizeTransfer::averaged_with(std::span<const SizeTransfer* const> others) const {
  if (others.empty()) return *this;
  std::map<std::string, std::pair<double, int>, std::less<>> log_sums;  // per configuration: sum of log relative ratios, count
  const auto add = [&](const SizeTransfer& transfer) {
    for (const auto& [config, ratio] : transfer.ratios_) {
      auto& [sum, count] = log_sums[config];
      sum += std::log(ratio / transfer.typical_ratio_);
      ++count;
    }
  };
  add(*this);
  for (const SizeTransfer* other : others) add(*other);
  SizeTransfer averaged;
  averaged.typical_ratio_ = typical_ratio_;
  averaged.model_distance_ = model_distance_;
  for (const auto& [config, sum_count] : log_sums)
    averaged.ratios_.emplace_hint(averaged.ratios_.end(), config, typical_ratio_ * std::exp(sum_count.first / sum_count.second));
  return averaged;
}

double SizeTransfer::factor(std::string_view config) const {
  const auto found = ratios_.find(config);
  return found != ratios_.end() ? found->second : typical_ratio_;
}

ModelScores transferred_scores(ModelScores model, SizeTransfer transfer, std::function<std::string(std::uint64_t)> config_of,
                               std::uint64_t candidates) {
  model.measured = static_cast<double>(transfer.configurations()) >= kMeasuredShare * static_cast<double>(candidates);
  model.score = [score = std::move(model.score), transfer = std::move(transfer), config_of = std::move(config_of)](std::uint64_t candidate) {
    return score(candidate) * transfer.factor(config_of(candidate));
  };
  model.count_work = true;  // the measured times carry the work the kernel's counts may leave out
  return model;
}

std::vector<std::size_t> nearest_sizes_first(std::span<const std::vector<std::int64_t>> sizes, std::span<const std::int64_t> size) {
  // By element count, not dimension by dimension: on the recorded transposes a
  // size in another shape transfers better (bench/results/search-calibration/size-transfer/).
  const auto log_elements = [](std::span<const std::int64_t> dims) {
    double sum = 0;
    for (const std::int64_t d : dims) sum += std::log(static_cast<double>(std::max<std::int64_t>(d, 1)));
    return sum;
  };
  const double target = log_elements(size);
  std::vector<double> distance;
  for (const auto& dims : sizes) distance.push_back(std::abs(log_elements(dims) - target));
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order, {}, [&](std::size_t i) { return distance[i]; });
  return order;
}

std::optional<NearestTransfer> nearest_size_transfer(std::span<const std::vector<std::int64_t>> sizes, std::span<const std::int64_t> size,
                                                     const std::function<std::vector<MeasuredAndPredicted>(std::size_t)>& measured_at) {
  std::vector<NearestTransfer> compared;  // nearest first
  for (const std::size_t i : nearest_sizes_first(sizes, size)) {
    if (compared.size() == kSizesCompared) break;
    if (auto transfer = SizeTransfer::from(measured_at(i))) compared.push_back(NearestTransfer{i, std::move(*transfer)});
  }
  if (compared.empty()) return std::nullopt;
  const double lowest = std::ranges::min(compared, {}, [](const NearestTransfer& c) { return c.transfer.model_distance(); }).transfer.model_distance();
  // (Where no size has predictions here, every distance is infinite and all count as alike: the nearest, averaged
  // with the next ones.)
  const auto seen_alike = [&](const NearestTransfer& c) { return c.transfer.model_distance() <= lowest + kModelDistanceTolerance; };
  const auto alike = std::ranges::find_if(compared, seen_alike);
  std::vector<const SizeTransfer*> also_alike;
  std::vector<std::size_t> also_alike_index;
  for (auto other = alike + 1; other != compared.end() && also_alike.size() + 1 < kSizesAveraged; ++other)
    if (seen_alike(*other)) {
      also_alike.push_back(&other->transfer);
      also_alike_index.push_back(other->index);
    }
  return NearestTransfer{alike->index, alike->transfer.averaged_with(also_alike), std::move(also_alike_index), compared.size(),
                         compared.front().transfer.model_distance()};
}

}  // namespace blocktune
