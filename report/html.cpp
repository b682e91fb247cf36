// The HTML report: one self-contained page (inline CSS and SVG, no script),
// a section per session and a cross-device comparison.
#include "formats.hpp"
#include "svg.hpp"

#include <blocktune/replay.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace blocktune::report {
namespace {

using svg::escape;

constexpr std::size_t top_rows = 10;
// The kernel's default configuration in every chart: a neutral grey, not a
// strategy's colour (red already marks the winner).
constexpr std::string_view default_color = "#7f7f7f";

constexpr std::string_view style = R"css(
body { font: 14px/1.45 system-ui, sans-serif; color: #222; margin: 24px auto; max-width: 1240px; padding: 0 16px; }
h1 { font-size: 24px; margin-bottom: 4px; }
h2 { font-size: 20px; margin-top: 40px; border-bottom: 2px solid #4e79a7; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 24px 0 6px; }
code, .config { font: 12px/1.4 ui-monospace, monospace; }
.muted { color: #666; }
.explain { background: #f6f8fb; border-left: 4px solid #4e79a7; padding: 10px 16px; }
.explain dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
.explain dt { font-weight: 600; }
.explain dd { margin: 0; }
.verdict { margin: 8px 0 2px; }
figure { margin: 20px 0; }
figcaption { font-weight: 600; margin-bottom: 2px; }
figcaption span { font-weight: normal; color: #666; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 28px; align-items: flex-start; }
.charts h4 { margin: 8px 0 0; font: 600 13px ui-monospace, monospace; }
svg.chart { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.nowrap { white-space: nowrap; }
tr.winner td { background: #fff6d5; }
)css";

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * share); }

std::string capitalized(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}

// A configuration that may wrap after its commas in a narrow table cell.
std::string breakable(std::string_view config) {
  std::string html;
  for (const char c : escape(config)) {
    html += c;
    if (c == ',') html += "<wbr>";
  }
  return html;
}

std::string anchor(std::size_t index) { return fmt::format("session-{}", index + 1); }

// The seconds spent on each trial, added up in measurement order.
std::vector<double> tuning_clock(const Session& s) {
  std::vector<double> clock;
  double seconds = 0;
  for (const auto& t : s.trials()) {
    seconds += t.compile_s + t.verify_s + t.benchmark_s;
    clock.push_back(seconds);
  }
  return clock;
}

std::string figure(std::string_view caption, std::string_view note, std::string_view content) {
  return fmt::format("<figure><figcaption>{} <span>{}</span></figcaption>{}</figure>\n", escape(caption), escape(note),
                     content);
}

std::string explanation_html(const Explanation& e) {
  std::string html = fmt::format(
      "<div class=\"explain\"><h3>Why the winner wins</h3><div class=\"config\">{}</div><dl>", escape(e.config));
  for (const auto& [label, value] : e.facts)
    html += fmt::format("<dt>{}</dt><dd>{}</dd>", escape(label), escape(value));
  return html + fmt::format("</dl><p class=\"verdict\">{}</p></div>\n", escape(e.verdict));
}

// Heat maps of the best value per block shape, one per strategy, sharing one colour scale.
std::string heat_maps(const Session& s) {
  std::set<int> xs;
  std::set<std::pair<int, int>> yzs;
  for (const TrialRecord* t : s.ranked) {
    xs.insert(t->shape.block[0]);
    yzs.insert({t->shape.block[1], t->shape.block[2]});
  }
  std::vector<std::string> columns, rows;
  for (const int x : xs) columns.push_back(std::to_string(x));
  for (const auto& [y, z] : yzs) rows.push_back(fmt::format("{}x{}", y, z));

  // ranked is fastest first: the first trial seen per cell is the best one.
  std::map<std::pair<std::string, std::array<int, 3>>, std::pair<const TrialRecord*, int>> best;
  for (const TrialRecord* t : s.ranked) {
    auto& [trial, count] = best[{s.strategy(*t), t->shape.block}];
    if (!trial) trial = t;
    ++count;
  }
  // The colours span the cells' values, not every trial's: more contrast where it is read.
  double low = INFINITY, high = -INFINITY;
  for (const auto& [key, entry] : best) {
    low = std::min(low, s.measure.of(*entry.first));
    high = std::max(high, s.measure.of(*entry.first));
  }
  std::string html = "<div class=\"charts\">";
  for (const auto& strategy : s.strategies()) {
    svg::HeatMap map;
    map.title = fmt::format("{} by block shape{}", s.measure.name, strategy.empty() ? "" : ", " + strategy);
    map.x_label = "block_x";
    map.y_label = "block_y x block_z";
    map.value_label = s.measure.unit;
    map.columns = columns;
    map.rows = rows;
    map.value_min = low;
    map.value_max = high;
    map.higher_is_better = s.measure.higher_is_better;
    for (const auto& [key, entry] : best) {
      if (key.first != strategy) continue;
      const auto& [trial, count] = entry;
      const auto& block = trial->shape.block;
      const double value = s.measure.of(*trial);
      map.cells.push_back({static_cast<std::size_t>(std::distance(xs.begin(), xs.find(block[0]))),
                           static_cast<std::size_t>(std::distance(yzs.begin(), yzs.find({block[1], block[2]}))), value,
                           s.measure.unit == "ms" ? fmt::format("{:.3g}", value) : fmt::format("{:.0f}", value),
                           fmt::format("block {}: best of {} timed is {} ({:.4g} ms), {}", block_text(trial->shape),
                                       count, s.measure.format(value), trial->median_ms, trial->config),
                           trial == s.winner()});
    }
    html += fmt::format("<div><h4>{}</h4>{}</div>", escape(strategy.empty() ? "all configurations" : strategy),
                        svg::render(map));
  }
  return html + "</div>";
}

std::string occupancy_scatter(const Session& s) {
  svg::Scatter chart;
  chart.title = fmt::format("occupancy against {}", s.measure.name);
  chart.x_label = "occupancy (%)";
  chart.y_label = fmt::format("{} ({})", s.measure.name, s.measure.unit);
  chart.series = s.strategies();
  chart.x_jitter = 1.5;  // occupancies take few values: spread the points to show their density
  chart.x_min = -2;
  chart.x_max = 102;
  for (const TrialRecord* t : s.ranked) {
    const auto series = std::ranges::find(chart.series, s.strategy(*t)) - chart.series.begin();
    chart.points.push_back({100 * t->occupancy, s.measure.of(*t), static_cast<std::size_t>(series),
                            fmt::format("{}: {}, occupancy {}, limited by {}", t->config,
                                        s.measure.format(s.measure.of(*t)), percent(t->occupancy), t->limiting_factor),
                            t == s.winner()});
  }
  return svg::render(chart);
}

std::vector<svg::Marker> copy_bandwidth_marker(const Session& s) {
  if (!s.copy_bandwidth || s.measure.unit != "GB/s") return {};
  return {{s.copy_bandwidth->value, fmt::format("copy bandwidth {:.0f} GB/s", s.copy_bandwidth->value), "#111"}};
}

std::string strategy_bars(const Session& s) {
  svg::Bars chart;
  chart.title = "best configuration per strategy";
  chart.value_label =
      fmt::format("{} ({}){}", s.measure.name, s.measure.unit, s.measure.higher_is_better ? "" : ", shorter is better");
  const auto strategies = s.strategies();
  const auto best = s.best_per_strategy();
  for (std::size_t i = 0; i < best.size(); ++i) {
    const TrialRecord& t = *best[i];
    chart.bars.push_back({strategies[i].empty() ? "best" : strategies[i], s.measure.of(t), i,
                          fmt::format("{}  block {}", s.measure.format(s.measure.of(t)), block_text(t.shape)), t.config,
                          &t == s.winner(), false});
  }
  if (const TrialRecord* fallback = s.default_trial(); fallback && fallback->outcome == Outcome::ok)
    chart.bars.push_back(
        {"default", s.measure.of(*fallback), 0,
         fmt::format("{}  block {}", s.measure.format(s.measure.of(*fallback)), block_text(fallback->shape)),
         fallback->config, false, true, std::string(default_color)});
  chart.markers = copy_bandwidth_marker(s);
  return svg::render(chart);
}

std::string position_histogram(const Session& s) {
  svg::Histogram chart;
  chart.title = fmt::format("{} of every timed configuration", s.measure.name);
  chart.value_label = fmt::format("{} ({})", s.measure.name, s.measure.unit);
  for (const TrialRecord* t : s.ranked) chart.values.push_back(s.measure.of(*t));
  if (const TrialRecord* fallback = s.default_trial(); fallback && fallback->outcome == Outcome::ok)
    chart.markers.push_back({s.measure.of(*fallback), "default", std::string(default_color)});
  chart.markers.push_back({s.measure.of(*s.winner()), "winner", "#d62728"});
  for (auto& marker : copy_bandwidth_marker(s)) chart.markers.push_back(std::move(marker));
  return svg::render(chart);
}

// Random search's expected best on the same clock: uniform draws without
// replacement from the configurations this session measured, each costing
// its recorded time (blocktune::RandomBaseline, the replay methodology's
// baseline). After an exhaustive run that is the space; after a search, a
// sample it skewed towards fast configurations, which flatters random search.
std::vector<svg::StepLine::Point> random_search_expected(const Session& s, double x_end) {
  RecordedSpace measured;
  for (const TrialRecord& t : s.trials()) {
    if (t.outcome == Outcome::rejected_by_constraint) continue;
    measured.configs.emplace_back();
    // RandomBaseline takes the lowest value as the best.
    const double value = s.measure.of(t);
    measured.time.push_back(t.outcome == Outcome::ok ? std::optional(s.measure.higher_is_better ? -value : value) : std::nullopt);
    measured.cost_seconds.push_back(t.compile_s + t.verify_s + t.benchmark_s);
  }
  const RandomBaseline random(measured);
  std::vector<svg::StepLine::Point> curve;
  const std::size_t last = random.draws_by(x_end);
  const std::size_t step = std::max<std::size_t>(1, last / 200);  // a smooth line in at most ~200 steps
  for (std::size_t draws = 1; draws <= last; draws += step) {
    double value = random.expected_best(draws);
    if (s.measure.higher_is_better) value = -value;
    curve.push_back({static_cast<double>(draws) * random.mean_cost(), value, {}});
  }
  return curve;
}

std::string convergence(const Session& s) {
  svg::StepLine chart;
  chart.title = fmt::format("best {} found over tuning time", s.measure.name);
  chart.x_label = "compile + verify + benchmark seconds, in measurement order";
  chart.y_label = fmt::format("{} ({})", s.measure.name, s.measure.unit);
  const auto clock = tuning_clock(s);
  chart.x_end = clock.empty() ? 0 : clock.back();
  const TrialRecord* best = nullptr;
  for (std::size_t i = 0; i < s.trials().size(); ++i) {
    const TrialRecord& t = s.trials()[i];
    if (t.outcome != Outcome::ok) continue;
    const double value = s.measure.of(t);
    chart.all.push_back({clock[i], value, fmt::format("trial {}: {}, {}", i + 1, s.measure.format(value), t.config)});
    if (best && !faster(t, *best)) continue;
    best = &t;
    chart.steps.push_back(
        {clock[i], value,
         fmt::format("after {:.1f} s (trial {}): {}, {}", clock[i], i + 1, s.measure.format(value), t.config)});
  }
  if (!chart.steps.empty()) {
    chart.steps_label = "this run's best so far";
    chart.reference_label = "random search, expected";
    chart.reference = random_search_expected(s, chart.x_end);
  }
  return svg::render(chart);
}

std::string top_table(const Session& s) {
  const bool metric = s.measure.unit != "ms";
  const bool predicted = s.has_predictions();
  std::string html = fmt::format(
      "<table><tr><th class=\"number\">rank</th><th>configuration</th><th>block</th><th>carveout</th>"
      "<th class=\"number\">median ms</th>{}{}<th class=\"number\">occupancy</th><th>limited by</th>"
      "<th class=\"number\">registers</th><th class=\"number\">spread</th></tr>",
      predicted ? "<th class=\"number\">predicted ms</th>" : "",
      metric ? fmt::format("<th class=\"number\">{}</th>", escape(s.measure.unit)) : "");
  for (std::size_t i = 0; i < std::min(top_rows, s.ranked.size()); ++i) {
    const TrialRecord& t = *s.ranked[i];
    html += fmt::format(
        "<tr{}><td class=\"number\">{}</td><td><code>{}</code></td><td>{}</td><td class=\"number\">{}</td>"
        "<td class=\"number\">{:.4f}</td>{}{}<td class=\"number\">{}</td><td class=\"nowrap\">{}</td>"
        "<td class=\"number\">{}</td><td class=\"number\">{:.2f}%</td></tr>",
        i == 0 ? " class=\"winner\"" : "", i + 1, breakable(t.config), block_text(t.shape), t.shape.carveout,
        t.median_ms, predicted ? fmt::format("<td class=\"number\">{}</td>", predicted_ms_text(t)) : "",
        metric ? fmt::format("<td class=\"number\">{:.0f}</td>", t.metric) : "", percent(t.occupancy),
        escape(t.limiting_factor), t.registers, 100 * t.spread);
  }
  return html + "</table>\n";
}

// Temporal blocking: the best launch of each fusion depth, per time step.
std::string fusion_table(const Session& s, const std::vector<const TrialRecord*>& rows) {
  const double single_ms = rows.front()->steps_per_launch == 1 ? rows.front()->median_ms : 0;
  const bool metric = s.measure.unit != "ms";
  std::string html = fmt::format(
      "<table><tr><th class=\"number\">steps per launch</th><th>configuration</th><th class=\"number\">ms per launch</th>"
      "<th class=\"number\">ms per step</th><th class=\"number\">per step vs one step per launch</th>{}</tr>",
      metric ? fmt::format("<th class=\"number\">{} per step</th>", escape(s.measure.unit)) : "");
  for (const TrialRecord* t : rows) {
    const double per_step = t->median_ms / static_cast<double>(t->steps_per_launch);
    const auto share = s.bandwidth_share(*t);
    html += fmt::format("<tr><td class=\"number\">{}</td><td><code>{}</code></td><td class=\"number\">{:.4f}</td>"
                        "<td class=\"number\">{:.4f}</td><td class=\"number\">{}</td>{}</tr>",
                        t->steps_per_launch, breakable(t->config), t->median_ms, per_step,
                        single_ms > 0 ? fmt::format("{:.2f}x", single_ms / per_step) : "-",
                        metric ? fmt::format("<td class=\"number\">{:.0f}{}</td>", t->metric,
                                             share ? fmt::format(" ({} of copy)", percent(*share)) : "")
                               : "");
  }
  return html + "</table>\n";
}

std::string session_section(const Session& s, std::size_t index) {
  const auto& d = *s.device;
  TrialCounts counts;
  for (const auto& t : s.trials()) counts.add(t);
  std::string html =
      fmt::format("<section class=\"session\" id=\"{}\"><h2>{}</h2>\n", anchor(index), escape(s.title()));
  html += fmt::format(
      "<p class=\"muted\">{} <code>{}</code>: compute capability {}.{}, {} SMs, {:.0f} GiB{}. Kernel source {}. "
      "{}</p>\n",
      escape(d.name), escape(d.uuid), d.cc_major, d.cc_minor, d.sm_count,
      static_cast<double>(d.memory_bytes) / (1 << 30),
      s.copy_bandwidth ? fmt::format(", device-to-device copy {:.0f} GB/s", s.copy_bandwidth->value) : "",
      escape(s.kernel->source_hash), escape(counts.text()));
  if (const std::string note = s.timing_note(); !note.empty()) html += fmt::format("<p>{}</p>\n", escape(note));
  if (!s.winner()) return html + "<p>No configuration ran correctly: nothing to chart.</p></section>\n";

  html += explanation_html(explain_trial(s, *s.winner()));
  const std::string split =
      s.strategy_parameters.empty() ? "" : fmt::format("per {}", fmt::join(s.strategy_parameters, ", "));
  html += figure(fmt::format("{} by block shape", capitalized(s.measure.name)),
                 fmt::format("{}; each cell the best over the other parameters, the winner outlined in red", split),
                 heat_maps(s));
  html += figure(fmt::format("Occupancy against {}", s.measure.name),
                 "every timed configuration; the winner large and outlined", occupancy_scatter(s));
  html += figure("Best configuration per strategy", "and the kernel's default configuration", strategy_bars(s));
  html +=
      figure("Where the winner stands",
             s.copy_bandwidth && s.measure.unit == "GB/s"
                 ? "among every timed configuration, against the device-to-device copy bandwidth measured on this GPU"
                 : "among every timed configuration (no copy bandwidth stored for this GPU)",
             position_histogram(s));
  html += figure("Best found over tuning time",
                 "the running best (line) over every timed configuration (dots), against random search's expected best "
                 "(dashed) drawing from the same measured configurations at their recorded costs; time spent, not "
                 "wall time: compiles run in parallel",
                 convergence(s));
  if (const auto depths = s.best_per_fusion_depth(); !depths.empty())
    html += "<h3>Time steps: the best launch per fusion depth</h3>\n<p class=\"muted\">A launch that advances k time steps is "
            "timed per launch and counted as k steps; throughput is per step. <code>blocktune best --time-steps N</code> "
            "gives the plan for N steps.</p>\n" +
            fusion_table(s, depths);
  html += fmt::format("<h3>Top {} of {}</h3>\n", std::min(top_rows, s.ranked.size()), s.ranked.size()) + top_table(s);
  return html + "</section>\n";
}

std::string cross_device_section(const CrossDevice& group) {
  std::string html = fmt::format("<section class=\"cross-device\"><h2>{} {} across devices</h2>\n",
                                 escape(group.kernel), escape(group.problem.to_string()));
  if (!group.same_source)
    html += "<p><strong>Note:</strong> the devices ran different source versions of the kernel.</p>\n";
  html +=
      "<h3>What each device's best configuration achieves on the others</h3>\n<table><tr><th>best configuration "
      "of</th>";
  for (const Session* on : group.sessions) html += fmt::format("<th>on {}</th>", escape(on->device->name));
  html += "</tr>";
  for (const Session* from : group.sessions) {
    const TrialRecord* best = from->winner();
    html += fmt::format("<tr><td>{}<br><code>{}</code></td>", escape(from->device->name),
                        best ? breakable(best->config) : "none");
    for (const Session* on : group.sessions) html += fmt::format("<td>{}</td>", escape(transferred(*from, *on)));
    html += "</tr>";
  }
  html += "</table>\n";

  // Side by side: the best per strategy on each device, grouped by strategy.
  svg::Bars chart;
  chart.title = "best per strategy on each device";
  const Session& first = *group.sessions.front();
  chart.value_label = fmt::format("{} ({})", first.measure.name, first.measure.unit);
  for (const Session* s : group.sessions) chart.series.push_back(s->device->name);
  std::set<std::string> strategies;
  for (const Session* s : group.sessions)
    for (const auto& name : s->strategies()) strategies.insert(name);
  for (const auto& strategy : strategies) {
    bool first_of_group = true;
    for (std::size_t i = 0; i < group.sessions.size(); ++i) {
      const Session& s = *group.sessions[i];
      if (s.measure.unit != first.measure.unit) continue;  // bars must share one axis
      const auto found =
          std::ranges::find_if(s.ranked, [&](const TrialRecord* t) { return s.strategy(*t) == strategy; });
      if (found == s.ranked.end()) continue;
      const TrialRecord& t = **found;
      chart.bars.push_back({strategy.empty() ? "best" : strategy, s.measure.of(t), i,
                            fmt::format("{}  block {}", s.measure.format(s.measure.of(t)), block_text(t.shape)),
                            fmt::format("{}: {}", s.device->name, t.config), &t == s.winner(), first_of_group});
      first_of_group = false;
    }
  }
  html += figure("Best configuration per strategy, side by side", "one colour per device", svg::render(chart));
  return html + "</section>\n";
}

}  // namespace

std::string render_html(const std::vector<Session>& sessions) {
  const std::string title = sessions.size() == 1 ? "blocktune report: " + sessions.front().title()
                                                 : fmt::format("blocktune report: {} tuning sessions", sessions.size());
  TrialCounts counts;
  for (const Session& s : sessions)
    for (const auto& t : s.trials()) counts.add(t);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{}</style></head><body>\n"
      "<header><h1>{}</h1><p class=\"muted\">{} Made by blocktune {}.</p>\n",
      escape(title), style, escape(title),
      escape(counts.text(fmt::format(" from {} to {}", utc_time(counts.first_run), utc_time(counts.last_run)))),
      BLOCKTUNE_VERSION);
  const auto groups = cross_device_groups(sessions);
  if (sessions.size() > 1 || !groups.empty()) {
    html += "<nav><ul>";
    for (std::size_t i = 0; i < sessions.size(); ++i)
      html += fmt::format("<li><a href=\"#{}\">{}</a></li>", anchor(i), escape(sessions[i].title()));
    html += "</ul></nav>";
  }
  html += "</header>\n";
  for (std::size_t i = 0; i < sessions.size(); ++i) html += session_section(sessions[i], i);
  for (const auto& group : groups) html += cross_device_section(group);
  return html + "</body></html>\n";
}

}  // namespace blocktune::report
