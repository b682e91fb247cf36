// What TunedKernel launches, decided without a GPU: the database's answer,
// checked against the description, or the default.
#include "spec_test_util.hpp"
#include "tuned_database.hpp"

#include <blocktune/launcher.hpp>
#include <blocktune/store.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;
using namespace blocktune::test;

namespace {

KernelDescription tunable() {
  Json spec = minimal_spec();
  spec["parameters"]["block_x"] = Json::array({32, 64, 128, 256});
  spec["default"] = {{"block_x", 64}};
  return from_json(spec);
}

}  // namespace

TEST_CASE("the device key of a profile is the one the tuner stores it under", "[launcher]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const DeviceKey key = device_key(h100);
  CHECK(key.uuid == "sm_90-profile");
  CHECK(key.name == h100.name);
  CHECK((key.cc_major == 9 && key.cc_minor == 0 && key.sm_count == 132));
}

TEST_CASE("the launcher takes the database's configuration and resolves it for the problem", "[launcher]") {
  ScratchDir dir;
  const KernelDescription k = tunable();
  const DeviceInfo h100 = require_arch_profile("sm_90");
  store_winner(dir / "tuning.db", k, h100, ProblemSize::parse("100000"), "block_x=256", 1.0);
  const TuningDatabase db = TuningDatabase::open(dir / "tuning.db");

  Selection exact = select_configuration(k, db, h100, ProblemSize::parse("100000"));
  CHECK(exact.match == MatchKind::exact);
  CHECK(exact.tuned());
  CHECK(exact.note.empty());
  CHECK(exact.config.to_string() == "block_x=256");
  CHECK(exact.resolved.shape.block == std::array<unsigned, 3>{256, 1, 1});
  CHECK(exact.resolved.shape.grid == std::array<unsigned, 3>{391, 1, 1});  // ceil(100000 / 256)
  CHECK(exact.resolved.request.kernel == "scale_reference");

  // Another size: the nearest tuned one's configuration, with this size's grid.
  const Selection near = select_configuration(k, db, h100, ProblemSize::parse("1000"));
  CHECK(near.match == MatchKind::nearest_problem);
  CHECK(near.config.to_string() == "block_x=256");
  CHECK(near.resolved.shape.grid == std::array<unsigned, 3>{4, 1, 1});
}

TEST_CASE("without a tuning result the launcher uses the default and says so", "[launcher]") {
  ScratchDir dir;
  const KernelDescription k = tunable();
  const DeviceInfo h100 = require_arch_profile("sm_90");
  Store::open(dir / "empty.db");
  const Selection none = select_configuration(k, TuningDatabase::open(dir / "empty.db"), h100, ProblemSize::parse("1000"));
  CHECK(none.match == MatchKind::none);
  CHECK_FALSE(none.tuned());
  CHECK(none.config.to_string() == "block_x=64");
  CHECK(none.resolved.shape.grid == std::array<unsigned, 3>{16, 1, 1});
}

TEST_CASE("TuningDatabase::empty() gives the default as an empty database file does", "[launcher]") {
  const Selection none = select_configuration(tunable(), TuningDatabase::empty(), require_arch_profile("sm_90"), ProblemSize::parse("1000"));
  CHECK(none.match == MatchKind::none);
  CHECK(none.config.to_string() == "block_x=64");
  CHECK(none.resolved.shape.grid == std::array<unsigned, 3>{16, 1, 1});
}

TEST_CASE("a stored configuration the description no longer allows is not launched", "[launcher]") {
  ScratchDir dir;
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const ProblemSize problem = ProblemSize::parse("1000");
  const KernelDescription k = tunable();
  store_winner(dir / "tuning.db", k, h100, problem, "block_x=128", 1.0);
  const TuningDatabase db = TuningDatabase::open(dir / "tuning.db");

  Json spec = minimal_spec();  // block_x is now 32 or 64 only
  spec["default"] = {{"block_x", 32}};
  Selection s = select_configuration(from_json(spec), db, h100, problem);
  CHECK(s.match == MatchKind::exact);
  CHECK_FALSE(s.tuned());
  CHECK(s.note == "the database's configuration block_x=128 is not used: block_x=128 is no longer one of the parameter's values; "
                  "launching the default");
  CHECK(s.config.to_string() == "block_x=32");

  spec = minimal_spec();
  spec["parameters"]["block_x"] = Json::array({32, 64, 128, 256});
  spec["constraints"] = Json::array({"block_x * 2 <= n"});  // 128 * 2 > 200
  spec["default"] = {{"block_x", 32}};
  s = select_configuration(from_json(spec), db, h100, ProblemSize::parse("200"));
  CHECK(s.note == "the database's configuration block_x=128 is not used: it violates block_x * 2 <= n; launching the default");

  spec = minimal_spec();
  spec["parameters"]["block_x"] = Json::array({32, 64, 128});
  spec["parameters"]["tile"] = Json::array({1, 2});
  spec["grid"] = {{"divisors", Json::array({"block_x * tile"})}};
  s = select_configuration(from_json(spec), db, h100, problem);
  CHECK(s.note == "the database's configuration block_x=128 is not used: it has no value for the parameter tile; launching the default");
  CHECK(s.config.to_string() == "block_x=32,tile=1");
}

TEST_CASE("a problem with the wrong number of dimensions is refused", "[launcher]") {
  ScratchDir dir;
  Store::open(dir / "empty.db");
  const KernelDescription k = tunable();
  CHECK_THROWS_WITH(select_configuration(k, TuningDatabase::open(dir / "empty.db"), require_arch_profile("sm_90"), ProblemSize::parse("64x64")),
                    "kernel minimal takes a problem of 1 dimension (n), got 64x64");
  Json spec = minimal_spec();
  spec["problem"] = Json::array({"nx", "ny"});
  spec["grid"]["divisors"] = Json::array({"block_x"});
  spec["arguments"][0]["count"] = spec["arguments"][1]["count"] = spec["arguments"][2]["value"] = "nx * ny";
  CHECK_THROWS_WITH(check_problem(from_json(spec), ProblemSize::parse("512x512x512")),
                    "kernel minimal takes a problem of 2 dimensions (nx x ny), got 512x512x512");
  CHECK_NOTHROW(check_problem(from_json(spec), ProblemSize::parse("512x512")));
}
