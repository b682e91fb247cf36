// Markdown for pasting into an issue or a paper: per session the winner
// explained and the top configurations, then the cross-device comparison.
#include "formats.hpp"

#include <fmt/format.h>

namespace blocktune::report {
namespace {

constexpr std::size_t top_rows = 10;

// Table cells: a pipe would end the cell, a line break the row.
std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string code(std::string_view text) { return fmt::format("`{}`", cell(text)); }

void session_section(std::string& out, const Session& s) {
  out += fmt::format("## {}\n\n", s.title());
  // Counted as the HTML page counts them: configurations rejected before the
  // GPU are not "of" the ones timed.
  TrialCounts counts;
  for (const auto& t : s.trials()) counts.add(t);
  out += fmt::format(
      "Device {} (`{}`), compute capability {}.{}, {} SMs{}. {}\n\n", s.device->name, s.device->uuid,
      s.device->cc_major, s.device->cc_minor, s.device->sm_count,
      s.copy_bandwidth ? fmt::format(", device-to-device copy bandwidth {:.0f} GB/s", s.copy_bandwidth->value)
                       : std::string(),
      counts.text());
  if (const std::string note = s.timing_note(); !note.empty()) out += note + "\n\n";
  const TrialRecord* winner = s.winner();
  if (!winner) {
    out += "No configuration ran correctly.\n\n";
    return;
  }
  const Explanation why = explain_trial(s, *winner);
  out += fmt::format("**Winner:** {}\n\n| | |\n|---|---|\n", code(winner->config));
  for (const auto& [label, value] : why.facts) out += fmt::format("| {} | {} |\n", label, cell(value));
  out += fmt::format("\n{}\n\n", why.verdict);

  const bool metric = s.measure.unit != "ms";
  const bool predicted = s.has_predictions();
  out += fmt::format(
      "Top {} of {}:\n\n| rank | configuration | block | median ms |{}{} occupancy | limited by | registers | "
      "spread |\n|---:|---|---|---:|{}{}---:|---|---:|---:|\n",
      std::min(top_rows, s.ranked.size()), s.ranked.size(), predicted ? " predicted ms |" : "",
      metric ? fmt::format(" {} |", s.measure.unit) : "", predicted ? "---:|" : "", metric ? "---:|" : "");
  for (std::size_t i = 0; i < std::min(top_rows, s.ranked.size()); ++i) {
    const TrialRecord& t = *s.ranked[i];
    out += fmt::format("| {} | {} | {} | {:.4f} |{}{} {:.0f}% | {} | {} | {:.2f}% |\n", i + 1, code(t.config),
                       block_text(t.shape), t.median_ms, predicted ? fmt::format(" {} |", predicted_ms_text(t)) : "",
                       metric ? fmt::format(" {:.0f} |", t.metric) : "", 100 * t.occupancy, cell(t.limiting_factor),
                       t.registers, 100 * t.spread);
  }
  if (const auto depths = s.best_per_fusion_depth(); !depths.empty()) {
    out += "\nBest launch per fusion depth (time steps per launch; per step = per launch / steps):\n\n"
           "| steps per launch | configuration | ms per launch | ms per step |\n|---:|---|---:|---:|\n";
    for (const TrialRecord* t : depths)
      out += fmt::format("| {} | {} | {:.4f} | {:.4f} |\n", t->steps_per_launch, code(t->config), t->median_ms,
                         t->median_ms / static_cast<double>(t->steps_per_launch));
  }
  if (s.strategy_parameters.empty()) {
    out += "\n";
    return;
  }
  out += fmt::format("\nBest per {}:\n\n| {} | configuration | median ms | vs winner |\n|---|---|---:|---:|\n",
                     fmt::join(s.strategy_parameters, ", "), fmt::join(s.strategy_parameters, ", "));
  for (const TrialRecord* best : s.best_per_strategy())
    out += fmt::format("| {} | {} | {:.4f} | {:.3f}x |\n", cell(s.strategy(*best)), code(best->config), best->median_ms,
                       best->median_ms / winner->median_ms);
  out += "\n";
}

void cross_device_section(std::string& out, const CrossDevice& group) {
  out += fmt::format("## {} {} across devices\n\n", group.kernel, group.problem.to_string());
  if (!group.same_source) out += "Note: the devices ran different source versions of the kernel.\n\n";
  out += "| best configuration of (row), measured on (column) |";
  for (const Session* on : group.sessions) out += fmt::format(" {} |", cell(on->device->name));
  out += "\n|---|";
  for (std::size_t i = 0; i < group.sessions.size(); ++i) out += "---|";
  out += "\n";
  for (const Session* from : group.sessions) {
    const TrialRecord* best = from->winner();
    out += fmt::format("| {}: {} |", cell(from->device->name), best ? code(best->config) : "none");
    for (const Session* on : group.sessions) out += fmt::format(" {} |", cell(transferred(*from, *on)));
    out += "\n";
  }
  out += "\n";
}

}  // namespace

std::string render_markdown(const std::vector<Session>& sessions) {
  std::string out = "# blocktune tuning report\n\n";
  for (const Session& s : sessions) session_section(out, s);
  for (const CrossDevice& group : cross_device_groups(sessions)) cross_device_section(out, group);
  return out;
}

}  // namespace blocktune::report
