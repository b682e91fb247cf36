#include <catch2/catch.hpp>

#include <blocktune/detail/space.hpp>

#include "brute_force.hpp"

#include <random>

using blocktune::Config;
using blocktune::ExpressionError;
using blocktune::Lookup;
using blocktune::Parameter;
using blocktune::SearchSpace;
using blocktune::Value;
using blocktune::testing::brute_force;

namespace {

Value integer(std::int64_t v) { return v; }

// Written out rather than "p" + std::to_string(i), which trips a GCC 12 -Wrestrict false positive.
std::string parameter_name(std::size_t i) {
  std::string name = "p";
  name += std::to_string(i);
  return name;
}
Value text(std::string v) { return v; }

Lookup device_limits() {
  return [](std::string_view name) -> std::optional<Value> {
    if (name == "max_threads_per_block") return integer(1024);
    if (name == "max_shared_per_block") return integer(48 * 1024);
    return std::nullopt;
  };
}

}  // namespace

TEST_CASE("Config looks up parameters by name") {
  const Config config({{"block_x", integer(32)}, {"strategy", text("BASE")}});
  CHECK(config.at("block_x") == integer(32));
  CHECK(config.get_int("block_x") == 32);
  CHECK(config.find("strategy") != nullptr);
  CHECK(config.find("block_y") == nullptr);
  CHECK_THROWS_AS(config.at("block_y"), std::out_of_range);
  CHECK_THROWS_WITH(config.at("block_y"), Catch::Contains("block_y"));
  CHECK_THROWS_WITH(config.get_int("strategy"), Catch::Contains("not an integer"));
  CHECK_THROWS_WITH(Config({{"a", integer(1)}, {"a", integer(2)}}), Catch::Contains("'a' twice"));
}

TEST_CASE("Config text round-trips") {
  const Config config({{"block_x", integer(32)}, {"block_y", integer(-4)}, {"strategy", text("BASE")}});
  CHECK(config.to_string() == "block_x=32,block_y=-4,strategy=BASE");
  CHECK(Config::parse("block_x=32,block_y=-4,strategy=BASE") == config);
  CHECK(Config::parse(" block_x = 32 , block_y=-4,strategy= BASE ") == config);
  CHECK(Config::parse("").entries().empty());
  CHECK(Config().to_string().empty());

  // Strings that would not read back as themselves are quoted.
  const Config awkward({{"a", text("32")},
                        {"b", text("")},
                        {"c", text("x,y=z")},
                        {"d", text("say \"hi\" \\ ok")},
                        {"e", text("0x10")},
                        {"f", text("-")}});
  CHECK(awkward.to_string() == R"(a="32",b="",c="x,y=z",d="say \"hi\" \\ ok",e=0x10,f=-)");
  CHECK(Config::parse(awkward.to_string()) == awkward);
}

TEST_CASE("Config parse errors say what is wrong") {
  CHECK_THROWS_WITH(Config::parse("block_x"), Catch::Contains("expected 'name=value'"));
  CHECK_THROWS_WITH(Config::parse("a=1,"), Catch::Contains("expected 'name=value'"));
  CHECK_THROWS_WITH(Config::parse("a=1;b=2"), Catch::Contains("must be quoted: it holds '='"));
  CHECK_THROWS_WITH(Config::parse("a;b=2"), Catch::Contains("'a;b' is not a parameter name"));
  CHECK_THROWS_WITH(Config::parse("a="), Catch::Contains("'a' has no value"));
  CHECK_THROWS_WITH(Config::parse("a=\"x"), Catch::Contains("no closing quote"));
  CHECK_THROWS_WITH(Config::parse("a=\"x\"y"), Catch::Contains("expected ','"));
  CHECK_THROWS_WITH(Config::parse("a=99999999999999999999"), Catch::Contains("out of 64-bit integer range"));
  CHECK_THROWS_WITH(Config::parse("a=1,a=2"), Catch::Contains("'a' twice"));
  CHECK_THROWS_AS(Config::parse("=1"), std::invalid_argument);
}

TEST_CASE("Config lookup resolves parameters before the fallback") {
  const Config config({{"block_x", integer(64)}, {"max_threads_per_block", integer(1)}});
  const Lookup lookup = config.lookup(device_limits());
  CHECK(lookup("block_x") == integer(64));
  CHECK(lookup("max_threads_per_block") == integer(1));
  CHECK(lookup("max_shared_per_block") == integer(48 * 1024));
  CHECK_FALSE(lookup("unknown").has_value());
  CHECK_FALSE(config.lookup()("unknown").has_value());
}

TEST_CASE("SearchSpace rejects malformed parameters") {
  SearchSpace space;
  space.add_parameter({"block_x", {integer(32), integer(64)}});
  CHECK_THROWS_WITH(space.add_parameter({"block_x", {integer(1)}}), Catch::Contains("defined twice"));
  CHECK_THROWS_WITH(space.add_parameter({"block_y", {}}), Catch::Contains("no values"));
  CHECK_THROWS_WITH(space.add_parameter({"block y", {integer(1)}}), Catch::Contains("not a valid parameter name"));
  CHECK_THROWS_WITH(space.add_parameter({"tile", {integer(1), integer(2), integer(1)}}),
                    Catch::Contains("lists the value 1 twice"));
  CHECK_THROWS_AS(space.add_constraint("block_x <"), ExpressionError);
  CHECK(space.parameters().size() == 1);
  CHECK(space.constraints().empty());
}

TEST_CASE("SearchSpace enumerates valid configurations in lexicographic order") {
  SearchSpace space;
  space.add_parameter({"block_x", {integer(16), integer(32), integer(64)}});
  space.add_parameter({"strategy", {text("BASE"), text("TILED")}});
  space.add_parameter({"block_y", {integer(1), integer(2), integer(4)}});
  space.add_constraint("block_x * block_y <= 64");
  space.add_constraint("strategy == 'TILED' || block_y == 1");
  CHECK(space.raw_size() == 18.0);

  std::vector<std::string> texts;
  for (const Config& config : space.enumerate()) texts.push_back(config.to_string());
  CHECK(texts == std::vector<std::string>{
                     "block_x=16,strategy=BASE,block_y=1",
                     "block_x=16,strategy=TILED,block_y=1",
                     "block_x=16,strategy=TILED,block_y=2",
                     "block_x=16,strategy=TILED,block_y=4",
                     "block_x=32,strategy=BASE,block_y=1",
                     "block_x=32,strategy=TILED,block_y=1",
                     "block_x=32,strategy=TILED,block_y=2",
                     "block_x=64,strategy=BASE,block_y=1",
                     "block_x=64,strategy=TILED,block_y=1",
                 });
}

TEST_CASE("SearchSpace interleaves independent groups in parameter order") {
  // a and c are constrained together, b and d together: two groups whose
  // parameters alternate, which a plain product of groups would misorder.
  SearchSpace space;
  for (const char* name : {"a", "b", "c", "d"}) space.add_parameter({name, {integer(0), integer(1), integer(2)}});
  space.add_constraint("a + c <= 2");
  space.add_constraint("b != d");
  const auto configs = space.enumerate();
  CHECK(configs == brute_force(space));
  CHECK(configs.size() == 6 * 6);
}

TEST_CASE("SearchSpace uses the environment for names that are not parameters") {
  SearchSpace space;
  space.add_parameter({"block_x", {integer(256), integer(512), integer(1024)}});
  space.add_parameter({"block_y", {integer(1), integer(2)}});
  space.add_constraint("block_x * block_y <= max_threads_per_block");
  const auto configs = space.enumerate(device_limits());
  REQUIRE(configs.size() == 5);
  CHECK(configs.back().to_string() == "block_x=1024,block_y=1");

  // A parameter shadows an environment variable of the same name.
  space.add_parameter({"max_threads_per_block", {integer(256)}});
  CHECK(space.enumerate(device_limits()).size() == 1);
}

TEST_CASE("SearchSpace constraints on the environment alone") {
  SearchSpace space;
  space.add_parameter({"x", {integer(1), integer(2)}});
  space.add_constraint("max_shared_per_block >= 1024");
  CHECK(space.enumerate(device_limits()).size() == 2);
  space.add_constraint("max_threads_per_block > 2048");
  CHECK(space.enumerate(device_limits()).empty());
}

TEST_CASE("SearchSpace edge cases") {
  SearchSpace empty;
  CHECK(empty.raw_size() == 1.0);
  REQUIRE(empty.enumerate().size() == 1);
  CHECK(empty.enumerate().front().entries().empty());

  SearchSpace impossible;
  impossible.add_parameter({"x", {integer(1), integer(2)}});
  impossible.add_parameter({"y", {integer(1), integer(2)}});
  impossible.add_constraint("y > 5");
  CHECK(impossible.enumerate().empty());

  SearchSpace unconstrained;
  unconstrained.add_parameter({"x", {integer(1), integer(2)}});
  unconstrained.add_parameter({"s", {text("p"), text("q"), text("r")}});
  CHECK(unconstrained.enumerate() == brute_force(unconstrained));
  CHECK(unconstrained.enumerate().size() == 6);
}

TEST_CASE("SearchSpace reports unknown names and evaluation errors") {
  SearchSpace space;
  space.add_parameter({"block_x", {integer(0), integer(32)}});
  space.add_constraint("block_x <= max_threads");
  CHECK_THROWS_WITH(space.enumerate(device_limits()),
                    Catch::Contains("'block_x <= max_threads'") && Catch::Contains("'max_threads'"));

  SearchSpace dividing;
  dividing.add_parameter({"n", {integer(4), integer(0)}});
  dividing.add_constraint("64 % n == 0");
  CHECK_THROWS_WITH(dividing.enumerate(), Catch::Contains("modulo by zero") && Catch::Contains("with n=0"));
}

TEST_CASE("SearchSpace check names the first violated constraint") {
  SearchSpace space;
  space.add_parameter({"block_x", {integer(32), integer(64)}});
  space.add_parameter({"block_y", {integer(16), integer(32)}});
  space.add_constraint("block_x * block_y <= max_threads_per_block");
  space.add_constraint("block_y <= 16");
  CHECK_FALSE(space.check(Config::parse("block_x=32,block_y=16"), device_limits()).has_value());
  const auto violation = space.check(Config::parse("block_x=64,block_y=32"), device_limits());
  REQUIRE(violation.has_value());
  CHECK(violation->constraint == "block_x * block_y <= max_threads_per_block");
  CHECK(space.check(Config::parse("block_x=32,block_y=32"), device_limits())->constraint == "block_y <= 16");
  CHECK_THROWS_WITH(space.check(Config::parse("block_x=32,block_y=32")), Catch::Contains("max_threads_per_block"));
}

TEST_CASE("SearchSpace enumeration matches brute force on random spaces") {
  // Constraint shapes over parameters p0..p5 (integers 0..4); {} are filled
  // with random parameter names so that the grouping varies from space to space.
  const std::vector<std::string> shapes = {
      "{} * {} <= limit",     "({} + {}) % 3 != 0",     "{} < {} || {} == 2",  "{} != {}",
      "is_pow2({} + 1)",      "max({}, {}, {}) - min({}, {}) <= 2",           "{} % 2 == 0",
  };
  std::mt19937_64 random(20240607);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  const Lookup environment = [](std::string_view name) -> std::optional<Value> {
    if (name == "limit") return integer(6);
    return std::nullopt;
  };

  std::size_t total_valid = 0;
  for (int trial = 0; trial < 200; ++trial) {
    SearchSpace space;
    const std::size_t parameter_count = 1 + pick(6);
    for (std::size_t p = 0; p < parameter_count; ++p) {
      std::vector<Value> values;
      for (std::int64_t v = 0, count = 1 + static_cast<std::int64_t>(pick(5)); v < count; ++v) values.push_back(v);
      space.add_parameter({parameter_name(p), values});
    }
    for (std::size_t c = 0, count = pick(4); c < count; ++c) {
      std::string constraint;
      for (const char ch : shapes[pick(shapes.size())]) {
        if (ch == '{') constraint += parameter_name(pick(parameter_count));
        else if (ch != '}') constraint += ch;
      }
      space.add_constraint(constraint);
    }
    const auto expected = brute_force(space, environment);
    INFO("trial " << trial);
    REQUIRE(space.enumerate(environment) == expected);
    total_valid += expected.size();
  }
  CHECK(total_valid > 1000);  // the trials are not all trivially empty
}
