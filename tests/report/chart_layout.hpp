// Reads back the layout of our own SVG charts in a page: each chart's size,
// where its plot begins, and the boxes of its legend entries and marker
// labels, for tests that check that every one lies inside its chart and none
// overlaps another. Text boxes are estimated as the layout estimates them
// (svg::text_width), with DejaVu Sans' ascent and descent.
#pragma once

#include "svg.hpp"

#include <algorithm>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune::test {

struct Box {
  double left = 0, top = 0, right = 0, bottom = 0;
  bool overlaps(const Box& other) const {
    return left < other.right && other.left < right && top < other.bottom && other.top < bottom;
  }
};

struct ChartLabel {
  std::string role;  // "legend" or "marker"
  std::string text;
  Box box;  // a legend entry's box holds its colour swatch
};

struct ChartLayout {
  std::string kind;
  double width = 0, height = 0;
  double plot_top = 1e9;  // the top of the highest line: grid, axes and marker lines start there
  std::vector<ChartLabel> labels;

  bool contains(const Box& box) const {
    return box.left >= 0 && box.top >= 0 && box.right <= width && box.bottom <= height;
  }
  std::vector<std::string> texts(std::string_view role) const {
    std::vector<std::string> found;
    for (const auto& label : labels)
      if (label.role == role) found.push_back(label.text);
    return found;
  }
};

inline std::string unescaped(std::string text) {
  for (const auto& [entity, character] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}})
    for (auto at = text.find(entity); at != text.npos; at = text.find(entity, at + 1))
      text.replace(at, std::string_view(entity).size(), character);
  return text;
}

inline std::vector<ChartLayout> chart_layouts(std::string_view html) {
  static const std::regex svg_tag(R"re(^<svg class="chart" data-chart="([a-z]+)" viewBox="0 0 ([0-9.]+) ([0-9.]+)")re");
  static const std::regex label_tag(
      R"re(^<text class="([a-z]+)" x="([-0-9.]+)" y="([-0-9.]+)" text-anchor="(start|middle|end)")re"
      R"re([^>]*>([^<]*)</text>)re");
  static const std::regex line_tag(R"re(^<line x1="[-0-9.]+" y1="([-0-9.]+)" x2="[-0-9.]+" y2="([-0-9.]+)")re");
  constexpr double swatch = 14;  // a legend swatch and its gap, left of the name
  constexpr double ascent = 0.93 * svg::font_size, descent = 0.24 * svg::font_size;

  std::vector<ChartLayout> charts;
  for (auto at = html.find("<svg "); at != html.npos; at = html.find("<svg ", at + 1)) {
    const std::string_view svg = html.substr(at, html.find("</svg>", at) - at);
    std::cmatch match;
    if (!std::regex_search(svg.data(), svg.data() + svg.find('>') + 1, match, svg_tag)) continue;
    ChartLayout& chart = charts.emplace_back();
    chart.kind = match[1];
    chart.width = std::stod(match[2]);
    chart.height = std::stod(match[3]);
    for (auto line = svg.find("<line "); line != svg.npos; line = svg.find("<line ", line + 1))
      if (std::regex_search(svg.data() + line, svg.data() + svg.find('>', line) + 1, match, line_tag))
        chart.plot_top = std::min({chart.plot_top, std::stod(match[1]), std::stod(match[2])});
    for (auto text = svg.find("<text class="); text != svg.npos; text = svg.find("<text class=", text + 1)) {
      const auto end = svg.find("</text>", text) + 7;
      if (!std::regex_search(svg.data() + text, svg.data() + end, match, label_tag)) continue;
      ChartLabel& label = chart.labels.emplace_back();
      label.role = match[1];
      label.text = unescaped(match[5]);
      const double x = std::stod(match[2]), y = std::stod(match[3]), width = svg::text_width(label.text);
      const double left = match[4] == "start" ? x : match[4] == "end" ? x - width : x - width / 2;
      label.box = {left - (label.role == "legend" ? swatch : 0), y - ascent, left + width, y + descent};
    }
  }
  return charts;
}

}  // namespace blocktune::test
