// Predicted next to measured: the execution-time model's stored predictions
// in every report format, and their absence for databases without them.
#include "report_fixture.hpp"

#include <blocktune/report.hpp>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

using namespace blocktune;
using namespace blocktune::test;

namespace {

const ProblemSize size{{4096}};

// Five ok trials measured 1 to 5 ms; the model predicted four of them in the
// order 64, 32, 128, 256 (its top pick measured second: rank correlation
// 1 - 6 * 2 / (4 * 15) = 0.8); 512 was measured without a prediction, 1024
// did not compile.
DatabaseContents predicted_store(const TempDir& dir) {
  nlohmann::json trials = nlohmann::json::array();
  const auto add = [&](int block_x, std::string_view outcome, double median_ms, std::optional<double> predicted_ms) {
    nlohmann::json trial = {{"device", "GPU-p"},      {"kernel", "k"},
                            {"problem", "4096"},      {"config", fmt::format("block_x={}", block_x)},
                            {"block", {block_x, 1, 1}}, {"outcome", outcome},
                            {"median_ms", median_ms}, {"min_ms", median_ms}};
    if (predicted_ms) trial["predicted_ms"] = *predicted_ms;
    trials.push_back(trial);
  };
  add(32, "ok", 1, 1.5);
  add(64, "ok", 2, 1);
  add(128, "ok", 3, 3);
  add(256, "ok", 4, 4);
  add(512, "ok", 5, std::nullopt);
  add(1024, "compile_error", 0, std::nullopt);
  const auto file = dir / "predicted.db";
  import_json(file, {{"format", "blocktune-tuning-db"},
                     {"devices", {{{"uuid", "GPU-p"}, {"name", "Test GPU"}}}},
                     {"kernels", {{{"name", "k"}, {"parameter_names", {"block_x"}}}}},
                     {"trials", trials}});
  return read_database(file);
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == text.npos) return parts;
    start = end + 1;
  }
}

// The CSV's predicted_ms by config (none of the fields here need quoting).
std::map<std::string, std::string> csv_predictions(const std::string& csv) {
  auto lines = split(csv, '\n');
  const auto header = split(lines.at(0), ',');
  const auto config = std::ranges::find(header, "config") - header.begin();
  const auto predicted = std::ranges::find(header, "predicted_ms") - header.begin();
  REQUIRE(predicted == std::ranges::find(header, "median_ms") - header.begin() + 1);
  std::map<std::string, std::string> values;
  for (std::size_t i = 1; i < lines.size() && !lines[i].empty(); ++i) {
    const auto fields = split(lines[i], ',');
    values[fields.at(config)] = fields.at(predicted);
  }
  return values;
}

}  // namespace

TEST_CASE("reports show predicted next to measured, and how well the model ranked") {
  TempDir dir;
  const DatabaseContents contents = predicted_store(dir);
  const std::string model_fact =
      "Spearman rank correlation 0.80 between predicted and measured time over 4 timed configurations; its fastest "
      "prediction, block_x=64, ranked 2nd of 5 measured";

  const std::string text = explain(contents, {.kernel = "k", .problem = size, .device = {}, .config = {}});
  CHECK_THAT(text, Catch::Contains("predicted     1.5 ms by the execution-time model; measured 0.67x that"));
  CHECK_THAT(text, Catch::Contains("model         Spearman rank correlation 0.80"));
  const std::string unpredicted =
      explain(contents, {.kernel = "k", .problem = size, .device = {}, .config = "block_x=512"});
  CHECK_THAT(unpredicted, !Catch::Contains("\n  predicted"));
  CHECK_THAT(unpredicted, Catch::Contains("model "));  // the session's agreement, whichever trial is explained

  const std::string markdown = render_report(contents, {}, ReportFormat::markdown);
  CHECK_THAT(markdown, Catch::Contains("| model | " + model_fact + " |"));
  CHECK_THAT(markdown, Catch::Contains("| rank | configuration | block | median ms | predicted ms | occupancy |"));
  CHECK_THAT(markdown, Catch::Contains("| 1 | `block_x=32` | 32x1x1 | 1.0000 | 1.5000 |"));
  CHECK_THAT(markdown, Catch::Contains("| 5 | `block_x=512` | 512x1x1 | 5.0000 | - |"));

  const std::string html = render_report(contents, {}, ReportFormat::html);
  CHECK_THAT(html, Catch::Contains("<th class=\"number\">median ms</th><th class=\"number\">predicted ms</th>"));
  CHECK_THAT(html, Catch::Contains("<td class=\"number\">2.0000</td><td class=\"number\">1.0000</td>"));
  CHECK_THAT(html, Catch::Contains(model_fact));

  const auto predictions = csv_predictions(render_report(contents, {}, ReportFormat::csv));
  CHECK(predictions == std::map<std::string, std::string>{{"block_x=32", "1.5"},
                                                          {"block_x=64", "1"},
                                                          {"block_x=128", "3"},
                                                          {"block_x=256", "4"},
                                                          {"block_x=512", ""},
                                                          {"block_x=1024", ""}});
}

TEST_CASE("reports of a database without predictions have no predicted column or model summary") {
  const DatabaseContents contents = read_database(h200_database());  // schema version 1
  for (const auto format : {ReportFormat::html, ReportFormat::markdown, ReportFormat::csv}) {
    const std::string report = render_report(contents, {}, format);
    CHECK_THAT(report, !Catch::Contains("predicted") && !Catch::Contains("Spearman"));
  }
  const std::string text = explain(contents, {.kernel = "stencil3d_r1", .problem = ProblemSize{{512, 512, 512}},
                                              .device = {}, .config = {}});
  CHECK_THAT(text, !Catch::Contains("predicted") && !Catch::Contains("model"));
}
