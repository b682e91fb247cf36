// The chart module: scales, colours, escaping, and charts as SVG.
#include "svg.hpp"

#include "chart_layout.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace blocktune::svg;
using blocktune::test::chart_layouts;
using blocktune::test::ChartLayout;

TEST_CASE("nice scales end on round ticks") {
  const LinearScale throughput = LinearScale{852, 2663, 0, 500}.nice(6);
  CHECK(throughput.domain_min == 500);
  CHECK(throughput.domain_max == 3000);
  CHECK(throughput.ticks(6) == std::vector<double>{500, 1000, 1500, 2000, 2500, 3000});
  CHECK(throughput(500) == 0);
  CHECK(throughput(3000) == 500);
  CHECK(throughput.format(1500, 6) == "1500");

  const LinearScale small = LinearScale{0.40, 0.56, 300, 0}.nice(6);  // y axes run upwards
  CHECK(small.ticks(6) == std::vector<double>{0.4, 0.42, 0.44, 0.46, 0.48, 0.5, 0.52, 0.54, 0.56});
  CHECK(small.format(0.42, 6) == "0.42");
  CHECK(small(0.4) == 300);

  const LinearScale single = LinearScale{5, 5, 0, 100}.nice(6);  // one value gets room around it
  CHECK(single.domain_min < 5);
  CHECK(single.domain_max > 5);
  CHECK(single(5) == Approx(50));
}

TEST_CASE("numbers, text and colours are written safely") {
  CHECK(number(12.345) == "12.35");
  CHECK(number(3.0) == "3");
  CHECK(number(-0.001) == "0");
  CHECK_THROWS_AS(number(std::nan("")), std::invalid_argument);
  CHECK(escape(R"(<a & "b">)") == "&lt;a &amp; &quot;b&quot;&gt;");
  CHECK(sequential_color(0) == "#440154");
  CHECK(sequential_color(1) == "#fde725");
  CHECK(sequential_color(2) == "#fde725");  // clamped
  CHECK(category_color(0) == "#4e79a7");
  CHECK(category_color(10) == category_color(0));
}

TEST_CASE("charts are SVG with a title and a tooltip per mark") {
  HeatMap map;
  map.title = "GB/s <by> shape";
  map.columns = {"32", "64"};
  map.rows = {"1x1"};
  map.cells = {{0, 0, 100, "100", "slow", false}, {1, 0, 200, "200", "fast", true}};
  map.value_min = 100;
  map.value_max = 200;
  const std::string heat = render(map);
  CHECK(heat.starts_with(R"(<svg class="chart" data-chart="heatmap")"));
  CHECK(heat.ends_with("</svg>"));
  CHECK_THAT(heat, Catch::Contains("<title>GB/s &lt;by&gt; shape</title>"));
  CHECK_THAT(heat, Catch::Contains(R"(fill="#fde725"><title>fast</title>)"));  // the better end is bright
  CHECK_THAT(heat, Catch::Contains(R"(fill="#440154"><title>slow</title>)"));
  CHECK_THAT(heat, Catch::Contains(R"(stroke="#d62728")"));  // the highlighted cell

  map.higher_is_better = false;  // times: the shorter the brighter
  CHECK_THAT(render(map), Catch::Contains(R"(fill="#440154"><title>fast</title>)"));

  Scatter scatter;
  scatter.series = {"a", "b"};
  scatter.points = {{50, 10, 0, "p1", false}, {100, 20, 1, "p2", true}};
  const std::string points = render(scatter);
  CHECK_THAT(points, Catch::Contains(R"(data-chart="scatter")"));
  CHECK_THAT(points, Catch::Contains(R"(r="6" fill="#f28e2c" stroke="#000")"));

  Bars bars;
  bars.bars = {{"x", 3, 0, "3 GB/s", "tip", false, false}, {"y", 2, 1, "2 GB/s", "grey", false, true, "#7f7f7f"}};
  bars.markers = {{4, "limit", "#111"}};
  const std::string bar_chart = render(bars);
  CHECK_THAT(bar_chart, Catch::Contains(">limit</text>"));
  CHECK_THAT(bar_chart, Catch::Contains(R"(fill="#4e79a7"><title>tip</title>)"));  // the series' colour
  CHECK_THAT(bar_chart, Catch::Contains(R"(fill="#7f7f7f"><title>grey</title>)"));  // its own

  Histogram histogram;
  histogram.values = {1, 2, 2, 3};
  histogram.bin_count = 3;
  const std::string bins = render(histogram);  // 0 to 3 in bins of 1, the last one closed
  CHECK_THAT(bins, Catch::Contains("<title>1 configuration from 1 to 2</title>"));
  CHECK_THAT(bins, Catch::Contains("<title>3 configurations from 2 to 3</title>"));

  StepLine line;
  line.steps = {{0, 1, "first"}, {2, 3, "better"}};
  line.x_end = 5;
  CHECK_THAT(render(line), Catch::Contains(R"(<path d="M)"));
}

TEST_CASE("text widths are estimated from DejaVu Sans, rounded up") {
  CHECK(text_width("") == 0);
  CHECK(text_width("winner") == Approx(3.40 * font_size));  // 37.3 px measured in Chromium
  CHECK(text_width("strategy=BASE,zloop=INTZ") >= 151.8);   // measured
  CHECK(text_width("ü") == font_size);                      // one character, two bytes: a full em
}

namespace {

// Every label of the one chart in `svg` inside it, above its plot, and apart from every other.
void check_layout(const std::string& svg) {
  const auto charts = chart_layouts(svg);
  REQUIRE(charts.size() == 1);
  const ChartLayout& chart = charts.front();
  for (std::size_t i = 0; i < chart.labels.size(); ++i) {
    INFO(chart.labels[i].role << " '" << chart.labels[i].text << "' in a chart " << chart.width << " wide");
    CHECK(chart.contains(chart.labels[i].box));
    CHECK(chart.labels[i].box.bottom <= chart.plot_top);
    for (std::size_t j = i + 1; j < chart.labels.size(); ++j)
      CHECK_FALSE(chart.labels[i].box.overlaps(chart.labels[j].box));
  }
}

}  // namespace

TEST_CASE("legends wrap into rows, and a chart grows for a name wider than itself") {
  Scatter scatter;
  for (int i = 0; i < 12; ++i) scatter.series.push_back("variant=" + std::to_string(i) + ",order=WWWWWWWW");
  scatter.points = {{50, 10, 0, "p", false}};
  const std::string wrapped = render(scatter);
  check_layout(wrapped);
  const ChartLayout chart = chart_layouts(wrapped).front();
  CHECK(chart.texts("legend").size() == 12);
  CHECK(chart.width == 650);  // the plot's width and margins: the legend wrapped instead

  scatter.series = {"a", std::string(120, 'W')};  // wider than the plot
  const std::string wide = render(scatter);
  check_layout(wide);
  CHECK(chart_layouts(wide).front().width > 1000);
}

TEST_CASE("marker labels take as many rows as they need not to overlap") {
  Histogram histogram;
  histogram.values = {100, 200, 300};
  histogram.markers = {{290, "default"}, {295, "winner"}, {300, "copy bandwidth 3005 GB/s"}, {10, "low"}};
  const std::string close = render(histogram);
  check_layout(close);
  // The three close labels need three rows; "low", far from them, shares the first, right of its line.
  CHECK_THAT(close, Catch::Contains(R"(class="marker" x="608.33" y="48" text-anchor="end" fill="#333">default<)"));
  CHECK_THAT(close, Catch::Contains(R"(class="marker" x="91.67" y="48" text-anchor="start" fill="#333">low<)"));
  const auto top = chart_layouts(close).front().plot_top;
  CHECK(top == Approx(4 + 3 * 14 + 10 - 4));  // three rows of labels above the plot (lines start 4 px above it)

  histogram.markers = {{100, "default"}, {300, "winner"}};
  const std::string apart = render(histogram);
  check_layout(apart);
  CHECK(chart_layouts(apart).front().plot_top == Approx(4 + 14 + 10 - 4));  // one row for both
}

TEST_CASE("a step line compared with a reference: dashed, and both named in a legend inside the chart") {
  StepLine line;
  line.steps = {{0, 1, "first"}, {2, 3, "better"}};
  line.x_end = 5;
  CHECK_THAT(render(line), !Catch::Contains("stroke-dasharray"));  // no reference, no legend
  line.steps_label = "this run's best so far";
  line.reference_label = "random search, expected";
  line.reference = {{1, 4, {}}, {3, 2, {}}};
  const std::string compared = render(line);
  CHECK_THAT(compared, Catch::Contains("stroke-dasharray"));
  CHECK_THAT(compared, Catch::Contains(">this run's best so far</text>"));
  CHECK_THAT(compared, Catch::Contains(">random search, expected</text>"));
  check_layout(compared);
}
