#include <blocktune/cli_report.hpp>

#include <blocktune/cli_action.hpp>

#include <blocktune/report.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <optional>

namespace blocktune {
namespace {

struct ReportOptions {
  std::string database, kernel, problem, format = "html", output = "-";
  std::vector<std::string> devices;
};

struct ExplainOptions {
  std::string database, kernel, problem, config, device;
  std::int64_t time_steps = 1;
};

std::optional<ProblemSize> parse_problem(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return ProblemSize::parse(text);  // std::invalid_argument quotes the text
}

// Every failure: one line on err naming the command and the problem, exit code 1.
void on_run(CLI::App* command, std::ostream& err, std::function<void()> action) {
  command->callback([name = command->get_name(), action = std::move(action), &err] { run_command_action(err, name, action); });
}

}  // namespace

void add_report_commands(CLI::App& app, const std::filesystem::path& default_db, std::ostream& out, std::ostream& err) {
  auto report = std::make_shared<ReportOptions>();
  report->database = default_db.string();
  CLI::App* report_command =
      app.add_subcommand("report", "charts and exports of stored tuning results: HTML page, CSV, T4 JSON or Markdown");
  report_command->add_option("--db", report->database, "tuning database")->capture_default_str();
  report_command->add_option("--kernel,-k", report->kernel, "kernel (default: every kernel)");
  report_command->add_option("--device,-d", report->devices,
                             "device uuid or part of its name, e.g. H100; repeat for several (default: every device)");
  report_command->add_option("--problem,-p", report->problem, "problem size, e.g. 512x512x512 (default: every size)");
  report_command->add_option("--format,-f", report->format, "html, csv, t4 or markdown")->capture_default_str();
  report_command->add_option("--output,-o", report->output, "file to write; - for standard output")
      ->capture_default_str();
  on_run(report_command, err, [report, &out] {
    const auto format = parse_report_format(report->format);
    if (!format)  // a usage error, exit_usage
      throw CLI::ValidationError("--format", fmt::format("unknown format '{}': expected html, csv, t4 or markdown",
                                                         report->format));
    const ReportFilter filter{report->kernel, report->devices, parse_problem(report->problem)};
    const DatabaseContents contents = read_database(report->database);
    std::error_code ignored;
    if (std::filesystem::equivalent(report->output, report->database, ignored))
      throw ReportError(fmt::format("refusing to write the report over the database '{}'", report->database));
    if (report->output == "-") {
      out << render_report(contents, filter, *format);
    } else {
      write_report(contents, filter, *format, report->output);
      fmt::print(out, "wrote the {} report to {}\n", to_string(*format), report->output);
    }
  });

  auto explain_options = std::make_shared<ExplainOptions>();
  explain_options->database = default_db.string();
  CLI::App* explain_command = app.add_subcommand(
      "explain", "why a stored configuration (default: the winner) is as fast as it is, in plain words");
  explain_command->add_option("kernel", explain_options->kernel, "kernel")->required();
  explain_command->add_option("--problem,-p", explain_options->problem, "problem size, e.g. 512x512x512")->required();
  explain_command->add_option("--config,-c", explain_options->config,
                              "configuration, e.g. block_x=64,block_y=2,... (default: the winner)");
  explain_command->add_option("--device,-d", explain_options->device,
                              "device uuid or part of its name (default: the one the kernel was tuned on)");
  explain_command->add_option("--time-steps", explain_options->time_steps,
                              "time steps the application runs: explain the winner for that many, and what fusing steps gains")
      ->default_val(1)
      ->check(CLI::PositiveNumber);
  explain_command->add_option("--db", explain_options->database, "tuning database")->capture_default_str();
  on_run(explain_command, err, [explain_options, &out] {
    ProblemSize problem = ProblemSize::parse(explain_options->problem);
    problem.time_steps = explain_options->time_steps;
    const ExplainQuery query{explain_options->kernel, problem, explain_options->device, explain_options->config};
    out << explain(explain_options->database, query);
  });
}

}  // namespace blocktune
