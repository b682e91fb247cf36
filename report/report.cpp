#include <blocktune/report.hpp>

#include <blocktune/output_file.hpp>

#include "analysis.hpp"
#include "formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <set>

namespace blocktune {
namespace {

constexpr std::array format_names{"html", "csv", "t4", "markdown"};

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == text.npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(" \t") - first + 1));
}

// The stored form of a configuration typed by a person: parameters in the
// kernel's order, no spaces. Throws ReportError saying what is wrong.
std::string canonical_config(std::string_view text, const KernelRecord& kernel) {
  const auto fail = [&](std::string_view problem) {
    return ReportError(fmt::format("configuration '{}': {} (parameters of {}: {})", text, problem, kernel.name,
                                   fmt::join(kernel.parameter_names, ", ")));
  };
  std::map<std::string, std::string, std::less<>> values;
  for (const auto& [raw_name, raw_value] : report::parse_config(text)) {
    const std::string name = trim(raw_name), value = trim(raw_value);
    if (name.empty() || value.empty()) throw fail("expected name=value,name=value");
    if (std::ranges::find(kernel.parameter_names, name) == kernel.parameter_names.end())
      throw fail(fmt::format("'{}' is not a parameter", name));
    if (!values.emplace(name, value).second) throw fail(fmt::format("'{}' is given twice", name));
  }
  std::vector<std::string> items, missing;
  for (const auto& name : kernel.parameter_names) {
    const auto found = values.find(name);
    if (found == values.end())
      missing.push_back(name);
    else
      items.push_back(name + "=" + found->second);
  }
  if (!missing.empty()) throw fail(fmt::format("{} missing", fmt::join(missing, ", ")));
  return fmt::format("{}", fmt::join(items, ","));
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

  const TrialRecord* trial = nullptr;
  if (query.config.empty()) {
    trial = session.winner();
    if (!trial)
      throw ReportError(fmt::format("no configuration of {} ran correctly: there is no winner", session.title()));
  } else {
    const std::string config =
        session.kernel->parameter_names.empty() ? trim(query.config) : canonical_config(query.config, *session.kernel);
    trial = session.find(config);
    if (!trial)
      throw ReportError(fmt::format("configuration {} was not tried for {} ({} configurations were)", config,
                                    session.title(), session.trials().size()));
  }
  return report::to_text(report::explain_trial(session, *trial));
}

std::string explain(const std::filesystem::path& database, const ExplainQuery& query) {
  return explain(read_database(database), query);
}

}  // namespace blocktune
