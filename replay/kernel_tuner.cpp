// Kernel Tuner's cache files as recorded spaces (recording.hpp); beside the
// other importers (T4 in t4.cpp, database sessions in database.cpp).
#include <blocktune/recording.hpp>

#include <blocktune/json_value.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

namespace blocktune {

namespace {

using Json = nlohmann::ordered_json;  // keeps the cache's order of configurations

// Kernel Tuner appends to its cache while tuning; an interrupted run leaves
// `"cache": {"a": {...}, "b": {...},` without the closing braces.
Json parse_cache(std::string_view text) {
  if (Json json = Json::parse(text, nullptr, false); !json.is_discarded()) return json;
  std::string closed(text);
  while (!closed.empty() && std::isspace(static_cast<unsigned char>(closed.back()))) closed.pop_back();
  if (!closed.empty() && closed.back() == ',') closed.pop_back();
  try {
    return Json::parse(closed + "}\n}");
  } catch (const Json::parse_error& error) {
    throw std::runtime_error(fmt::format("it is not JSON (syntax error near byte {})", error.byte));
  }
}

// object[key], or an error saying that `what` lacks it.
const Json& member(const Json& object, const char* key, std::string_view what) {
  const auto found = object.find(key);
  if (found == object.end()) throw std::runtime_error(fmt::format("{} has no \"{}\"", what, key));
  return *found;
}

double milliseconds(const Json& entry, const char* key) {
  const auto found = entry.find(key);
  if (found == entry.end() || !found->is_number()) return 0;
  return found->get<double>() / 1000;
}

std::vector<std::string> parameter_names(const Json& json) {
  const Json& keys = member(json, "tune_params_keys", "it is not a Kernel Tuner cache: it");
  if (!keys.is_array() || !std::ranges::all_of(keys, &Json::is_string))
    throw std::runtime_error("\"tune_params_keys\" is not a list of parameter names");
  return keys.get<std::vector<std::string>>();
}

RecordedSpace read_cache(const Json& json) {
  if (!json.is_object()) throw std::runtime_error("it is not a Kernel Tuner cache: not a JSON object");
  const auto names = parameter_names(json);
  const Json& cache = member(json, "cache", "it is not a Kernel Tuner cache: it");
  if (!cache.is_object()) throw std::runtime_error("\"cache\" is not an object of configurations");
  RecordedSpace space;
  for (const auto& [key, entry] : cache.items()) {
    const std::string what = fmt::format("entry '{}'", key);
    const Json& time = member(entry, "time", what);
    if (time.is_string() && time.get<std::string>() == "InvalidConfig") continue;
    if (!time.is_number() && !time.is_string())
      throw std::runtime_error(fmt::format("entry '{}' has the time {}, not a number or error name", key, time.dump()));

    std::vector<std::pair<std::string, Value>> entries;
    for (const std::string& name : names)
      entries.emplace_back(name, parameter_value_from_json(member(entry, name.c_str(), what), name));
    space.configs.emplace_back(std::move(entries));
    space.time.push_back(time.is_number() ? std::optional(time.get<double>() / 1000) : std::nullopt);
    space.cost_seconds.push_back(milliseconds(entry, "compile_time") + milliseconds(entry, "verification_time") +
                                 milliseconds(entry, "benchmark_time"));
  }
  return space;
}

}  // namespace

RecordedSpace parse_kernel_tuner_cache(std::string_view text) { return read_cache(parse_cache(text)); }

}  // namespace blocktune
