#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "blocktune/candidates.hpp"

namespace blocktune {

namespace {

bool same_names(const Config& a, const Config& b) {
  return std::ranges::equal(a.entries(), b.entries(), [](const auto& x, const auto& y) { return x.first == y.first; });
}

// Lexicographic order of two configurations naming the same parameters:
// std::variant orders integers before strings, each in their natural order,
// which is the order of the coordinates.
bool values_before(const Config& a, const Config& b) {
  return std::ranges::lexicographical_compare(a.entries(), b.entries(),
                                              [](const auto& x, const auto& y) { return x.second < y.second; });
}

}  // namespace

std::vector<std::uint64_t> CandidateSpace::neighbours(std::uint64_t index) const {
  std::vector<std::uint32_t> point(dimensions());
  coordinates(index, point);
  std::vector<std::uint64_t> result;
  for (std::size_t p = 0; p < point.size(); ++p) {
    const std::uint32_t origin = point[p];
    if (origin > 0) {
      point[p] = origin - 1;
      if (const auto neighbour = find(point)) result.push_back(*neighbour);
    }
    if (origin + 1 < extent(p)) {
      point[p] = origin + 1;
      if (const auto neighbour = find(point)) result.push_back(*neighbour);
    }
    point[p] = origin;
  }
  return result;
}

ListedCandidates::ListedCandidates(std::vector<Config> configs) : configs_(std::move(configs)) {
  if (configs_.empty()) return;
  const Config& first = configs_.front();
  for (const Config& config : configs_)
    if (!same_names(config, first))
      throw std::invalid_argument(fmt::format("candidates '{}' and '{}' do not name the same parameters",
                                              first.to_string(), config.to_string()));

  const std::size_t dimensions = first.entries().size();
  std::vector<std::map<Value, std::uint32_t>> ranks(dimensions);
  for (const Config& config : configs_)
    for (std::size_t p = 0; p < dimensions; ++p) ranks[p].emplace(config.entries()[p].second, 0);
  for (auto& values : ranks) {
    std::uint32_t rank = 0;
    for (auto& entry : values) entry.second = rank++;
    extents_.push_back(rank);
  }

  coordinates_.reserve(configs_.size() * dimensions);
  for (const Config& config : configs_)
    for (std::size_t p = 0; p < dimensions; ++p) coordinates_.push_back(ranks[p].at(config.entries()[p].second));

  sorted_.resize(configs_.size());
  for (std::uint64_t i = 0; i < sorted_.size(); ++i) sorted_[i] = i;
  const auto point = [&](std::uint64_t candidate) {
    return std::span(coordinates_).subspan(candidate * dimensions, dimensions);
  };
  std::ranges::sort(sorted_, [&](std::uint64_t a, std::uint64_t b) {
    return std::ranges::lexicographical_compare(point(a), point(b));
  });
  const auto repeated =
      std::ranges::adjacent_find(sorted_, [&](std::uint64_t a, std::uint64_t b) { return std::ranges::equal(point(a), point(b)); });
  if (repeated != sorted_.end())
    throw std::invalid_argument(fmt::format("candidate '{}' is listed twice", configs_[*repeated].to_string()));
}

Config ListedCandidates::at(std::uint64_t index) const {
  if (index >= configs_.size())
    throw std::out_of_range(fmt::format("candidate {} of a list of {}", index, configs_.size()));
  return configs_[index];
}

std::optional<std::uint64_t> ListedCandidates::index_of(const Config& config) const {
  if (configs_.empty() || !same_names(config, configs_.front())) return std::nullopt;
  const auto found = std::ranges::lower_bound(
      sorted_, config, [&](const Config& a, const Config& b) { return values_before(a, b); },
      [&](std::uint64_t candidate) -> const Config& { return configs_[candidate]; });
  if (found == sorted_.end() || !(configs_[*found] == config)) return std::nullopt;
  return *found;
}

void ListedCandidates::coordinates(std::uint64_t index, std::span<std::uint32_t> out) const {
  if (index >= configs_.size())
    throw std::out_of_range(fmt::format("candidate {} of a list of {}", index, configs_.size()));
  const auto point = std::span(coordinates_).subspan(index * dimensions(), dimensions());
  std::ranges::copy(point, out.begin());
}

std::optional<std::uint64_t> ListedCandidates::find(std::span<const std::uint32_t> wanted) const {
  const std::size_t dimensions = this->dimensions();
  const auto point = [&](std::uint64_t candidate) {
    return std::span(coordinates_).subspan(candidate * dimensions, dimensions);
  };
  const auto found = std::ranges::lower_bound(sorted_, wanted, [](auto a, auto b) { return std::ranges::lexicographical_compare(a, b); },
                                              point);
  if (found == sorted_.end() || !std::ranges::equal(point(*found), wanted)) return std::nullopt;
  return *found;
}

}  // namespace blocktune
