// What a person reading the HTML report sees, on the stencil study's H100 run
// (nine codings): every legend entry and marker label inside its chart, none
// over another or over the plot, and a header that counts the configurations
// that ran on the GPU apart from those that were not run.
#include "chart_layout.hpp"
#include "report_fixture.hpp"

#include <blocktune/report.hpp>

#include <catch2/catch.hpp>

#include <set>

using namespace blocktune;
using namespace blocktune::test;

namespace {

const ReportFilter r1_cube{.kernel = "stencil3d_r1", .problem = ProblemSize{{512, 512, 512}}};

// The page for stencil3d_r1 at 512x512x512 on the H100, made once for all tests.
const std::string& h100_page() {
  static const std::string page = [] {
    TempDir dir;
    return render_report(read_database(h100_study_database(dir / "h100.db")), r1_cube, ReportFormat::html);
  }();
  return page;
}

}  // namespace

TEST_CASE("every legend entry and marker label lies inside its chart, above the plot, apart from the others") {
  const auto charts = chart_layouts(h100_page());
  REQUIRE(charts.size() == h100_study_codings + 4);  // a heat map per coding, scatter, bars, histogram, step line

  std::size_t checked = 0;
  for (const auto& chart : charts) {
    for (std::size_t i = 0; i < chart.labels.size(); ++i) {
      const auto& label = chart.labels[i];
      INFO(chart.kind << " chart " << chart.width << "x" << chart.height << ": " << label.role << " '" << label.text
                      << "' at " << label.box.left << ".." << label.box.right << ", " << label.box.top << ".."
                      << label.box.bottom);
      CHECK(chart.contains(label.box));
      CHECK(label.box.bottom <= chart.plot_top);
      for (std::size_t j = i + 1; j < chart.labels.size(); ++j) {
        INFO("and '" << chart.labels[j].text << "'");
        CHECK_FALSE(label.box.overlaps(chart.labels[j].box));
      }
      ++checked;
    }
  }

  const auto scatter = std::ranges::find(charts, "scatter", &ChartLayout::kind);
  REQUIRE(scatter != charts.end());
  const auto named = scatter->texts("legend");
  CHECK(named.size() == h100_study_codings);
  CHECK(std::set(named.begin(), named.end()).size() == h100_study_codings);
  CHECK(named.front() == "strategy=BASE,zloop=INTZ");

  const auto histogram = std::ranges::find(charts, "histogram", &ChartLayout::kind);
  REQUIRE(histogram != charts.end());
  CHECK(histogram->texts("marker") == std::vector<std::string>{"default", "winner", "copy bandwidth 3005 GB/s"});
  const auto steps = std::ranges::find(charts, "stepline", &ChartLayout::kind);
  REQUIRE(steps != charts.end());
  CHECK(steps->texts("legend") == std::vector<std::string>{"this run's best so far", "random search, expected"});
  // the scatter's legend, the bars' copy bandwidth, the histogram's markers, the step line's legend
  CHECK(checked == h100_study_codings + 1 + 3 + 2);
}

TEST_CASE("the header counts configurations that ran on the GPU, and those not run apart") {
  CHECK_THAT(h100_page(), Catch::Contains("<p class=\"muted\">4533 configurations ran on the GPU from "));
  CHECK_THAT(h100_page(), Catch::Contains(": 4533 ok. 19767 were not run: 19767 rejected_by_constraint. Made by"));
}
