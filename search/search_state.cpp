#include "search_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace blocktune::detail {

std::size_t Random::below(std::size_t n) {
  // Rejection sampling: accept only below the largest multiple of n, so that
  // the remainder is unbiased.
  const std::uint64_t range = n;
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / range * range;
  std::uint64_t draw = engine_();
  while (draw >= limit) draw = engine_();
  return static_cast<std::size_t>(draw % range);
}

double Random::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

Geometry::Geometry(const std::vector<Config>& candidates) {
  if (candidates.empty()) return;
  const auto& first = candidates.front().entries();
  for (const Config& candidate : candidates) {
    const auto& entries = candidate.entries();
    const bool same_names = std::equal(entries.begin(), entries.end(), first.begin(), first.end(),
                                       [](const auto& a, const auto& b) { return a.first == b.first; });
    if (!same_names)
      throw std::invalid_argument(fmt::format("candidates '{}' and '{}' do not name the same parameters",
                                              candidates.front().to_string(), candidate.to_string()));
  }

  // std::variant orders integers before strings, each in their natural order.
  std::vector<std::map<Value, std::uint32_t>> ranks(first.size());
  for (const Config& candidate : candidates)
    for (std::size_t p = 0; p < first.size(); ++p) ranks[p].emplace(candidate.entries()[p].second, 0);
  for (auto& values : ranks) {
    std::uint32_t rank = 0;
    for (auto& entry : values) entry.second = rank++;
    extents_.push_back(rank);
  }

  coordinates_.reserve(candidates.size() * first.size());
  for (const Config& candidate : candidates)
    for (std::size_t p = 0; p < first.size(); ++p) coordinates_.push_back(ranks[p].at(candidate.entries()[p].second));

  sorted_.resize(candidates.size());
  for (std::size_t i = 0; i < sorted_.size(); ++i) sorted_[i] = i;
  std::sort(sorted_.begin(), sorted_.end(), [&](std::size_t a, std::size_t b) {
    const auto x = coordinates(a), y = coordinates(b);
    return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
  });
}

std::span<const std::uint32_t> Geometry::coordinates(std::size_t candidate) const {
  return std::span(coordinates_).subspan(candidate * dimensions(), dimensions());
}

std::optional<std::size_t> Geometry::find(std::span<const std::uint32_t> wanted) const {
  const auto less = [&](std::size_t candidate, std::span<const std::uint32_t> point) {
    const auto x = coordinates(candidate);
    return std::lexicographical_compare(x.begin(), x.end(), point.begin(), point.end());
  };
  const auto found = std::lower_bound(sorted_.begin(), sorted_.end(), wanted, less);
  if (found == sorted_.end() || !std::ranges::equal(coordinates(*found), wanted)) return std::nullopt;
  return *found;
}

std::vector<std::size_t> Geometry::neighbours(std::size_t candidate) const {
  std::vector<std::size_t> result;
  const auto origin = coordinates(candidate);
  std::vector<std::uint32_t> point(origin.begin(), origin.end());
  for (std::size_t p = 0; p < dimensions(); ++p) {
    for (const int step : {-1, 1}) {
      if ((step < 0 && origin[p] == 0) || (step > 0 && origin[p] + 1 == extents_[p])) continue;
      point[p] = step < 0 ? origin[p] - 1 : origin[p] + 1;
      if (const auto neighbour = find(point)) result.push_back(*neighbour);
    }
    point[p] = origin[p];
  }
  return result;
}

SearchState::SearchState(const std::vector<Config>& candidates, const Evaluator& evaluate, const Budget& budget)
    : candidates_(candidates),
      evaluate_(evaluate),
      max_evaluations_(budget.evaluations),
      max_seconds_(budget.seconds),
      times_(candidates.size()),
      unmeasured_(candidates.size()),
      slot_(candidates.size()) {
  if (budget.fraction) {
    // The tolerance keeps 0.1 * 1000 from rounding up to 101.
    const double allowed = std::ceil(*budget.fraction * static_cast<double>(candidates.size()) - 1e-9);
    const auto from_fraction = static_cast<std::size_t>(std::max(allowed, 0.0));
    max_evaluations_ = std::min(max_evaluations_.value_or(from_fraction), from_fraction);
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) unmeasured_[i] = slot_[i] = i;
}

bool SearchState::done() const {
  return unmeasured_.empty() || (max_evaluations_ && history_.size() >= *max_evaluations_) ||
         (max_seconds_ && spent_seconds_ >= *max_seconds_);
}

double SearchState::progress() const {
  double progress = 0;
  if (max_evaluations_)
    progress = *max_evaluations_ == 0 ? 1.0 : static_cast<double>(history_.size()) / static_cast<double>(*max_evaluations_);
  if (max_seconds_) progress = std::max(progress, *max_seconds_ <= 0 ? 1.0 : spent_seconds_ / *max_seconds_);
  if (!max_evaluations_ && !max_seconds_ && !times_.empty())
    progress = static_cast<double>(history_.size()) / static_cast<double>(times_.size());
  return std::min(progress, 1.0);
}

void SearchState::measure(std::size_t candidate) {
  Evaluation evaluation = evaluate_(candidates_[candidate]);
  // A time that cannot be compared (NaN, infinite, negative) is a failure.
  if (evaluation.time && !(std::isfinite(*evaluation.time) && *evaluation.time >= 0)) evaluation.time.reset();
  spent_seconds_ += evaluation.cost_seconds;
  times_[candidate] = evaluation.time;

  const std::size_t slot = slot_[candidate];
  unmeasured_[slot] = unmeasured_.back();
  slot_[unmeasured_[slot]] = slot;
  unmeasured_.pop_back();
  slot_[candidate] = kMeasured;

  if (evaluation.time && (!best_ || *evaluation.time < *times_[*best_])) best_ = candidate;
  history_.emplace_back(candidate, std::move(evaluation));
}

bool SearchState::faster(std::size_t a, std::size_t b) const {
  if (!times_[a]) return false;
  return !times_[b] || *times_[a] < *times_[b];
}

std::size_t SearchState::random_unmeasured(Random& random) const {
  return unmeasured_[random.below(unmeasured_.size())];
}

}  // namespace blocktune::detail
