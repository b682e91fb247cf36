// Recorded spaces from T4 autotuning results.
#include <blocktune/json_value.hpp>
#include <blocktune/recording.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>

#include "gzip.hpp"

namespace blocktune {

namespace {

using Json = nlohmann::ordered_json;  // keeps the order of a configuration's parameters

const Json* measurement(const Json& result, std::string_view name) {
  const auto measurements = result.find("measurements");
  if (measurements == result.end() || !measurements->is_array()) return nullptr;
  for (const Json& entry : *measurements)
    if (entry.value("name", "") == name && entry.contains("value") && entry.at("value").is_number()) return &entry;
  return nullptr;
}

double seconds(const Json& measured) {
  const std::string unit = measured.value("unit", "ms");
  const double value = measured.at("value").get<double>();
  if (unit == "s") return value;
  if (unit == "us") return value / 1e6;
  if (unit == "ms" || unit.empty()) return value / 1e3;
  throw std::runtime_error(fmt::format("the time unit '{}' is not one of s, ms, us", unit));
}

// A time of the result's "times" object, in ms; missing ones count as 0.
double milliseconds(const Json& times, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const auto found = times.find(name); found != times.end() && found->is_number()) return found->get<double>();
  return 0;
}

Recording read_t4(const Json& root) {
  Recording recording;
  if (const auto about = root.find("blocktune"); about != root.end() && about->is_object()) {
    recording.kernel = about->value("kernel", "");
    recording.problem = about->value("problem", "");
    recording.device = about->value("device", "");
  }
  const Json& results = root.at("results");
  bool any_occupancy = false;
  for (std::size_t index = 0; index < results.size(); ++index) {
    const Json& result = results[index];
    try {
      const std::string invalidity = result.at("invalidity").get<std::string>();
      if (invalidity == "constraints") continue;

      std::vector<std::pair<std::string, Value>> entries;
      for (const auto& [name, value] : result.at("configuration").items())
        entries.emplace_back(name, parameter_value_from_json(value, name));
      recording.space.configs.emplace_back(std::move(entries));

      std::optional<double> time;
      if (invalidity == "correct") {
        const auto objectives = result.value("objectives", Json::array({"time"}));
        const std::string objective = objectives.empty() ? "time" : objectives.front().get<std::string>();
        const Json* measured = measurement(result, objective);
        if (!measured) throw std::runtime_error(fmt::format("it has no measurement '{}'", objective));
        time = seconds(*measured);
      }
      recording.space.time.push_back(time);
      recording.outcome.push_back(invalidity == "correct" ? "ok" : invalidity);

      const Json& times = result.at("times");
      const double compile_ms = milliseconds(times, {"compilation_time", "compilation"});
      recording.compile_seconds.push_back(compile_ms / 1e3);
      recording.space.cost_seconds.push_back(
          (compile_ms + milliseconds(times, {"validation"}) + milliseconds(times, {"benchmark"})) / 1e3);

      const Json* occupancy = measurement(result, "occupancy");
      const Json* registers = measurement(result, "registers");
      any_occupancy = any_occupancy || occupancy;
      recording.occupancy.push_back(occupancy ? occupancy->at("value").get<double>() : 0.0);
      recording.registers.push_back(registers ? registers->at("value").get<int>() : 0);
    } catch (const std::exception& error) {
      throw std::runtime_error(fmt::format("result {}: {}", index, error.what()));
    }
  }
  if (!any_occupancy) {
    recording.occupancy.clear();
    recording.registers.clear();
  }
  return recording;
}

}  // namespace

Recording read_t4_recording(const std::filesystem::path& path) {
  const std::string text = detail::read_text_file(path);
  try {
    return read_t4(Json::parse(text));
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("cannot read T4 results '{}': {}", path.string(), error.what()));
  }
}

}  // namespace blocktune
