#include <catch2/catch.hpp>

#include <blocktune/candidates.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>

#include "brute_force.hpp"

using blocktune::Config;
using blocktune::ConstrainedSpace;
using blocktune::ExpressionError;
using blocktune::Lookup;
using blocktune::SearchSpace;
using blocktune::Value;
using blocktune::testing::brute_force;
using blocktune::testing::raw_product;

namespace {

std::vector<Value> integers(std::initializer_list<std::int64_t> values) { return {values.begin(), values.end()}; }

std::vector<Value> range(std::int64_t first, std::int64_t last) {
  std::vector<Value> values;
  for (std::int64_t v = first; v <= last; ++v) values.emplace_back(v);
  return values;
}

// Written out rather than "p" + std::to_string(i), which trips a GCC 12 -Wrestrict false positive.
std::string parameter_name(std::size_t i) {
  std::string name = "p";
  name += std::to_string(i);
  return name;
}

Lookup environment() {
  return [](std::string_view name) -> std::optional<Value> {
    if (name == "limit") return Value{std::int64_t{6}};
    if (name == "mode") return Value{std::string("fast")};
    return std::nullopt;
  };
}

// A random space of up to 6 parameters, each of integers, of strings or of
// both, listed unsorted; constraints of random shapes over 2 to 4 of them
// (or over the environment alone), so that the grouping and the frontiers
// vary from space to space.
class RandomSpaces {
 public:
  explicit RandomSpaces(std::uint64_t seed) : random_(seed) {}

  SearchSpace next() {
    SearchSpace space;
    std::vector<std::string> numeric, any;
    const std::size_t parameter_count = 1 + pick(6);
    for (std::size_t p = 0; p < parameter_count; ++p) {
      const std::string name = parameter_name(p);
      const std::size_t kind = pick(5);  // 0-2 integers, 3 strings, 4 both
      std::vector<Value> pool = kind != 3 ? range(-2, 9) : std::vector<Value>{};
      if (kind >= 3)
        for (const char* text : {"a", "b", "fast", "zz", "10"}) pool.emplace_back(std::string(text));
      std::shuffle(pool.begin(), pool.end(), random_);
      pool.resize(1 + pick(5));
      space.add_parameter({name, pool});
      if (kind <= 2) numeric.push_back(name);
      any.push_back(name);
    }

    for (std::size_t c = 0, count = pick(5); c < count; ++c) {
      // {i}: a parameter of integers; {a}: any parameter (compared with == and != only).
      static const std::vector<std::string> shapes = {
          "{i} * {i} <= limit",
          "({i} + {i}) % 3 != 0",
          "{i} < {i} || {i} == 2",
          "max({i}, {i}, {i}) - min({i}, {i}) <= 4",
          "{i} + {i} + {i} + {i} >= 2",
          "{i} % 2 == 0 || {a} != {a}",
          "{i} * {i} * {i} > 1000",  // rejects everything: values are at most 9
          "{a} != {a}",
          "{a} == 'b' || {a} == {a} || {a} == 3",
          "{a} == mode || {a} != 3",
          "limit > 5",      // the environment alone, true
          "mode == 'slow'",  // the environment alone, false
      };
      const std::string& shape = shapes[pick(shapes.size())];
      if (shape.find("{i}") != std::string::npos && numeric.empty()) continue;
      std::string constraint;
      for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == '{') {
          const auto& names = shape[i + 1] == 'i' ? numeric : any;
          constraint += names[pick(names.size())];
          i += 2;
        } else {
          constraint += shape[i];
        }
      }
      space.add_constraint(constraint);
    }
    return space;
  }

 private:
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(random_() % n); }
  std::mt19937_64 random_;
};

// Coordinates as the header defines them: per parameter, the rank of the value
// among the parameter's values, integers ascending before strings.
std::vector<std::uint32_t> expected_coordinates(const SearchSpace& space, const Config& config) {
  std::vector<std::uint32_t> coordinates;
  for (const auto& parameter : space.parameters()) {
    const Value& value = config.at(parameter.name);
    coordinates.push_back(static_cast<std::uint32_t>(
        std::count_if(parameter.values.begin(), parameter.values.end(), [&](const Value& other) { return other < value; })));
  }
  return coordinates;
}

// A uniform integer in [0, n) from the engine's raw output, by rejection.
std::uint64_t uniform_below(std::mt19937_64& random, std::uint64_t n) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  while (true)
    if (const std::uint64_t draw = random(); draw < limit) return draw % n;
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

TEST_CASE("ConstrainedSpace counts, indexes and lists random spaces as brute force does") {
  RandomSpaces spaces(20261124);
  const Lookup env = environment();
  std::size_t total_valid = 0, empty_spaces = 0, full_spaces = 0, grouped_spaces = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const SearchSpace space = spaces.next();
    std::string constraints;
    for (const auto& constraint : space.constraints()) constraints += " [" + constraint.text() + "]";
    INFO("trial " << trial << ", constraints" << constraints);
    const std::vector<Config> expected = brute_force(space, env);
    const ConstrainedSpace solved(space, env);
    REQUIRE(solved.size() == expected.size());
    REQUIRE(solved.dimensions() == space.parameters().size());
    for (std::size_t p = 0; p < space.parameters().size(); ++p)
      REQUIRE(solved.extent(p) == space.parameters()[p].values.size());

    std::map<std::string, std::uint64_t> index_by_text;
    std::vector<std::uint32_t> coordinates(solved.dimensions());
    for (std::uint64_t i = 0; i < expected.size(); ++i) {
      REQUIRE(solved.at(i) == expected[i]);
      solved.coordinates(i, coordinates);
      REQUIRE(coordinates == expected_coordinates(space, expected[i]));
      REQUIRE(solved.find(coordinates) == i);
      index_by_text[expected[i].to_string()] = i;
    }
    for (const Config& point : raw_product(space)) {
      const auto known = index_by_text.find(point.to_string());
      const std::optional<std::uint64_t> index = known == index_by_text.end() ? std::nullopt : std::optional(known->second);
      REQUIRE(solved.index_of(point) == index);
      if (!index) REQUIRE_FALSE(solved.find(expected_coordinates(space, point)).has_value());
    }

    std::vector<Config> listed;
    solved.for_each([&](std::uint64_t index, const Config& config) {
      CHECK(index == listed.size());
      listed.push_back(config);
      return true;
    });
    REQUIRE(listed == expected);
    const std::uint64_t middle = expected.size() / 2;
    std::vector<Config> rest;
    solved.for_each([&](std::uint64_t index, const Config& config) {
      CHECK(index == middle + rest.size());
      rest.push_back(config);
      return rest.size() < 3;  // stops after three
    }, middle);
    REQUIRE(rest == std::vector<Config>(expected.begin() + static_cast<std::ptrdiff_t>(middle),
                                        expected.begin() + static_cast<std::ptrdiff_t>(std::min(middle + 3, expected.size()))));
    REQUIRE(space.enumerate(env) == expected);

    total_valid += expected.size();
    empty_spaces += expected.empty() ? 1 : 0;
    full_spaces += expected.size() == static_cast<std::size_t>(space.raw_size()) ? 1 : 0;
    grouped_spaces += solved.memo_entries() > 0 ? 1 : 0;
  }
  // The trials cover empty, unconstrained and memoised spaces, and are not all trivial.
  CHECK(total_valid > 20000);
  CHECK(empty_spaces > 20);
  CHECK(full_spaces > 20);
  CHECK(grouped_spaces > 50);
}

TEST_CASE("ConstrainedSpace orders interleaved groups lexicographically") {
  // a and c are constrained together, b and d together: groups whose
  // parameters alternate, with values listed unsorted.
  SearchSpace space;
  for (const char* name : {"a", "b", "c", "d"}) space.add_parameter({name, integers({2, 0, 1})});
  space.add_constraint("a + c <= 2");
  space.add_constraint("b != d");
  const ConstrainedSpace solved(space);
  REQUIRE(solved.size() == 36);
  CHECK(solved.at(0).to_string() == "a=2,b=2,c=0,d=0");
  CHECK(solved.at(1).to_string() == "a=2,b=2,c=0,d=1");
  CHECK(solved.at(35).to_string() == "a=1,b=1,c=1,d=0");
  CHECK(solved.index_of(Config::parse("a=0,b=1,c=2,d=2")) == 6 + 2 * 6);  // after a=2 (c=0 only), then b=2 and b=0
  CHECK(solved.at(18).to_string() == "a=0,b=1,c=2,d=2");
  CHECK_FALSE(solved.index_of(Config::parse("a=2,b=1,c=2,d=2")).has_value());  // a + c > 2
  CHECK_FALSE(solved.index_of(Config::parse("a=2,b=1,c=0,d=1")).has_value());  // b == d
}

TEST_CASE("ConstrainedSpace finds nothing for configurations outside the space") {
  SearchSpace space;
  space.add_parameter({"x", integers({1, 2})});
  space.add_parameter({"s", {Value{std::string("p")}, Value{std::string("q")}}});
  const ConstrainedSpace solved(space);
  CHECK(solved.index_of(Config::parse("x=2,s=q")) == 3);
  CHECK(solved.index_of(Config::parse("s=q,x=2")) == 3);  // names in another order
  CHECK_FALSE(solved.index_of(Config::parse("x=3,s=q")).has_value());
  CHECK_FALSE(solved.index_of(Config::parse("x=2,s=r")).has_value());
  CHECK_FALSE(solved.index_of(Config::parse("x=2,t=q")).has_value());
  CHECK_FALSE(solved.index_of(Config::parse("x=2")).has_value());
  CHECK_FALSE(solved.index_of(Config::parse("x=2,s=q,y=1")).has_value());
  CHECK_FALSE(solved.index_of(Config::parse("x=\"2\",s=q")).has_value());  // a string, not the integer
  CHECK_FALSE(solved.find(std::vector<std::uint32_t>{2, 0}).has_value());
  CHECK_FALSE(solved.find(std::vector<std::uint32_t>{0}).has_value());
  CHECK_THROWS_AS(solved.at(4), std::out_of_range);
  CHECK_THROWS_WITH(solved.at(4), Catch::Contains("4") && Catch::Contains("4 valid configurations"));
}

TEST_CASE("ConstrainedSpace draws uniformly from a uniform index") {
  // 50 valid configurations of 12 x 12 x 2 raw points.
  SearchSpace space;
  space.add_parameter({"a", integers({7, 1, 12, 2, 3, 4, 5, 6, 8, 9, 10, 11})});
  space.add_parameter({"mode", {Value{std::string("x")}, Value{std::string("y")}}});
  space.add_parameter({"b", integers({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})});
  space.add_constraint("a * b <= 20");
  space.add_constraint("mode == 'x' || a + b > 100");
  const ConstrainedSpace solved(space);
  REQUIRE(solved.size() == 50);

  std::mt19937_64 random(7);
  std::map<std::string, int> drawn;
  constexpr int kDraws = 50000;
  for (int i = 0; i < kDraws; ++i) {
    const Config config = solved.at(uniform_below(random, solved.size()));
    REQUIRE_FALSE(space.check(config).has_value());
    ++drawn[config.to_string()];
  }
  REQUIRE(drawn.size() == 50);
  const double expected = kDraws / 50.0;
  double chi_squared = 0;
  for (const auto& [config, count] : drawn) chi_squared += (count - expected) * (count - expected) / expected;
  CHECK(chi_squared < 85.35);  // the 0.999 quantile of chi-squared with 49 degrees of freedom
}

TEST_CASE("ConstrainedSpace counts 10^7 raw points in bounded memory") {
  SearchSpace space;
  const auto powers_of_two = [](std::int64_t last) {
    std::vector<Value> values;
    for (std::int64_t v = 1; v <= last; v *= 2) values.emplace_back(v);
    return values;
  };
  const std::vector<Value> tiles = range(1, 16);
  space.add_parameter({"block_x", powers_of_two(1024)});
  space.add_parameter({"block_y", powers_of_two(1024)});
  space.add_parameter({"block_z", powers_of_two(64)});
  space.add_parameter({"tile_x", tiles});
  space.add_parameter({"tile_y", tiles});
  space.add_parameter({"unroll", powers_of_two(16)});
  space.add_parameter({"vector", powers_of_two(4)});
  space.add_parameter({"cache", {Value{std::string("none")}, Value{std::string("l1")}, Value{std::string("shared")}}});
  space.add_constraint("block_x * block_y * block_z <= 1024 && block_x * block_y * block_z >= 32");
  space.add_constraint("block_x * tile_x * vector <= 4096");
  space.add_constraint("unroll <= tile_x * tile_y");
  space.add_constraint("cache != 'shared' || (block_x * tile_x * vector + 2) * (block_y * tile_y + 2) * 4 <= 49152");
  REQUIRE(space.raw_size() == 11.0 * 11 * 7 * 16 * 16 * 5 * 3 * 3);  // 9.8 million

  const long before = peak_rss_kib();
  const ConstrainedSpace solved(space);
  const long growth_kib = peak_rss_kib() - before;
  CHECK(growth_kib < 100 * 1024);
  CHECK(solved.memo_entries() < 40000);  // for 2.1 million valid configurations

  // The same count by plain loops over the product.
  std::uint64_t expected = 0;
  for (std::int64_t x = 1; x <= 1024; x *= 2)
    for (std::int64_t y = 1; y <= 1024; y *= 2)
      for (std::int64_t z = 1; z <= 64; z *= 2)
        for (std::int64_t tx = 1; tx <= 16; ++tx)
          for (std::int64_t ty = 1; ty <= 16; ++ty)
            for (std::int64_t unroll = 1; unroll <= 16; unroll *= 2)
              for (std::int64_t vector = 1; vector <= 4; vector *= 2) {
                const bool threads = x * y * z <= 1024 && x * y * z >= 32;
                if (!threads || x * tx * vector > 4096 || unroll > tx * ty) continue;
                const bool shared_fits = (x * tx * vector + 2) * (y * ty + 2) * 4 <= 49152;
                expected += shared_fits ? 3 : 2;
              }
  REQUIRE(solved.size() == expected);

  std::mt19937_64 random(11);
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t index = uniform_below(random, solved.size());
    const Config config = solved.at(index);
    REQUIRE_FALSE(space.check(config).has_value());
    REQUIRE(solved.index_of(config) == index);
  }
}

TEST_CASE("ConstrainedSpace reports counting progress") {
  SearchSpace space;
  for (const char* name : {"a", "b", "c", "d", "e"}) space.add_parameter({name, range(0, 23)});
  space.add_constraint("(a * b + c * d + e) % 7 != 0");  // every prefix is remembered: 8 million evaluations
  std::vector<double> fractions;
  const ConstrainedSpace solved(space, {}, [&](double fraction) { fractions.push_back(fraction); });
  REQUIRE_FALSE(fractions.empty());
  CHECK(fractions.back() == 1.0);
  CHECK(std::is_sorted(fractions.begin(), fractions.end()));
  CHECK(fractions.front() >= 0.0);
  CHECK(solved.size() > 0);
}

TEST_CASE("ConstrainedSpace decides constraints on the environment alone once") {
  SearchSpace space;
  space.add_parameter({"x", integers({1, 2})});
  space.add_constraint("limit >= 6");
  CHECK(ConstrainedSpace(space, environment()).size() == 2);
  space.add_constraint("mode == 'slow'");
  const ConstrainedSpace rejected(space, environment());
  CHECK(rejected.size() == 0);
  CHECK_FALSE(rejected.index_of(Config::parse("x=1")).has_value());
  CHECK_THROWS_AS(rejected.at(0), std::out_of_range);

  SearchSpace empty;
  const ConstrainedSpace nothing_to_choose(empty);
  REQUIRE(nothing_to_choose.size() == 1);
  CHECK(nothing_to_choose.at(0).entries().empty());
  CHECK(nothing_to_choose.index_of(Config()) == 0);
}

TEST_CASE("ConstrainedSpace names unknown variables and failed evaluations") {
  SearchSpace space;
  space.add_parameter({"block_x", integers({0, 32})});
  space.add_constraint("block_x <= max_threads");
  CHECK_THROWS_AS(ConstrainedSpace(space, environment()), ExpressionError);
  CHECK_THROWS_WITH(ConstrainedSpace(space, environment()),
                    Catch::Contains("'block_x <= max_threads'") && Catch::Contains("'max_threads'"));

  SearchSpace dividing;
  dividing.add_parameter({"m", integers({64, 32})});
  dividing.add_parameter({"n", integers({4, 0})});
  dividing.add_constraint("m % n == 0");
  CHECK_THROWS_WITH(ConstrainedSpace(dividing),
                    Catch::Contains("'m % n == 0'") && Catch::Contains("modulo by zero") && Catch::Contains("with m=64, n=0"));

  SearchSpace environment_only;
  environment_only.add_parameter({"x", integers({1})});
  environment_only.add_constraint("limit / (limit - 6) > 0");
  CHECK_THROWS_WITH(ConstrainedSpace(environment_only, environment()),
                    Catch::Contains("'limit / (limit - 6) > 0'") && Catch::Contains("division by zero"));
}

TEST_CASE("ConstrainedSpace refuses counts past 2^64 - 1") {
  const std::vector<Value> values = range(0, 99);

  // Ten independent parameters: 10^20 configurations.
  SearchSpace independent;
  for (std::size_t p = 0; p < 10; ++p) independent.add_parameter({parameter_name(p), values});
  CHECK_THROWS_AS(ConstrainedSpace(independent), std::overflow_error);
  CHECK_THROWS_WITH(ConstrainedSpace(independent), Catch::Contains("more than 2^64 - 1") && Catch::Contains("1e+20"));

  // One chain of constraints: 100 x 99^10 configurations in one group.
  SearchSpace chained;
  for (std::size_t p = 0; p < 11; ++p) chained.add_parameter({parameter_name(p), values});
  for (std::size_t p = 1; p < 11; ++p) chained.add_constraint(parameter_name(p - 1) + " != " + parameter_name(p));
  CHECK_THROWS_AS(ConstrainedSpace(chained), std::overflow_error);

  // Just below the limit: 2^63 configurations count.
  SearchSpace binary;
  for (std::size_t p = 0; p < 63; ++p) binary.add_parameter({parameter_name(p), integers({0, 1})});
  CHECK(ConstrainedSpace(binary).size() == std::uint64_t{1} << 63);
}
