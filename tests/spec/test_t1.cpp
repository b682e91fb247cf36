// T1 tuning-problem files read as specs: their Python value lists, conditions,
// launch geometry and arguments, a spec that extends one, and what blocktune
// refuses, by field (tests/data/t1 holds files written here).
#include "spec_test_util.hpp"

#include <blocktune/candidates.hpp>
#include <blocktune/detail/device.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;
using namespace blocktune::test;

namespace {

const std::filesystem::path kT1Data = std::filesystem::path(BLOCKTUNE_TEST_DATA_DIR) / "t1";

Json saxpy_t1() { return Json::parse(read_text(kT1Data / "saxpy-t1.json")); }

KernelDescription from_t1(const Json& t1) { return parse_spec(t1.dump(), kT1Data, "saxpy-t1.json"); }

std::string error_of(const Json& t1) {
  try {
    from_t1(t1);
  } catch (const SpecError& error) {
    return error.what();
  }
  return "no error";
}

std::vector<std::string> values_of(const KernelDescription& k, std::string_view parameter) {
  std::vector<std::string> values;
  for (const Value& v : std::ranges::find(k.space.parameters(), parameter, &Parameter::name)->values) values.push_back(to_string(v));
  return values;
}

// The values a T1 "Values" text gives, through a copy of saxpy's T1 file.
std::vector<std::string> t1_values(const std::string& text) {
  Json t1 = saxpy_t1();
  t1["ConfigurationSpace"]["TuningParameters"][1]["Values"] = text;
  t1["ConfigurationSpace"]["TuningParameters"][1].erase("Default");
  t1["ConfigurationSpace"]["Conditions"] = Json::array();
  return values_of(from_t1(t1), "work_per_thread");
}

}  // namespace

TEST_CASE("a T1 file is read as the spec it stands for", "[t1]") {
  const KernelDescription k = load_spec(kT1Data / "saxpy-t1.json");
  CHECK(k.name == "saxpy");
  CHECK(k.entry == "saxpy");
  CHECK(k.problem_names == std::vector<std::string>{"nx"});
  REQUIRE(k.default_problem);
  CHECK(k.default_problem->to_string() == "100000");
  CHECK(k.define_names == DefineNames::as_is);
  CHECK(values_of(k, "block_size_x") == std::vector<std::string>{"32", "64", "128", "256", "384", "512", "640", "768", "896", "1024"});
  CHECK(values_of(k, "work_per_thread") == std::vector<std::string>{"1", "2", "8"});
  CHECK(k.default_config == "block_size_x=64,work_per_thread=1");
  // Kernel Tuner's macros for a kernel: block_size_y/z for the constant dimensions, kernel_tuner, then the file's options.
  CHECK(k.options == std::vector<std::string>{"-Dblock_size_y=1", "-Dblock_size_z=1", "-Dkernel_tuner=1", "-std=c++14"});
  CHECK(k.grid[0] == "ceil_div(100000, block_size_x * work_per_thread)");
  CHECK(k.grid[1] == "ceil_div(1, 1)");  // an OpenCL-style global size without GridDivY: divided by the block

  const auto& y = std::get<BufferArgument>(k.arguments[0]);
  CHECK(y.init == BufferArgument::Init::constant);
  CHECK(y.value == 1.0);
  CHECK(y.output);
  const auto& x = std::get<BufferArgument>(k.arguments[1]);
  CHECK(x.init == BufferArgument::Init::uniform);  // Random: uniform in [0, FillValue)
  CHECK(x.high == 2.0);
  CHECK(std::get<ScalarArgument>(k.arguments[2]).value == "0.5");
  CHECK(std::get<ScalarArgument>(k.arguments[3]).type == ElementType::i32);

  // The conditions, in Python's syntax, and the problem the file fixes.
  const ConstrainedSpace space(k.space, environment(k, require_arch_profile("sm_90"), *k.default_problem));
  CHECK(space.size() == 22);
  const ConstrainedSpace other_problem(k.space, environment(k, require_arch_profile("sm_90"), ProblemSize::parse("5000")));
  CHECK(other_problem.size() == 0);

  const PlanEntry entry = plan_one(k, Config::parse("block_size_x=256,work_per_thread=2"), require_arch_profile("sm_90"),
                                   *k.default_problem, VariantCompiler(std::nullopt));
  INFO(entry.variant.log);
  CHECK(entry.launchable());
  CHECK(entry.resolved.shape.grid == std::array<unsigned, 3>{196, 1, 1});  // ceil(100000 / 512)
}

TEST_CASE("T1 value lists: literals, range, list, sums and comprehensions", "[t1]") {
  CHECK(t1_values("[4, 1, 2]") == std::vector<std::string>{"4", "1", "2"});
  CHECK(t1_values("list(range(3))") == std::vector<std::string>{"0", "1", "2"});
  CHECK(t1_values("range(10, 0, -4)") == std::vector<std::string>{"10", "6", "2"});
  CHECK(t1_values("[1] + [2**i for i in range(2, 4)] + list(range(32, 64+1, 32))") ==
        std::vector<std::string>{"1", "4", "8", "32", "64"});
  CHECK(t1_values("[i * 2 for i in [1, 2, 3] if i != 2]") == std::vector<std::string>{"2", "6"});
  CHECK(t1_values("[x // 2 for x in range(1, 8, 3)]") == std::vector<std::string>{"0", "2", "3"});
}

TEST_CASE("a spec that extends a T1 file replaces the fields it gives", "[t1]") {
  const KernelDescription k = load_spec(kT1Data / "saxpy-extended.json");
  CHECK(k.name == "saxpy_timed");
  CHECK(k.bytes_moved == "12 * nx");
  CHECK(k.tolerance == 1e-6);
  CHECK(k.entry == "saxpy");  // from the T1 file
  CHECK(k.space.raw_size() == 30);
}

TEST_CASE("what T1 says that blocktune cannot do is one error naming the T1 field", "[t1]") {
  Json t1 = saxpy_t1();
  t1["KernelSpecification"]["Language"] = "OpenCL";
  CHECK(error_of(t1) == "saxpy-t1.json: KernelSpecification.Language: 'OpenCL': blocktune tunes CUDA kernels");

  t1 = saxpy_t1();
  t1["KernelSpecification"]["Arguments"][1]["Type"] = "half";
  CHECK(error_of(t1) == "saxpy-t1.json: KernelSpecification.Arguments[1].Type: 'half' is not a type blocktune passes "
                        "(float, double, int32, int64, uint32, uint64)");

  t1 = saxpy_t1();
  t1["KernelSpecification"]["Arguments"][1]["FillType"] = "Gaussian";
  CHECK(error_of(t1) == "saxpy-t1.json: KernelSpecification.Arguments[1].FillType: 'Gaussian' is not Random, Constant or BinaryRaw");

  t1 = saxpy_t1();
  t1["ConfigurationSpace"]["TuningParameters"][0]["Type"] = "float";
  CHECK(error_of(t1) == "saxpy-t1.json: ConfigurationSpace.TuningParameters[0].Type: 'float': blocktune's parameters are integers or strings");

  t1 = saxpy_t1();
  t1["ConfigurationSpace"]["TuningParameters"][0]["Values"] = "numpy.arange(4)";
  CHECK_THAT(error_of(t1), Catch::StartsWith("saxpy-t1.json: ConfigurationSpace.TuningParameters[0].Values: 'numpy.arange(4)' is not a list"));

  t1 = saxpy_t1();
  t1["KernelSpecification"].erase("ProblemSize");
  CHECK(error_of(t1) == "saxpy-t1.json: KernelSpecification.ProblemSize: missing; a T1 file gives it");

  t1 = saxpy_t1();
  t1["KernelSpecification"]["Arguments"][0].erase("Output");
  CHECK(error_of(t1) == "saxpy-t1.json: KernelSpecification.Arguments: no argument has \"Output\": 1; blocktune checks every configuration's outputs");

  // Upper-case names in the T1 file, lower-case macros in the source: the parameter reaches nothing.
  t1 = saxpy_t1();
  t1["ConfigurationSpace"]["TuningParameters"][1]["Name"] = "WORK_PER_THREAD";
  t1["ConfigurationSpace"]["TuningParameters"][1].erase("Default");
  t1["ConfigurationSpace"]["Conditions"] = Json::array();
  t1["KernelSpecification"]["GridDivX"] = Json::array({"block_size_x"});
  CHECK_THAT(error_of(t1), Catch::StartsWith("saxpy-t1.json: parameters.WORK_PER_THREAD: reaches nothing: the sources never name its macro WORK_PER_THREAD"));
}

TEST_CASE("a default outside the listed values is left out: the first valid configuration is the default", "[t1]") {
  Json t1 = saxpy_t1();
  t1["ConfigurationSpace"]["TuningParameters"][1]["Default"] = 4;  // not one of 1, 2, 8
  CHECK(from_t1(t1).default_config == "block_size_x=32,work_per_thread=1");
}
