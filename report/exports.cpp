// Machine-readable exports: CSV and T4 JSON.
#include "formats.hpp"

#include <blocktune/text.hpp>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <ctime>

namespace blocktune::report {
namespace {

using Json = nlohmann::ordered_json;

// One CSV record.
std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (const auto& field : fields) {
    if (!line.empty()) line += ',';
    append_csv_field(line, field);
  }
  return line + '\n';
}

// T4's invalidity: why a configuration has no valid objective value.
std::string_view invalidity(Outcome outcome) {
  switch (outcome) {
    case Outcome::ok:
      return "correct";
    case Outcome::compile_error:
      return "compile";
    case Outcome::launch_error:
    case Outcome::runtime_fault:
      return "runtime";
    case Outcome::timeout:
    case Outcome::compile_timeout:
      return "timeout";
    case Outcome::wrong_result:
      return "correctness";
    case Outcome::rejected_by_constraint:
    case Outcome::pruned_by_occupancy:
      return "constraints";
  }
  return "runtime";
}

Json t4_configuration(std::string_view config) {
  Json configuration = Json::object();
  for (const ConfigEntry& parameter : parse_config_text(config)) {
    long long number = 0;
    const char* end = parameter.value.data() + parameter.value.size();
    if (parameter.integer && std::from_chars(parameter.value.data(), end, number).ec == std::errc())
      configuration[parameter.name] = number;
    else
      configuration[parameter.name] = parameter.value;
  }
  return configuration;
}

Json measurement(std::string_view name, double value, std::string_view unit) {
  return {{"name", name}, {"value", value}, {"unit", unit}};
}

Json t4_result(const TrialRecord& t) {
  // Times in milliseconds, as Kernel Tuner writes them.
  Json times = {{"compilation_time", t.compile_s * 1e3},
                {"validation", t.verify_s * 1e3},
                {"benchmark", t.benchmark_s * 1e3},
                {"runtimes", t.samples_ms}};
  Json measurements = Json::array();
  if (t.outcome == Outcome::ok) {
    measurements.push_back(measurement("time", t.median_ms, "ms"));
    measurements.push_back(measurement("time_min", t.min_ms, "ms"));
    measurements.push_back(measurement("time_mean", t.mean_ms, "ms"));
    measurements.push_back(measurement("time_spread", t.spread, ""));
    if (!t.metric_unit.empty()) measurements.push_back(measurement("throughput", t.metric, t.metric_unit));
    measurements.push_back(measurement("occupancy", t.occupancy, ""));
    measurements.push_back(measurement("registers", t.registers, ""));
    measurements.push_back(measurement("shared_memory", t.static_smem + t.dynamic_smem, "bytes"));
    measurements.push_back(measurement("spill_stores", t.spill_stores, "bytes"));
    measurements.push_back(measurement("spill_loads", t.spill_loads, "bytes"));
  }
  return {{"timestamp", fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(static_cast<std::time_t>(t.timestamp)))},
          {"configuration", t4_configuration(t.config)},
          {"objectives", Json::array({"time"})},
          {"times", times},
          {"invalidity", invalidity(t.outcome)},
          {"correctness", t.outcome == Outcome::ok ? 1 : 0},
          {"measurements", measurements}};
}

}  // namespace

std::string render_csv(const std::vector<Session>& sessions) {
  // One column per parameter of any selected kernel, after the stored fields.
  std::vector<std::string> parameter_names;
  for (const Session& s : sessions)
    for (const auto& name : s.kernel->parameter_names)
      if (std::ranges::find(parameter_names, name) == parameter_names.end()) parameter_names.push_back(name);

  std::vector<std::string> header{
      "device_uuid",   "device_name",       "kernel",          "source_hash", "problem",      "trial",
      "config",        "block_x",           "block_y",         "block_z",     "carveout",     "outcome",
      "message",       "samples_ms",        "median_ms",       "min_ms",      "mean_ms",      "spread",
      "registers",     "static_smem",       "dynamic_smem",    "local_bytes", "spill_stores", "spill_loads",
      "blocks_per_sm", "occupancy",         "resident_warps",  "limiting_factor", "compile_s", "verify_s",   "benchmark_s",
      "timestamp",     "blocktune_version", "sm_clock_mhz",    "metric",      "metric_unit",  "steps_per_launch",
      "l2_flushed"};
  // Next to the measured median, when the model predicted any of the trials.
  const bool predicted = std::ranges::any_of(sessions, &Session::has_predictions);
  const auto predicted_column = std::ranges::find(header, "median_ms") - header.begin() + 1;
  if (predicted) header.insert(header.begin() + predicted_column, "predicted_ms");
  for (const auto& name : parameter_names) header.push_back("param." + name);
  std::string out = csv_line(header);

  for (const Session& s : sessions) {
    for (std::size_t i = 0; i < s.trials().size(); ++i) {
      const TrialRecord& t = s.trials()[i];
      // A configuration the constraints rejected was never compiled nor run:
      // its shape and measurements are unknown, not the stored 1x1x1 and zeros.
      const bool rejected = t.outcome == Outcome::rejected_by_constraint;
      const auto measured = [rejected](std::string text) { return rejected ? std::string() : text; };
      std::vector<std::string> fields{s.device->uuid,
                                      s.device->name,
                                      s.kernel->name,
                                      s.kernel->source_hash,
                                      s.problem().to_string(),
                                      std::to_string(i + 1),
                                      t.config,
                                      measured(std::to_string(t.shape.block[0])),
                                      measured(std::to_string(t.shape.block[1])),
                                      measured(std::to_string(t.shape.block[2])),
                                      measured(std::to_string(t.shape.carveout)),
                                      std::string(to_string(t.outcome)),
                                      t.message,
                                      measured(exact_text(t.samples_ms)),
                                      measured(exact_text(t.median_ms)),
                                      measured(exact_text(t.min_ms)),
                                      measured(exact_text(t.mean_ms)),
                                      measured(exact_text(t.spread)),
                                      measured(std::to_string(t.registers)),
                                      measured(std::to_string(t.static_smem)),
                                      measured(std::to_string(t.dynamic_smem)),
                                      measured(std::to_string(t.local_bytes)),
                                      measured(std::to_string(t.spill_stores)),
                                      measured(std::to_string(t.spill_loads)),
                                      measured(std::to_string(t.blocks_per_sm)),
                                      measured(exact_text(t.occupancy)),
                                      t.resident_warps ? std::to_string(*t.resident_warps) : std::string(),  // empty: not stored (before schema 8)
                                      measured(t.limiting_factor),
                                      measured(exact_text(t.compile_s)),
                                      measured(exact_text(t.verify_s)),
                                      measured(exact_text(t.benchmark_s)),
                                      std::to_string(t.timestamp),
                                      t.blocktune_version,
                                      measured(std::to_string(t.sm_clock_mhz)),
                                      measured(exact_text(t.metric)),
                                      measured(t.metric_unit),
                                      std::to_string(t.steps_per_launch),
                                      measured(t.l2_flushed ? "1" : "0")};
      if (predicted)
        fields.insert(fields.begin() + predicted_column, t.predicted_ms ? exact_text(*t.predicted_ms) : std::string());
      const Parameters parameters = parse_config_text(t.config);
      for (const auto& name : parameter_names) {
        const auto found = std::ranges::find(parameters, name, &ConfigEntry::name);
        fields.push_back(found == parameters.end() ? std::string() : found->value);
      }
      out += csv_line(fields);
    }
  }
  return out;
}

std::string render_t4(const std::vector<Session>& sessions) {
  if (sessions.size() != 1) {
    std::vector<std::string> titles;
    for (const Session& s : sessions) titles.push_back(s.title());
    throw ReportError(
        fmt::format("a T4 file holds one tuning session, this selection has {} ({}): choose one with "
                    "--kernel, --device and --problem",
                    sessions.size(), fmt::join(titles, "; ")));
  }
  const Session& s = sessions.front();
  Json results = Json::array();
  for (const TrialRecord& t : s.trials()) results.push_back(t4_result(t));
  const Json root = {{"schema_version", "1.0.0"},
                     {"results", results},
                     {"blocktune",
                      {{"kernel", s.kernel->name},
                       {"source_hash", s.kernel->source_hash},
                       {"problem", s.problem().to_string()},
                       {"device", s.device->name},
                       {"device_uuid", s.device->uuid}}}};
  return root.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace blocktune::report
