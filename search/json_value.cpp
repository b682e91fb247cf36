#include "blocktune/json_value.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace blocktune {

Value parameter_value_from_json(const nlohmann::ordered_json& json, const std::string& parameter) {
  if (json.is_number_integer()) return json.get<std::int64_t>();
  if (json.is_string()) return json.get<std::string>();
  if (json.is_boolean()) return std::int64_t{json.get<bool>()};
  if (json.is_number_float()) {
    const double number = json.get<double>();
    if (std::trunc(number) == number && std::abs(number) < 0x1p62) return static_cast<std::int64_t>(number);
    return json.dump();
  }
  throw std::runtime_error(
      fmt::format("parameter '{}' has the value {}, which is not a number or string", parameter, json.dump()));
}

}  // namespace blocktune
