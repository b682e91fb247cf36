// The one reader and writer of configuration text, and the run-time query on
// configurations whose text values hold the characters that separate entries.
#include "db_test_util.hpp"

#include <blocktune/config_text.hpp>
#include <blocktune/runtime.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;
using namespace blocktune::test;

namespace {

ConfigEntry integer(std::string name, std::string value) { return {std::move(name), std::move(value), true}; }
ConfigEntry text(std::string name, std::string value) { return {std::move(name), std::move(value), false}; }

// A text value holding a comma and an '=', as the store writes it.
const std::vector<ConfigEntry> labelled = {integer("block_x", "64"), text("label", "a, b=c")};
constexpr std::string_view labelled_text = R"(block_x=64,label="a, b=c")";

}  // namespace

TEST_CASE("configuration text: values holding separators are quoted and read back equal") {
  CHECK(format_config_text(labelled) == labelled_text);
  CHECK(parse_config_text(labelled_text) == labelled);

  const std::vector<ConfigEntry> awkward = {text("a", "12"),      text("b", ""),           text("c", "x,y=z"),
                                            text("d", R"(say "hi" \ ok)"), text("e", "0x10"), text("f", "it's"),
                                            integer("g", "-3"),   text("h", "two words")};
  const std::string written = format_config_text(awkward);
  CHECK(written == R"(a="12",b="",c="x,y=z",d="say \"hi\" \\ ok",e=0x10,f="it's",g=-3,h="two words")");
  CHECK(parse_config_text(written) == awkward);

  // People type spaces and quotes the store would not write; they read the same.
  CHECK(parse_config_text(R"( block_x = 64 , label= "a, b=c" )") == labelled);
  CHECK(parse_config_text(R"(strategy="RING")") == std::vector{text("strategy", "RING")});
  CHECK(format_config_text(parse_config_text(R"(strategy="RING")")) == "strategy=RING");
  CHECK(parse_config_text("  ").empty());
  CHECK(format_config_text({}).empty());
}

TEST_CASE("configuration text: an error says what is wrong and at which character") {
  const auto fails = [](std::string_view config, const std::string& message) {
    INFO(config);
    CHECK_THROWS_AS(parse_config_text(config), std::invalid_argument);
    CHECK_THROWS_WITH(parse_config_text(config), message);
  };
  fails("block_x", "invalid configuration 'block_x' at character 1: expected 'name=value'");
  fails("a=1,b,c=2", "invalid configuration 'a=1,b,c=2' at character 5: expected 'name=value'");
  fails("a=1,", "invalid configuration 'a=1,' at its end: expected 'name=value' after the last ','");
  fails("a=1,b=2=3", "invalid configuration 'a=1,b=2=3' at character 8: the value of 'b' must be quoted: it holds '='");
  fails("a=x,2b=1", "invalid configuration 'a=x,2b=1' at character 5: '2b' is not a parameter name");
  fails("=1", "invalid configuration '=1' at character 1: '' is not a parameter name");
  fails("a=1, b= ,c=2", "invalid configuration 'a=1, b= ,c=2' at character 9: 'b' has no value");
  fails(R"(a=1,b="x,y)", R"(invalid configuration 'a=1,b="x,y' at character 7: the value of 'b' has no closing quote)");
  fails(R"(a="x"y)", R"(invalid configuration 'a="x"y' at character 6: expected ',' after the value of 'a')");
}

TEST_CASE("the run-time query answers a text value holding a comma and an '=' as it was stored") {
  TempDir dir;
  const auto file = dir / "tuning.db";
  const DeviceRecord gpu = device("GPU-A", "NVIDIA H100 80GB HBM3", 9, 0, 132);
  const ProblemSize problem{{512}};
  {
    Store store = Store::open(file);
    const auto kernel = store.upsert_kernel({"labelled", "hash", {"block_x", "label"}, "block_x=32,label=\"x=1,y=2\"",
                                             LaunchShape{{32, 1, 1}, -1}});
    const auto device_id = store.upsert_device(gpu);
    const auto problem_id = store.upsert_problem(kernel, problem);
    TrialRecord winner = trial(64, 1, 1, 0.5);
    winner.config = format_config_text(labelled);
    store.add_trial(device_id, kernel, problem_id, winner);
    store.update_winner(device_id, kernel, problem_id);
  }
  const auto db = TuningDatabase::open(file);

  const BestConfig& tuned = db.best("labelled", {"GPU-A", gpu.name, 9, 0, 132}, problem);
  CHECK(tuned.match == MatchKind::exact);
  CHECK(tuned.config == labelled_text);
  CHECK(tuned.parameters == std::vector<std::pair<std::string, std::string>>{{"block_x", "64"}, {"label", "a, b=c"}});
  CHECK(tuned.get("label") == "a, b=c");
  CHECK(tuned.get_int("block_x", 0) == 64);

  // A device nothing was tuned on gets the kernel's default, parsed the same way.
  const BestConfig& fallback = db.best("labelled", {"GPU-Z", "Other GPU", 7, 5, 40}, problem);
  CHECK(fallback.match == MatchKind::kernel_default);
  CHECK(fallback.get("label") == "x=1,y=2");
}
