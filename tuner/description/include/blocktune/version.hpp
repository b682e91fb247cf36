#pragma once

namespace blocktune {
// Part of every cache key and stored with every trial.
inline constexpr const char* kVersion = "0.1.0";
}  // namespace blocktune
