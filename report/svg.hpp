// A small chart module: scales, axes, colours and five kinds of chart, drawn
// as inline SVG. The report embeds the result in its HTML, so the page needs
// no script, opens offline and prints as it looks. Every mark carries a
// <title>: the browser shows it as a tooltip.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune::svg {

// Text and attribute values with &, <, >, " escaped.
std::string escape(std::string_view text);

// A coordinate or size: at most two decimals, no trailing zeros.
std::string number(double value);

// The charts' font size in px (sans-serif; monospace for configuration labels).
inline constexpr double font_size = 11;

// The width of sans-serif chart text, estimated per character from DejaVu
// Sans (Debian's default, wider than Arial or Helvetica): layouts made with it
// leave room in the usual fonts. Labels are placed with it, not measured.
double text_width(std::string_view text);

// Maps [domain_min, domain_max] linearly onto [range_min, range_max].
struct LinearScale {
  double domain_min = 0, domain_max = 1, range_min = 0, range_max = 1;

  double operator()(double value) const;
  // The same scale with the domain widened to round values (d3's nice()), so
  // that the axis starts and ends on a tick.
  LinearScale nice(int tick_count) const;
  // About tick_count round values within the domain (steps of 1, 2 or 5 x 10^k).
  std::vector<double> ticks(int tick_count) const;
  // A tick value with as many decimals as the tick step needs.
  std::string format(double tick, int tick_count) const;
};

// Perceptually uniform colour for t in [0, 1] (viridis: dark purple to yellow).
std::string sequential_color(double t);
// Distinct colours for categories (Tableau 10), repeating after ten.
std::string category_color(std::size_t index);

// A labelled vertical line across a chart, e.g. the copy bandwidth. Labels
// go above the plot, in as many rows as they need not to overlap.
struct Marker {
  double value = 0;
  std::string label;
  std::string color = "#333";
};

// Cells coloured by value: e.g. throughput by block shape.
struct HeatMap {
  std::string title, x_label, y_label, value_label;
  std::vector<std::string> columns, rows;  // rows listed top to bottom
  struct Cell {
    std::size_t column = 0, row = 0;
    double value = 0;
    std::string text, tooltip;  // text is printed in the cell
    bool highlight = false;     // outlined, e.g. the winner
  };
  std::vector<Cell> cells;              // missing cells are drawn empty
  double value_min = 0, value_max = 1;  // the colour range; shared by related heat maps
  bool higher_is_better = true;         // the brightest colour goes to the better end
};

// Points in two dimensions, coloured by series.
struct Scatter {
  std::string title, x_label, y_label;
  std::vector<std::string> series;  // legend, wrapped into rows above the plot; colours by index
  struct Point {
    double x = 0, y = 0;
    std::size_t series = 0;
    std::string tooltip;
    bool highlight = false;  // drawn large and outlined, e.g. the winner
  };
  std::vector<Point> points;
  double x_jitter = 0;                 // spreads points of equal x over +-x_jitter, deterministically
  std::optional<double> x_min, x_max;  // else from the points
};

// Horizontal bars, one per label, optionally coloured by series.
struct Bars {
  std::string title, value_label;
  std::vector<std::string> series;  // legend, shown when there are two or more
  struct Bar {
    std::string label;  // left of the bar, monospace
    double value = 0;
    std::size_t series = 0;
    std::string text, tooltip;  // text is printed after the bar
    bool highlight = false;
    bool group_start = false;  // a gap above: bars of one group stay together
    std::string color;         // instead of the series' colour, e.g. grey for a reference bar
  };
  std::vector<Bar> bars;
  std::vector<Marker> markers;
};

// How many values fall in each of equal bins, with markers for values of note.
struct Histogram {
  std::string title, value_label;
  std::vector<double> values;
  int bin_count = 30;
  std::vector<Marker> markers;
};

// A running best against time: a step line through the improvements, over
// faint dots for every value.
struct StepLine {
  std::string title, x_label, y_label;
  struct Point {
    double x = 0, y = 0;
    std::string tooltip;
  };
  std::vector<Point> all;    // every value, faint
  std::vector<Point> steps;  // each improvement; the line holds the last to x_end
  double x_end = 0;
  // A second running best to compare with (e.g. random search's expected
  // one), dashed, with a legend naming both lines; none where empty.
  std::string steps_label, reference_label;
  std::vector<Point> reference;
};

std::string render(const HeatMap&);
std::string render(const Scatter&);
std::string render(const Bars&);
std::string render(const Histogram&);
std::string render(const StepLine&);

}  // namespace blocktune::svg
