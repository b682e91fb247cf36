#include <blocktune/report.hpp>

#include <blocktune/config_text.hpp>
#include <blocktune/output_file.hpp>

#include "analysis.hpp"
#include "formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <set>
#include <span>

namespace blocktune {
namespace {

constexpr std::array format_names{"html", "csv", "t4", "markdown"};

// The stored form of a configuration typed by a person: parameters in the
// kernel's order (as typed where the kernel names none), written as the store
// writes them. Throws ReportError saying what is wrong.
std::string canonical_config(std::string_view text, const KernelRecord& kernel) {
  const std::string parameters_note = fmt::format("parameters of {}: {}", kernel.name, fmt::join(kernel.parameter_names, ", "));
  const auto fail = [&](std::string_view problem) {
    return ReportError(fmt::format("configuration '{}': {} ({})", text, problem, parameters_note));
  };
  std::vector<ConfigEntry> given;
  try {
    given = parse_config_text(text);
  } catch (const std::invalid_argument& error) {
    throw ReportError(fmt::format("{} ({})", error.what(), parameters_note));
  }
  if (kernel.parameter_names.empty()) return format_config_text(given);
  for (auto entry = given.begin(); entry != given.end(); ++entry) {
    if (std::ranges::find(kernel.parameter_names, entry->name) == kernel.parameter_names.end())
      throw fail(fmt::format("'{}' is not a parameter", entry->name));
    if (std::ranges::find(given.begin(), entry, entry->name, &ConfigEntry::name) != entry)
      throw fail(fmt::format("'{}' is given twice", entry->name));
  }
  std::vector<ConfigEntry> ordered;
  std::vector<std::string> missing;
  for (const auto& name : kernel.parameter_names) {
    const auto found = std::ranges::find(given, name, &ConfigEntry::name);
    if (found == given.end())
      missing.push_back(name);
    else
      ordered.push_back(*found);
  }
  if (!missing.empty()) throw fail(fmt::format("{} missing", fmt::join(missing, ", ")));
  return format_config_text(ordered);
}

// What `time_steps` steps cost with `trial` as the main launch, against the
// fastest single-step launch of `fastest` (fastest_by_depth of the session's ok
// trials): why fusing steps wins or loses.
void add_step_facts(std::span<const StepLaunch> fastest, const TrialRecord& trial, std::int64_t time_steps, report::Explanation& e) {
  const auto plan = plan_steps(step_launch(trial), time_steps, fastest);
  if (!plan) {
    e.facts.emplace_back("time steps", trial.steps_per_launch > time_steps
                                           ? fmt::format("it advances {} steps per launch, more than the {} asked", trial.steps_per_launch, time_steps)
                                           : fmt::format("the {} remaining steps cannot be made of measured launches", time_steps % trial.steps_per_launch));
    return;
  }
  std::string text = fmt::format("{} as {} launch{} of {} step{}", time_steps, plan->launches, plan->launches == 1 ? "" : "es", trial.steps_per_launch,
                                 trial.steps_per_launch == 1 ? "" : "s");
  for (const StepLaunch& launch : plan->remainder) text += fmt::format(", then {} ({} step{})", launch.config, launch.steps, launch.steps == 1 ? "" : "s");
  text += fmt::format(": {:.4g} ms, {:.4g} ms per step", plan->total_ms, plan->per_step_ms());
  e.facts.emplace_back("time steps", text);
  const auto single = std::ranges::find(fastest, 1, &StepLaunch::steps);
  if (trial.steps_per_launch == 1 || single == fastest.end()) return;
  // A fused launch moves the grid through memory once for k steps, and pays
  // for it with halo recomputation and fewer resident blocks: the launch's
  // time against k single steps says which of the two won.
  const double k = static_cast<double>(trial.steps_per_launch);
  const double ratio = (single->median_ms * k) / trial.median_ms;
  e.facts.emplace_back("fusion", fmt::format("one launch of {} steps takes {:.4g} ms, {:.2f}x the fastest single step ({:.4g} ms, {}): "
                                             "{:.2f}x {} per step. {}",
                                             trial.steps_per_launch, trial.median_ms, trial.median_ms / single->median_ms, single->median_ms,
                                             single->config, ratio >= 1 ? ratio : 1 / ratio, ratio >= 1 ? "faster" : "slower",
                                             ratio >= 1 ? "Fusing wins: reading and writing the grid once for several steps saves more "
                                                          "than the redundant halo work and lower occupancy cost."
                                                        : "Fusing loses: the redundant halo work and lower occupancy cost more than "
                                                          "the memory traffic it saves."));
}

}  // namespace

std::string_view to_string(ReportFormat format) { return format_names.at(static_cast<std::size_t>(format)); }

std::optional<ReportFormat> parse_report_format(std::string_view text) {
  for (std::size_t i = 0; i < format_names.size(); ++i)
    if (format_names[i] == text) return static_cast<ReportFormat>(i);
  return std::nullopt;
}

std::string render_report(const DatabaseContents& contents, const ReportFilter& filter, ReportFormat format) {
  const auto sessions = report::select_sessions(contents, filter);
  switch (format) {
    case ReportFormat::html:
      return report::render_html(sessions);
    case ReportFormat::csv:
      return report::render_csv(sessions);
    case ReportFormat::t4:
      return report::render_t4(sessions);
    case ReportFormat::markdown:
      return report::render_markdown(sessions);
  }
  throw ReportError("unknown report format");
}

void write_report(const DatabaseContents& contents, const ReportFilter& filter, ReportFormat format,
                  const std::filesystem::path& file) {
  const std::string text = render_report(contents, filter, format);
  OutputFile output(file);
  {
    std::ofstream out(output.path(), std::ios::binary | std::ios::trunc);
    if (!out) throw ReportError(fmt::format("cannot write '{}'", output.path().string()));
    out << text;
    if (!out.flush()) throw ReportError(fmt::format("cannot write '{}': the disk may be full", output.path().string()));
  }
  output.commit();
}

std::string explain(const DatabaseContents& contents, const ExplainQuery& query) {
  ReportFilter filter{.kernel = query.kernel, .devices = {}, .problem = query.problem};
  if (!query.device.empty()) filter.devices.push_back(query.device);
  const auto sessions = report::select_sessions(contents, filter);

  std::set<std::string> devices;
  for (const auto& s : sessions) devices.insert(fmt::format("{} {}", s.device->name, s.device->uuid));
  if (devices.size() > 1)
    throw ReportError(fmt::format("{} {} was tuned on several devices: choose one with --device ({})", query.kernel,
                                  query.problem.to_string(), fmt::join(devices, ", ")));
  const report::Session& session = sessions.back();  // sessions list older kernel versions first

  std::vector<StepLaunch> launches;  // the ok trials, as session.ranked orders them
  for (const TrialRecord* ok : session.ranked) launches.push_back(step_launch(*ok));
  const TrialRecord* trial = nullptr;
  if (query.config.empty()) {
    // The winner for the steps asked: the main launch of the fastest plan.
    const auto best = best_step_plan(launches, query.problem.time_steps);
    if (!best)
      throw ReportError(fmt::format("no configuration of {} ran correctly{}: there is no winner", session.title(),
                                    query.problem.time_steps == 1 ? "" : fmt::format(" for {} time steps", query.problem.time_steps)));
    trial = session.ranked[best->index];
  } else {
    const std::string config = canonical_config(query.config, *session.kernel);
    trial = session.find(config);
    if (!trial)
      throw ReportError(fmt::format("configuration {} was not tried for {} ({} configurations were)", config,
                                    session.title(), session.trials().size()));
  }
  // For several steps configurations compete as plans, per step, not per launch.
  const bool steps = query.problem.time_steps > 1 || trial->steps_per_launch > 1;
  report::Explanation explanation = report::explain_trial(session, *trial, !(steps && trial->outcome == Outcome::ok));
  if (steps) {
    if (query.config.empty()) explanation.heading = fmt::format("{}: the winner for {} time steps", session.title(), query.problem.time_steps);
    if (trial->outcome == Outcome::ok) {
      const std::vector<StepLaunch> fastest = fastest_by_depth(launches);
      add_step_facts(fastest, *trial, query.problem.time_steps, explanation);
      report::compare_per_step(session, launches, fastest, *trial, query.problem.time_steps, explanation);
    }
  }
  return report::to_text(explanation);
}

std::string explain(const std::filesystem::path& database, const ExplainQuery& query) {
  return explain(read_database(database), query);
}

}  // namespace blocktune
