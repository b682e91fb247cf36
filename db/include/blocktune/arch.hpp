// Compute capabilities written as text: the one parser for the architecture
// names people give (`--arch`) and that profiles and devices use.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

namespace blocktune {

// "sm_90", "compute_90", "90", "9.0" -> {9, 0}; a feature suffix is allowed
// and dropped: "sm_90a", "sm_100f" -> {9, 0}, {10, 0}. nullopt for anything
// else (a minor version of more than one digit, a major version below 1).
std::optional<std::pair<int, int>> parse_arch(std::string_view text);

}  // namespace blocktune
