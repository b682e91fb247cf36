#pragma once
// A synthetic tuning problem for the strategy and replay tests: a smooth
// landscape with one optimum, some failing configurations and varying
// measurement costs.

#include <blocktune/detail/space.hpp>
#include <blocktune/strategy.hpp>

#include <cmath>

namespace blocktune::testing {

inline SearchSpace synthetic_space() {
  SearchSpace space;
  const auto integers = [](std::initializer_list<std::int64_t> values) {
    return std::vector<Value>(values.begin(), values.end());
  };
  space.add_parameter({"block_x", integers({16, 32, 64, 128, 256})});
  space.add_parameter({"block_y", integers({1, 2, 4, 8, 16})});
  space.add_parameter({"unroll", integers({1, 2, 4, 8})});
  space.add_parameter({"variant", {std::string("plain"), std::string("vec2"), std::string("vec4")}});
  space.add_constraint("block_x * block_y <= 1024");
  return space;
}

// Fastest at block_x=64, block_y=4, unroll=4, vec4; unroll 8 with 1024
// threads fails as if it ran out of registers.
inline Evaluation synthetic_measurement(const Config& config) {
  const auto x = static_cast<double>(config.get_int("block_x"));
  const auto y = static_cast<double>(config.get_int("block_y"));
  const auto unroll = config.get_int("unroll");
  const double cost = 1.0 + static_cast<double>(unroll) * 0.25;
  if (unroll == 8 && x * y == 1024) return {std::nullopt, cost / 2};
  const std::string& variant = std::get<std::string>(config.at("variant"));
  const double variant_factor = variant == "vec4" ? 1.0 : variant == "vec2" ? 1.1 : 1.3;
  const double time = (1.0 + std::pow(std::log2(x / 64), 2) * 0.2 + std::pow(std::log2(y / 4), 2) * 0.1 +
                       std::pow(std::log2(static_cast<double>(unroll) / 4), 2) * 0.05) *
                      variant_factor * 1e-3;
  return {time, cost};
}

}  // namespace blocktune::testing
