#pragma once
// The reference for the space solvers: every point of a space's Cartesian
// product, in lexicographic order, checked one by one with SearchSpace::check.

#include <blocktune/detail/space.hpp>

#include <vector>

namespace blocktune::testing {

inline std::vector<Config> raw_product(const SearchSpace& space) {
  const auto& parameters = space.parameters();
  std::vector<Config> points;
  std::vector<std::size_t> index(parameters.size(), 0);
  while (true) {
    std::vector<std::pair<std::string, Value>> entries;
    for (std::size_t p = 0; p < parameters.size(); ++p)
      entries.emplace_back(parameters[p].name, parameters[p].values[index[p]]);
    points.emplace_back(std::move(entries));
    std::size_t p = parameters.size();
    while (p > 0 && ++index[p - 1] == parameters[p - 1].values.size()) index[--p] = 0;
    if (p == 0) return points;
  }
}

// Every configuration of the Cartesian product, in lexicographic order, that check() accepts.
inline std::vector<Config> brute_force(const SearchSpace& space, const Lookup& environment = {}) {
  std::vector<Config> valid;
  for (Config& point : raw_product(space))
    if (!space.check(point, environment)) valid.push_back(std::move(point));
  return valid;
}

}  // namespace blocktune::testing
