// Reports over a tuning database: an HTML page with charts, CSV, T4 JSON and
// Markdown exports, and the plain-words explanation of a configuration.
//
//   const auto contents = blocktune::read_database(file);
//   std::string html = blocktune::render_report(contents, {.kernel = "stencil3d_r1"}, blocktune::ReportFormat::html);
//   fmt::print("{}", blocktune::explain(file, {.kernel = "stencil3d_r1", .problem = {{512, 512, 512}}}));
//
// Needs no GPU and no CUDA; the HTML page has no script and opens offline.
#pragma once

#include <blocktune/store.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

// A report that cannot be made as asked, e.g. an unknown kernel. The message
// is one line for people and says what is there instead.
struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Which tuning sessions a report covers; empty fields select everything.
struct ReportFilter {
  std::string kernel;                // kernel name
  std::vector<std::string> devices;  // each a uuid, or part of a device name ("H100"), case-insensitive
  std::optional<ProblemSize> problem;
};

enum class ReportFormat {
  html,      // one self-contained page: charts, the winner explained, cross-device comparison
  csv,       // one row per trial, every stored field
  t4,        // T4 autotuning results JSON (one session: one kernel, device and problem)
  markdown,  // winners, explanations and top configurations, for issues and papers
};

std::string_view to_string(ReportFormat);
std::optional<ReportFormat> parse_report_format(std::string_view);  // "html", "csv", "t4", "markdown"

// Throws ReportError when the filter selects nothing (the message lists what
// is stored) or when a T4 export would mix sessions.
std::string render_report(const DatabaseContents& contents, const ReportFilter& filter, ReportFormat format);

// Renders, then writes next to the file and renames: a failure never leaves a
// half-written report in place of a good one.
void write_report(const DatabaseContents& contents, const ReportFilter& filter, ReportFormat format,
                  const std::filesystem::path& file);

// What to explain: one configuration of a kernel tuned for a problem size.
struct ExplainQuery {
  std::string kernel;
  ProblemSize problem;
  std::string device;  // uuid or part of the name; empty: the one device the kernel was tuned on
  std::string config;  // "name=value,..." in any order; empty: the winner
};

// Why a configuration is as fast as it is, in plain words, several lines for
// a terminal: occupancy and its limit, registers, shared memory, spills,
// throughput against the device's copy bandwidth, speed-up over the default
// configuration and the runner-up, and how stable its timing was. Throws
// ReportError for an unknown kernel, device, problem or configuration.
std::string explain(const DatabaseContents& contents, const ExplainQuery& query);
std::string explain(const std::filesystem::path& database, const ExplainQuery& query);

}  // namespace blocktune
