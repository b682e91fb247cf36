// T1 tuning-problem files (the "FAIR sharing" format that public benchmark
// collections publish beside their T4 results), read as a spec: a T1 file is
// translated into the spec JSON it stands for, which the spec reader then
// checks like any other. Internal to the spec reader (spec.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune::detail {

// Whether a parsed JSON document is a T1 file rather than a spec.
bool is_t1(const nlohmann::ordered_json& document);

// The spec JSON a T1 file stands for. Source files become absolute paths
// (relative to `t1_dir`), so the result reads the same from any folder.
// Throws SpecError naming `origin` and the T1 field for what T1 says that
// blocktune cannot do.
nlohmann::ordered_json t1_to_spec(const nlohmann::ordered_json& t1, const std::filesystem::path& t1_dir, const std::string& origin);

// The values of a T1 parameter: Python list expressions as T1 files write
// them: literals, range(), list(), concatenation with +, and comprehensions
// ([2**i for i in range(6) if i > 0]). Throws std::invalid_argument.
std::vector<nlohmann::ordered_json> python_list(std::string_view text);

}  // namespace blocktune::detail
