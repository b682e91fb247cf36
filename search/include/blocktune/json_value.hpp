// A parameter value as the tuning files of other tools write it in JSON
// (Kernel Tuner caches, T4 results).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "blocktune/detail/expression.hpp"

namespace blocktune {

// Integers, booleans (as 0 or 1) and integral floating-point numbers become
// integers; strings stay strings; other numbers become their JSON text.
// Throws std::runtime_error naming the parameter for anything else.
Value parameter_value_from_json(const nlohmann::ordered_json& json, const std::string& parameter);

}  // namespace blocktune
