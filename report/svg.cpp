#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <utility>

namespace blocktune::svg {
namespace {

constexpr double monospace_char_width = 6.7;  // DejaVu Sans Mono at 11 px
constexpr int axis_ticks = 6;
constexpr std::string_view grid_color = "#e4e4e4";
constexpr std::string_view axis_color = "#666";

// Characters of a UTF-8 string: continuation bytes do not count.
bool starts_character(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

double monospace_width(std::string_view text) {
  return static_cast<double>(std::ranges::count_if(text, starts_character)) * monospace_char_width;
}

double widest_monospace(const std::vector<std::string>& texts) {
  double width = 0;
  for (const auto& text : texts) width = std::max(width, monospace_width(text));
  return width;
}

// d3's tickIncrement: a step of 1, 2 or 5 x 10^k giving about `count` ticks.
double tick_step(double start, double stop, int count) {
  const double raw = (stop - start) / std::max(count, 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double error = raw / power;
  const double factor = error >= std::sqrt(50.0) ? 10 : error >= std::sqrt(10.0) ? 5 : error >= std::sqrt(2.0) ? 2 : 1;
  return factor * power;
}

// The i-th multiple of a tick step; through the step's inverse when it is
// below 1, so that decimal steps give exact decimals (0.42, not 0.42000000000000004).
double multiple(long long i, double step) {
  return step >= 1 ? static_cast<double>(i) * step : static_cast<double>(i) / std::round(1 / step);
}

// The index of the step multiple at or below (above) a value, forgiving rounding noise.
long long multiple_below(double value, double step) { return std::llround(std::floor(value / step + 1e-9)); }
long long multiple_above(double value, double step) { return std::llround(std::ceil(value / step - 1e-9)); }

using Attribute = std::pair<std::string_view, std::string>;

// One <svg> element, written front to back: later marks paint over earlier ones.
class Canvas {
 public:
  Canvas(std::string_view kind, std::string_view title, double width, double height) {
    out_ = fmt::format(R"(<svg class="chart" data-chart="{}" viewBox="0 0 {} {}" width="{}" height="{}" role="img" )"
                       R"(aria-label="{}" font-family="sans-serif" font-size="{}"><title>{}</title>)",
                       kind, number(width), number(height), number(width), number(height), escape(title),
                       number(font_size), escape(title));
  }

  // <tag attributes>text<title>tooltip</title></tag>; every value is escaped.
  void element(std::string_view tag, std::initializer_list<Attribute> attributes, std::string_view text = {},
               std::string_view tooltip = {}) {
    out_ += '<';
    out_ += tag;
    for (const auto& [name, value] : attributes) out_ += fmt::format(R"( {}="{}")", name, escape(value));
    if (text.empty() && tooltip.empty()) {
      out_ += "/>";
      return;
    }
    out_ += '>';
    out_ += escape(text);
    if (!tooltip.empty()) out_ += fmt::format("<title>{}</title>", escape(tooltip));
    out_ += fmt::format("</{}>", tag);
  }

  void rect(double x, double y, double width, double height, std::string_view fill, std::string_view tooltip = {}) {
    element("rect",
            {{"x", number(x)},
             {"y", number(y)},
             {"width", number(width)},
             {"height", number(height)},
             {"fill", std::string(fill)}},
            {}, tooltip);
  }

  void line(double x1, double y1, double x2, double y2, std::string_view stroke, std::string_view dash = {}) {
    if (dash.empty())
      element("line", {{"x1", number(x1)},
                       {"y1", number(y1)},
                       {"x2", number(x2)},
                       {"y2", number(y2)},
                       {"stroke", std::string(stroke)}});
    else
      element("line", {{"x1", number(x1)},
                       {"y1", number(y1)},
                       {"x2", number(x2)},
                       {"y2", number(y2)},
                       {"stroke", std::string(stroke)},
                       {"stroke-dasharray", std::string(dash)}});
  }

  void text(double x, double y, std::string_view content, std::string_view anchor = "start",
            std::string_view fill = "#222") {
    element("text",
            {{"x", number(x)}, {"y", number(y)}, {"text-anchor", std::string(anchor)}, {"fill", std::string(fill)}},
            content);
  }

  // Text that layouts keep clear of other labels; `role` ("legend", "marker")
  // becomes its class, for tests that check the layout.
  void label(double x, double y, std::string_view content, std::string_view anchor, std::string_view fill,
             std::string_view role) {
    element("text",
            {{"class", std::string(role)},
             {"x", number(x)},
             {"y", number(y)},
             {"text-anchor", std::string(anchor)},
             {"fill", std::string(fill)}},
            content);
  }

  // Text with a white outline under it, readable where a line crosses it.
  void haloed_text(double x, double y, std::string_view content) {
    element("text",
            {{"x", number(x)},
             {"y", number(y)},
             {"fill", "#222"},
             {"stroke", "#fff"},
             {"stroke-width", "3"},
             {"paint-order", "stroke"}},
            content);
  }

  void monospace_text(double x, double y, std::string_view content, std::string_view anchor) {
    element("text",
            {{"x", number(x)},
             {"y", number(y)},
             {"text-anchor", std::string(anchor)},
             {"font-family", "monospace"},
             {"fill", "#222"}},
            content);
  }

  // Vertical text reading bottom to top, centred on (x, y).
  void vertical_text(double x, double y, std::string_view content) {
    element("text",
            {{"transform", fmt::format("translate({},{}) rotate(-90)", number(x), number(y))},
             {"text-anchor", "middle"},
             {"fill", "#222"}},
            content);
  }

  std::string finish() && { return std::move(out_) + "</svg>"; }

 private:
  std::string out_;
};

// The area inside the margins where marks go.
struct Plot {
  double left = 0, top = 0, width = 0, height = 0;
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

void x_axis(Canvas& canvas, const LinearScale& scale, const Plot& plot, std::string_view label) {
  for (const double tick : scale.ticks(axis_ticks)) {
    const double x = scale(tick);
    canvas.line(x, plot.top, x, plot.bottom(), grid_color);
    canvas.text(x, plot.bottom() + 14, scale.format(tick, axis_ticks), "middle", axis_color);
  }
  canvas.line(plot.left, plot.bottom(), plot.right(), plot.bottom(), axis_color);
  canvas.text(plot.left + plot.width / 2, plot.bottom() + 32, label, "middle");
}

void y_axis(Canvas& canvas, const LinearScale& scale, const Plot& plot, std::string_view label) {
  for (const double tick : scale.ticks(axis_ticks)) {
    const double y = scale(tick);
    canvas.line(plot.left, y, plot.right(), y, grid_color);
    canvas.text(plot.left - 6, y + 4, scale.format(tick, axis_ticks), "end", axis_color);
  }
  canvas.line(plot.left, plot.top, plot.left, plot.bottom(), axis_color);
  canvas.vertical_text(plot.left - 46, plot.top + plot.height / 2, label);
}

constexpr double header_top = 4;  // above the legend's first row
constexpr double legend_row_height = 16, swatch_size = 10, swatch_gap = 4, legend_entry_gap = 18;
constexpr double marker_row_height = 14, marker_label_gap = 6;

// The plot's top, below the legend and the rows of marker labels.
double plot_top(double legend_height, int marker_rows) {
  return header_top + legend_height + marker_row_height * marker_rows + 10;
}

// Where each legend entry goes: a grid of as many columns as fit in `width`
// from `left`, each as wide as the widest entry, filled row by row. A name
// too wide for `width` gets a column of its own, and `right` tells the chart
// to grow to hold it.
struct LegendLayout {
  std::vector<std::pair<double, double>> entries;  // left and top of each
  double right = 0, height = 0;
};

LegendLayout legend_layout(const std::vector<std::string>& series, double left, double width) {
  LegendLayout layout;
  if (series.empty()) return layout;
  double entry = 0;
  for (const auto& name : series) entry = std::max(entry, swatch_size + swatch_gap + text_width(name));
  const auto columns =
      static_cast<std::size_t>(std::max(1.0, std::floor((width + legend_entry_gap) / (entry + legend_entry_gap))));
  const std::size_t used = std::min(columns, series.size());
  for (std::size_t i = 0; i < series.size(); ++i)
    layout.entries.emplace_back(left + static_cast<double>(i % columns) * (entry + legend_entry_gap),
                                header_top + static_cast<double>(i / columns) * legend_row_height);
  layout.right = left + static_cast<double>(used) * (entry + legend_entry_gap) - legend_entry_gap;
  layout.height = static_cast<double>((series.size() + columns - 1) / columns) * legend_row_height;
  return layout;
}

// Colour swatches and names where the layout put them.
void legend(Canvas& canvas, const std::vector<std::string>& series, const LegendLayout& layout) {
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto [x, y] = layout.entries[i];
    canvas.rect(x, y + 1, swatch_size, swatch_size, category_color(i));
    canvas.label(x + swatch_size + swatch_gap, y + 10, series[i], "start", "#222", "legend");
  }
}

// Where a marker's label goes: beside its line, in a row above the plot (0 the nearest).
struct MarkerLabel {
  double x = 0;
  bool before_line = false;  // ends at x, left of the line
  int row = 0;
};

// Each label in the lowest row where it overlaps no label placed before it
// and stays inside the chart: right of its line, or left of it when the line
// is in the plot's right part or the right side is taken.
std::vector<MarkerLabel> place_marker_labels(const LinearScale& scale, const Plot& plot,
                                             const std::vector<Marker>& marks, double chart_width) {
  std::vector<std::vector<std::pair<double, double>>> taken;  // per row, the spans of its labels
  std::vector<MarkerLabel> labels;
  for (const auto& mark : marks) {
    const double x = scale(mark.value), width = text_width(mark.label);
    const auto span = [&](bool before) {
      return before ? std::pair{x - 3 - width, x - 3} : std::pair{x + 3, x + 3 + width};
    };
    const auto fits = [&](bool before, const std::vector<std::pair<double, double>>& row) {
      const std::pair<double, double> bounds = span(before);
      const double from = bounds.first, to = bounds.second;  // not a structured binding: clang 14 cannot capture one
      return from >= 0 && to <= chart_width && std::ranges::none_of(row, [&](const auto& other) {
               return from < other.second + marker_label_gap && other.first < to + marker_label_gap;
             });
    };
    const bool prefer_before = x > plot.left + plot.width * 0.6;
    for (std::size_t row = 0;; ++row) {
      if (row == taken.size()) taken.emplace_back();
      std::optional<bool> before;
      if (fits(prefer_before, taken[row]))
        before = prefer_before;
      else if (fits(!prefer_before, taken[row]))
        before = !prefer_before;
      else if (taken[row].empty())  // wider than either side: the side with more room
        before = x > chart_width / 2;
      if (!before) continue;
      taken[row].push_back(span(*before));
      labels.push_back({x, *before, static_cast<int>(row)});
      break;
    }
  }
  return labels;
}

int row_count(const std::vector<MarkerLabel>& labels) {
  int rows = 0;
  for (const auto& label : labels) rows = std::max(rows, label.row + 1);
  return rows;
}

// Dashed lines across the plot, labelled above it where place_marker_labels put them.
void markers(Canvas& canvas, const Plot& plot, const std::vector<Marker>& marks,
             const std::vector<MarkerLabel>& labels) {
  for (std::size_t i = 0; i < marks.size(); ++i) {
    const MarkerLabel& label = labels[i];
    canvas.line(label.x, plot.top - 4, label.x, plot.bottom(), marks[i].color, "4 3");
    canvas.label(label.before_line ? label.x - 3 : label.x + 3, plot.top - 8 - marker_row_height * label.row,
                 marks[i].label, label.before_line ? "end" : "start", marks[i].color, "marker");
  }
}

// Deterministic spread in [-1, 1] for the i-th point (golden-ratio sequence).
double jitter(std::size_t i) {
  const double golden = 0.6180339887498949;
  const double fraction = static_cast<double>(i) * golden - std::floor(static_cast<double>(i) * golden);
  return 2 * fraction - 1;
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string number(double value) {
  // A NaN would reach the page as an attribute the browser rejects.
  if (!std::isfinite(value)) throw std::invalid_argument("chart coordinate is not a finite number");
  std::string text = fmt::format("{:.2f}", value);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

double text_width(std::string_view text) {
  // Advance widths of DejaVu Sans in hundredths of an em, rounded up, for ' ' to '~'.
  static constexpr std::array<unsigned char, 95> ascii{
      32, 41, 47, 84, 64, 96, 78, 28, 40, 40, 50, 84, 32, 37, 32, 34,  //  !"#$%&'()*+,-./
      64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 34, 34, 84, 84, 84, 54,  // 0-9 :;<=>?
      100, 71, 69, 70, 77, 64, 58, 78, 76, 30, 30, 66, 56, 87, 75, 79,  // @A-O
      61, 79, 70, 64, 60, 74, 69, 99, 69, 62, 69, 40, 34, 40, 84, 50,   // P-Z [\]^_
      50, 62, 64, 55, 64, 62, 35, 64, 64, 28, 28, 58, 28, 98, 64, 62,   // `a-o
      64, 64, 40, 53, 40, 64, 60, 82, 60, 60, 53, 64, 34, 64, 84};      // p-z {|}~
  double hundredths = 0;
  for (const char c : text) {
    const auto code = static_cast<unsigned char>(c);
    if (code >= ' ' && code <= '~')
      hundredths += ascii[code - ' '];
    else if (starts_character(c))
      hundredths += 100;  // other characters: a full em
  }
  return hundredths / 100 * font_size;
}

double LinearScale::operator()(double value) const {
  const double span = domain_max - domain_min;
  const double t = span == 0 ? 0.5 : (value - domain_min) / span;
  return range_min + t * (range_max - range_min);
}

LinearScale LinearScale::nice(int tick_count) const {
  LinearScale result = *this;
  if (!(result.domain_max > result.domain_min)) {  // one value: give it room
    const double pad = result.domain_min == 0 ? 1 : std::abs(result.domain_min) * 0.1;
    result.domain_min -= pad;
    result.domain_max += pad;
  }
  // Widening can change the step; d3 repeats until it settles.
  for (int round = 0; round < 10; ++round) {
    const double step = tick_step(result.domain_min, result.domain_max, tick_count);
    const double low = multiple(multiple_below(result.domain_min, step), step);
    const double high = multiple(multiple_above(result.domain_max, step), step);
    if (low == result.domain_min && high == result.domain_max) break;
    result.domain_min = low;
    result.domain_max = high;
  }
  return result;
}

std::vector<double> LinearScale::ticks(int tick_count) const {
  std::vector<double> values;
  if (!(domain_max > domain_min)) return {domain_min};
  const double step = tick_step(domain_min, domain_max, tick_count);
  for (long long i = multiple_above(domain_min, step); i <= multiple_below(domain_max, step); ++i)
    values.push_back(multiple(i, step));
  return values;
}

std::string LinearScale::format(double tick, int tick_count) const {
  const double step = domain_max > domain_min ? tick_step(domain_min, domain_max, tick_count) : 1;
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}f}", std::abs(tick) < step * 1e-9 ? 0.0 : tick, decimals);
}

std::string sequential_color(double t) {
  // viridis at nine even stops, interpolated in RGB
  static constexpr std::array<std::array<int, 3>, 9> stops{{{0x44, 0x01, 0x54},
                                                            {0x47, 0x2c, 0x7a},
                                                            {0x3b, 0x51, 0x8b},
                                                            {0x2c, 0x71, 0x8e},
                                                            {0x21, 0x90, 0x8d},
                                                            {0x27, 0xad, 0x81},
                                                            {0x5c, 0xc8, 0x63},
                                                            {0xaa, 0xdc, 0x32},
                                                            {0xfd, 0xe7, 0x25}}};
  const double position = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * (stops.size() - 1);
  const auto below = std::min(static_cast<std::size_t>(position), stops.size() - 2);
  const double fraction = position - static_cast<double>(below);
  std::array<int, 3> rgb{};
  for (std::size_t c = 0; c < 3; ++c)
    rgb[c] = static_cast<int>(std::lround(stops[below][c] + fraction * (stops[below + 1][c] - stops[below][c])));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

std::string category_color(std::size_t index) {
  static constexpr std::array<std::string_view, 10> tableau10{"#4e79a7", "#f28e2c", "#e15759", "#76b7b2", "#59a14f",
                                                              "#edc949", "#af7aa1", "#ff9da7", "#9c755f", "#bab0ab"};
  return std::string(tableau10[index % tableau10.size()]);
}

// ---- Charts ----

std::string render(const HeatMap& map) {
  constexpr double cell_width = 54, cell_height = 24, legend_width = 12;
  const Plot plot{widest_monospace(map.rows) + 40, 12, cell_width * static_cast<double>(map.columns.size()),
                  cell_height * static_cast<double>(map.rows.size())};
  const double best = map.higher_is_better ? map.value_max : map.value_min;
  const double worst = map.higher_is_better ? map.value_min : map.value_max;
  const std::array<std::string, 3> legend_texts{fmt::format("{:.4g}", best), fmt::format("{:.4g}", worst),
                                                map.value_label};
  double legend_text_width = 0;
  for (const auto& text : legend_texts) legend_text_width = std::max(legend_text_width, text_width(text));
  const double legend_left = plot.right() + 22;
  const double width = legend_left + legend_width + 4 + legend_text_width + 8;
  Canvas canvas("heatmap", map.title, width, plot.bottom() + 44);

  const auto shade = [&](double value) {
    const double span = map.value_max - map.value_min;
    const double t = span > 0 ? (value - map.value_min) / span : 1.0;
    return map.higher_is_better ? t : 1 - t;
  };
  for (std::size_t row = 0; row < map.rows.size(); ++row)
    for (std::size_t column = 0; column < map.columns.size(); ++column)
      canvas.rect(plot.left + cell_width * static_cast<double>(column) + 1,
                  plot.top + cell_height * static_cast<double>(row) + 1, cell_width - 2, cell_height - 2, "#f3f3f3");
  for (const auto& cell : map.cells) {
    const double x = plot.left + cell_width * static_cast<double>(cell.column);
    const double y = plot.top + cell_height * static_cast<double>(cell.row);
    const double t = shade(cell.value);
    canvas.rect(x + 1, y + 1, cell_width - 2, cell_height - 2, sequential_color(t), cell.tooltip);
    canvas.text(x + cell_width / 2, y + cell_height / 2 + 4, cell.text, "middle", t < 0.6 ? "#fff" : "#111");
  }
  for (const auto& cell : map.cells) {  // outlines on top of every cell
    if (!cell.highlight) continue;
    canvas.element("rect", {{"x", number(plot.left + cell_width * static_cast<double>(cell.column) + 1)},
                            {"y", number(plot.top + cell_height * static_cast<double>(cell.row) + 1)},
                            {"width", number(cell_width - 2)},
                            {"height", number(cell_height - 2)},
                            {"fill", "none"},
                            {"stroke", "#d62728"},
                            {"stroke-width", "2.5"}});
  }
  for (std::size_t column = 0; column < map.columns.size(); ++column)
    canvas.text(plot.left + cell_width * (static_cast<double>(column) + 0.5), plot.bottom() + 14, map.columns[column],
                "middle", axis_color);
  for (std::size_t row = 0; row < map.rows.size(); ++row)
    canvas.monospace_text(plot.left - 6, plot.top + cell_height * (static_cast<double>(row) + 0.5) + 4, map.rows[row],
                          "end");
  canvas.text(plot.left + plot.width / 2, plot.bottom() + 32, map.x_label, "middle");
  canvas.vertical_text(12, plot.top + plot.height / 2, map.y_label);

  // Colour legend: a column of shades from the best value (top) to the worst.
  constexpr int shades = 24;
  const double step = plot.height / shades;
  for (int i = 0; i < shades; ++i)
    canvas.rect(legend_left, plot.top + step * i, legend_width, step + 0.5, sequential_color(1 - (i + 0.5) / shades));
  canvas.text(legend_left + legend_width + 4, plot.top + 9, legend_texts[0]);
  canvas.text(legend_left + legend_width + 4, plot.bottom(), legend_texts[1]);
  canvas.text(legend_left + legend_width + 4, plot.top + plot.height / 2 + 4, legend_texts[2]);
  return std::move(canvas).finish();
}

std::string render(const Scatter& chart) {
  Plot plot{70, 0, 560, 300};
  const LegendLayout key = legend_layout(chart.series, plot.left, plot.width + 10);
  plot.top = plot_top(key.height, 0);
  Canvas canvas("scatter", chart.title, std::max(plot.right() + 20, key.right + 10), plot.bottom() + 44);
  double x_low = chart.x_min.value_or(INFINITY), x_high = chart.x_max.value_or(-INFINITY), y_high = 0;
  for (const auto& p : chart.points) {
    if (!chart.x_min) x_low = std::min(x_low, p.x);
    if (!chart.x_max) x_high = std::max(x_high, p.x);
    y_high = std::max(y_high, p.y);
  }
  if (chart.points.empty()) x_low = x_high = 0;
  // A given range is kept as it is; jittered points stay inside it.
  const bool given = chart.x_min && chart.x_max;
  const LinearScale x =
      given ? LinearScale{x_low, x_high, plot.left, plot.right()}
            : LinearScale{x_low - chart.x_jitter, x_high + chart.x_jitter, plot.left, plot.right()}.nice(axis_ticks);
  const LinearScale y = LinearScale{0, y_high, plot.bottom(), plot.top}.nice(axis_ticks);
  x_axis(canvas, x, plot, chart.x_label);
  y_axis(canvas, y, plot, chart.y_label);
  legend(canvas, chart.series, key);

  const auto point = [&](const Scatter::Point& p, std::size_t index) {
    const double px = x(std::clamp(p.x + chart.x_jitter * jitter(index), x.domain_min, x.domain_max));
    if (p.highlight)
      canvas.element("circle",
                     {{"cx", number(px)},
                      {"cy", number(y(p.y))},
                      {"r", "6"},
                      {"fill", category_color(p.series)},
                      {"stroke", "#000"},
                      {"stroke-width", "2"}},
                     {}, p.tooltip);
    else
      canvas.element("circle",
                     {{"cx", number(px)},
                      {"cy", number(y(p.y))},
                      {"r", "2.6"},
                      {"fill", category_color(p.series)},
                      {"fill-opacity", "0.5"}},
                     {}, p.tooltip);
  };
  for (std::size_t i = 0; i < chart.points.size(); ++i)
    if (!chart.points[i].highlight) point(chart.points[i], i);
  for (std::size_t i = 0; i < chart.points.size(); ++i)  // highlights on top
    if (chart.points[i].highlight) point(chart.points[i], i);
  return std::move(canvas).finish();
}

std::string render(const Bars& chart) {
  constexpr double row_height = 20, bar_height = 13, group_gap = 10, bar_area = 380, text_area = 150;
  std::vector<std::string> labels;
  double value_high = 0, height = 0;
  for (const auto& bar : chart.bars) {
    labels.push_back(bar.label);
    value_high = std::max(value_high, bar.value);
    height += row_height + (bar.group_start && height > 0 ? group_gap : 0);
  }
  for (const auto& marker : chart.markers) value_high = std::max(value_high, marker.value);
  Plot plot{widest_monospace(labels) + 14, 0, bar_area, height};
  const std::vector<std::string> legend_series = chart.series.size() > 1 ? chart.series : std::vector<std::string>{};
  const LegendLayout key = legend_layout(legend_series, plot.left, bar_area + text_area - 10);
  const double width = std::max(plot.right() + text_area, key.right + 10);
  const LinearScale x = LinearScale{0, value_high, plot.left, plot.right()}.nice(axis_ticks);
  const auto marker_labels = place_marker_labels(x, plot, chart.markers, width);
  plot.top = plot_top(key.height, row_count(marker_labels));
  Canvas canvas("bars", chart.title, width, plot.bottom() + 44);
  x_axis(canvas, x, plot, chart.value_label);
  legend(canvas, legend_series, key);

  std::vector<double> rows;  // the top of each bar's row
  for (std::size_t i = 0; i < chart.bars.size(); ++i)
    rows.push_back((rows.empty() ? plot.top : rows.back() + row_height) +
                   (chart.bars[i].group_start && i > 0 ? group_gap : 0));
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const auto& bar = chart.bars[i];
    const double bar_top = rows[i] + (row_height - bar_height) / 2;
    canvas.rect(plot.left, bar_top, x(bar.value) - plot.left, bar_height,
                bar.color.empty() ? category_color(bar.series) : bar.color, bar.tooltip);
    if (bar.highlight)
      canvas.element("rect", {{"x", number(plot.left)},
                              {"y", number(bar_top)},
                              {"width", number(x(bar.value) - plot.left)},
                              {"height", number(bar_height)},
                              {"fill", "none"},
                              {"stroke", "#000"},
                              {"stroke-width", "2"}});
  }
  markers(canvas, plot, chart.markers, marker_labels);
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {  // over the marker lines, which may cross them
    const double baseline = rows[i] + row_height / 2 + 4;
    canvas.monospace_text(plot.left - 6, baseline, chart.bars[i].label, "end");
    canvas.haloed_text(x(chart.bars[i].value) + 4, baseline, chart.bars[i].text);
  }
  return std::move(canvas).finish();
}

std::string render(const Histogram& chart) {
  Plot plot{70, 0, 560, 220};
  const double width = plot.right() + 20;
  std::vector<double> extent = chart.values;
  for (const auto& marker : chart.markers) extent.push_back(marker.value);
  const auto [low, high] = extent.empty()
                               ? std::pair{0.0, 0.0}
                               : std::pair{*std::ranges::min_element(extent), *std::ranges::max_element(extent)};
  const LinearScale x = LinearScale{std::min(0.0, low), high, plot.left, plot.right()}.nice(axis_ticks);
  const auto marker_labels = place_marker_labels(x, plot, chart.markers, width);
  plot.top = plot_top(0, row_count(marker_labels));
  const int bins = std::max(chart.bin_count, 1);
  const double bin_width = (x.domain_max - x.domain_min) / bins;
  std::vector<int> counts(static_cast<std::size_t>(bins), 0);
  for (const double value : chart.values) {
    const auto bin = static_cast<std::size_t>(std::clamp((value - x.domain_min) / bin_width, 0.0, bins - 1.0));
    ++counts[bin];
  }
  const LinearScale y =
      LinearScale{0, static_cast<double>(std::max(1, *std::max_element(counts.begin(), counts.end()))), plot.bottom(),
                  plot.top}
          .nice(5);
  Canvas canvas("histogram", chart.title, width, plot.bottom() + 44);
  x_axis(canvas, x, plot, chart.value_label);
  y_axis(canvas, y, plot, "configurations");
  for (std::size_t bin = 0; bin < counts.size(); ++bin) {
    if (counts[bin] == 0) continue;
    const double from = x.domain_min + bin_width * static_cast<double>(bin);
    canvas.rect(x(from) + 0.5, y(counts[bin]), x(from + bin_width) - x(from) - 1, plot.bottom() - y(counts[bin]),
                "#8fa8c8",
                fmt::format("{} configuration{} from {:.4g} to {:.4g}", counts[bin], counts[bin] == 1 ? "" : "s", from,
                            from + bin_width));
  }
  markers(canvas, plot, chart.markers, marker_labels);
  return std::move(canvas).finish();
}

std::string render(const StepLine& chart) {
  const bool compared = !chart.reference.empty();
  const std::vector<std::string> series =
      compared ? std::vector<std::string>{chart.steps_label, chart.reference_label} : std::vector<std::string>{};
  const LegendLayout key = legend_layout(series, 70, 560);
  const Plot plot{70, compared ? plot_top(key.height, 0) : 16, 560, 260};
  Canvas canvas("stepline", chart.title, std::max(plot.right(), key.right) + 20, plot.bottom() + 44);
  std::vector<double> values;
  for (const auto* points : {&chart.all, &chart.steps, &chart.reference})
    for (const auto& p : *points) values.push_back(p.y);
  const auto [y_low, y_high] = values.empty()
                                   ? std::pair{0.0, 0.0}
                                   : std::pair{*std::ranges::min_element(values), *std::ranges::max_element(values)};
  const LinearScale x = LinearScale{0, chart.x_end, plot.left, plot.right()}.nice(axis_ticks);
  const LinearScale y = LinearScale{y_low, y_high, plot.bottom(), plot.top}.nice(axis_ticks);
  x_axis(canvas, x, plot, chart.x_label);
  y_axis(canvas, y, plot, chart.y_label);
  legend(canvas, series, key);
  for (const auto& p : chart.all)
    canvas.element(
        "circle",
        {{"cx", number(x(p.x))}, {"cy", number(y(p.y))}, {"r", "1.6"}, {"fill", "#999"}, {"fill-opacity", "0.4"}}, {},
        p.tooltip);
  // A running best as a step line held to x_end.
  const auto step_path = [&](const std::vector<StepLine::Point>& points) {
    std::string path = fmt::format("M{},{}", number(x(points[0].x)), number(y(points[0].y)));
    for (std::size_t i = 1; i < points.size(); ++i)
      path += fmt::format(" H{} V{}", number(x(points[i].x)), number(y(points[i].y)));
    return path + fmt::format(" H{}", number(x(chart.x_end)));
  };
  if (compared)
    canvas.element("path", {{"d", step_path(chart.reference)},
                            {"fill", "none"},
                            {"stroke", category_color(1)},
                            {"stroke-width", "2"},
                            {"stroke-dasharray", "6 4"}},
                   {}, chart.reference_label);
  if (chart.steps.empty()) return std::move(canvas).finish();
  canvas.element("path", {{"d", step_path(chart.steps)}, {"fill", "none"}, {"stroke", category_color(0)}, {"stroke-width", "2"}});
  for (const auto& p : chart.steps)
    canvas.element("circle",
                   {{"cx", number(x(p.x))}, {"cy", number(y(p.y))}, {"r", "3.5"}, {"fill", category_color(0)}}, {},
                   p.tooltip);
  return std::move(canvas).finish();
}

}  // namespace blocktune::svg
