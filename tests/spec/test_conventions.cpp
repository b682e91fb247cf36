// What kernels written for other tuners need: parameters passed as written,
// a parameter that reaches nothing refused, fractional and unsigned scalars,
// Python's operators in constraints, and more ways to fill a buffer.
#include "spec_test_util.hpp"

#include <blocktune/detail/device.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <numeric>

using namespace blocktune;
using namespace blocktune::test;

namespace {

// A Kernel Tuner style kernel: its macros are the parameters' names as written.
constexpr std::string_view kKernelTunerStyle = R"(
#ifndef block_size_x
#define block_size_x 64
#endif
#ifndef tile_size
#define tile_size 1
#endif
extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
  int i = (blockIdx.x * block_size_x + threadIdx.x) * tile_size;
  for (int t = 0; t < tile_size; ++t)
    if (i + t < n) y[i + t] += a * x[i + t];
}
)";

Json kernel_tuner_style_spec() {
  return Json::parse(R"({
    "name": "axpy",
    "sources": ["axpy.cu"],
    "entry": "axpy",
    "problem": ["n"],
    "define_names": "as-is",
    "parameters": {"block_size_x": [32, 64, 128], "tile_size": [1, 2, 4]},
    "constraints": ["block_size_x * tile_size <= 256 and not tile_size == 3"],
    "block": ["block_size_x"],
    "grid": {"divisors": ["block_size_x"]},
    "arguments": [
      {"buffer": "y", "type": "f32", "count": "n", "output": true},
      {"buffer": "x", "type": "f32", "count": "n", "init": "normal", "mean": 1, "stddev": 0.5},
      {"scalar": "a", "type": "f32", "value": 0.1},
      {"scalar": "n", "type": "i32", "value": "n"}
    ]
  })");
}

struct SpecFolder {
  ScratchDir dir;
  explicit SpecFolder(std::string_view source) {
    std::ofstream(dir / "axpy.cu") << source;
  }
  KernelDescription load(const Json& spec) const { return parse_spec(spec.dump(), dir.path(), "axpy.json"); }
  std::string error(const Json& spec) const {
    try {
      load(spec);
    } catch (const SpecError& error) {
      return error.what();
    }
    return "no error";
  }
};

}  // namespace

TEST_CASE("with define_names as-is, parameters reach the source under the names they are written with", "[spec][conventions]") {
  const SpecFolder folder(kKernelTunerStyle);
  const KernelDescription k = folder.load(kernel_tuner_style_spec());
  const PlanEntry entry = plan_one(k, Config::parse("block_size_x=128,tile_size=2"), require_arch_profile("sm_90"),
                                   ProblemSize::parse("1000"), VariantCompiler(std::nullopt));
  INFO(entry.variant.log);
  CHECK(entry.launchable());
  CHECK(entry.resolved.request.defines == std::vector<std::pair<std::string, std::string>>{{"block_size_x", "128"}, {"tile_size", "2"}});
  CHECK(entry.resolved.shape.grid == std::array<unsigned, 3>{8, 1, 1});  // ceil(1000 / 128)
}

TEST_CASE("a parameter that reaches nothing is refused, naming it and how it might reach the kernel", "[spec][conventions]") {
  const SpecFolder folder(kKernelTunerStyle);
  Json upper = kernel_tuner_style_spec();
  upper.erase("define_names");  // the default upper-cases: TILE_SIZE is not in the source
  CHECK(folder.error(upper) ==
        "axpy.json: parameters.tile_size: reaches nothing: the sources never name its macro TILE_SIZE, but they do name 'tile_size': "
        "set \"define_names\": \"as-is\" to pass parameters as written; it is not a placeholder of the entry, nor used by the launch "
        "geometry, shared memory, carveout or a scalar argument, so every value would compile and run the same kernel");

  Json unused = kernel_tuner_style_spec();
  unused["parameters"]["unroll"] = Json::array({1, 2});
  CHECK_THAT(folder.error(unused), Catch::StartsWith("axpy.json: parameters.unroll: reaches nothing: the sources never name its macro unroll;"));

  Json not_defined = kernel_tuner_style_spec();
  not_defined["defines"] = Json::array({"block_size_x"});
  CHECK_THAT(folder.error(not_defined),
             Catch::StartsWith("axpy.json: parameters.tile_size: reaches nothing: it is not passed as a define (\"defines\")"));

  // Used by a scalar argument only: that reaches the kernel.
  Json by_scalar = kernel_tuner_style_spec();
  by_scalar["parameters"]["scale"] = Json::array({1, 2});
  by_scalar["arguments"][3]["value"] = "n * scale / scale";
  CHECK(folder.error(by_scalar) == "no error");

  Json bad_names = kernel_tuner_style_spec();
  bad_names["define_names"] = "lower";
  CHECK(folder.error(bad_names) == R"(axpy.json: define_names: 'lower' is not "upper" (block_x becomes BLOCK_X) or "as-is")");
}

TEST_CASE("a macro named only in an included file counts", "[spec][conventions]") {
  // tile_size appears in tiles.h alone, which include_paths holds.
  const SpecFolder folder(R"(#include "tiles.h"
extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
  int i = (blockIdx.x * block_size_x + threadIdx.x) * STEP;
  if (i < n) y[i] += a * x[i];
})");
  std::filesystem::create_directories(folder.dir / "include");
  std::ofstream(folder.dir / "include" / "tiles.h") << "#define STEP (tile_size * 1)\n";
  Json spec = kernel_tuner_style_spec();
  CHECK_THAT(folder.error(spec), Catch::StartsWith("axpy.json: parameters.tile_size: reaches nothing"));
  spec["include_paths"] = Json::array({"include"});
  CHECK(folder.error(spec) == "no error");
}

TEST_CASE("scalars take fractional, negative and unsigned values, checked against their type", "[spec][conventions]") {
  const SpecFolder folder(kKernelTunerStyle);
  const KernelDescription k = folder.load(kernel_tuner_style_spec());
  const auto& a = std::get<ScalarArgument>(k.arguments[2]);
  CHECK(a.value == "0.1");
  const auto bytes = scalar_bytes(a, {});
  float stored = 0;
  std::memcpy(&stored, bytes.data(), sizeof stored);
  CHECK(stored == 0.1f);

  const auto value_of = [](ElementType type, std::string text) {
    return scalar_bytes(ScalarArgument{"s", type, std::move(text)}, {});
  };
  double f64 = 0;
  std::memcpy(&f64, value_of(ElementType::f64, "-2.5e-3").data(), sizeof f64);
  CHECK(f64 == -2.5e-3);
  std::uint32_t u32 = 0;
  std::memcpy(&u32, value_of(ElementType::u32, "4000000000").data(), sizeof u32);
  CHECK(u32 == 4000000000u);
  std::int32_t i32 = 0;
  std::memcpy(&i32, value_of(ElementType::i32, "-7").data(), sizeof i32);
  CHECK(i32 == -7);

  Json fraction_for_integer = kernel_tuner_style_spec();
  fraction_for_integer["arguments"][3]["value"] = 0.5;
  CHECK(folder.error(fraction_for_integer) == "axpy.json: arguments[3].value: 0.5 is not a value of type i32");
  Json negative_unsigned = kernel_tuner_style_spec();
  negative_unsigned["arguments"][3] = {{"scalar", "n"}, {"type", "u32"}, {"value", -1.5}};
  CHECK(folder.error(negative_unsigned) == "axpy.json: arguments[3].value: -1.5 is not a value of type u32");
}

TEST_CASE("buffers start uniform, normal, as 0, 1, 2, ... or as before", "[spec][conventions]") {
  BufferArgument uniform{.name = "u", .type = ElementType::f64, .count = "n", .init = BufferArgument::Init::uniform};
  uniform.low = 2, uniform.high = 3;
  const HostBuffer uniform_buffer = initial_buffer(uniform, 10000);
  const auto u = uniform_buffer.as<const double>();
  CHECK(std::ranges::all_of(u, [](double v) { return v >= 2 && v < 3; }));
  CHECK(std::accumulate(u.begin(), u.end(), 0.0) / 10000 == Approx(2.5).margin(0.02));

  BufferArgument normal{.name = "g", .type = ElementType::f64, .count = "n", .init = BufferArgument::Init::normal};
  normal.mean = 10, normal.stddev = 2;
  const HostBuffer normal_buffer = initial_buffer(normal, 20000);
  const auto g = normal_buffer.as<const double>();
  const double mean = std::accumulate(g.begin(), g.end(), 0.0) / 20000;
  double variance = 0;
  for (double v : g) variance += (v - mean) * (v - mean) / 20000;
  CHECK(mean == Approx(10).margin(0.05));
  CHECK(std::sqrt(variance) == Approx(2).margin(0.05));

  const auto iota = initial_buffer({.name = "i", .type = ElementType::u32, .count = "n", .init = BufferArgument::Init::iota}, 5);
  CHECK(std::vector<std::uint32_t>(iota.as<const std::uint32_t>().begin(), iota.as<const std::uint32_t>().end()) ==
        std::vector<std::uint32_t>{0, 1, 2, 3, 4});
  // Random unsigned integers are never wrapped negatives.
  const auto random = initial_buffer({.name = "r", .type = ElementType::u32, .count = "n"}, 1000);
  CHECK(std::ranges::all_of(random.as<const std::uint32_t>(), [](std::uint32_t v) { return v < 1000; }));
}

TEST_CASE("a buffer's init takes only its own fields", "[spec][conventions]") {
  const SpecFolder folder(kKernelTunerStyle);
  Json wrong_field = kernel_tuner_style_spec();
  wrong_field["arguments"][1]["low"] = 0;
  CHECK(folder.error(wrong_field) == R"(axpy.json: arguments[1].low: is not used with "init": "normal")");
  Json empty_range = kernel_tuner_style_spec();
  empty_range["arguments"][1] = {{"buffer", "x"}, {"type", "f32"}, {"count", "n"}, {"init", "uniform"}, {"low", 1}, {"high", 1}};
  CHECK(folder.error(empty_range) == "axpy.json: arguments[1].high: 1 is not above low (1)");
  Json unknown = kernel_tuner_style_spec();
  unknown["arguments"][1]["init"] = "gaussian";
  CHECK(folder.error(unknown) == "axpy.json: arguments[1].init: 'gaussian' is not random, uniform, normal, constant, values, iota or file");
}

TEST_CASE("a reference kernel's options may take parameters that the reference key names", "[spec][conventions]") {
  const SpecFolder folder(kKernelTunerStyle);
  Json spec = kernel_tuner_style_spec();
  spec["verify"] = Json::parse(R"json({"reference_key": "tile_size",
    "reference_kernel": {"entry": "axpy", "block": [64], "grid": ["ceil_div(n, 64)"], "options": ["-Utile_size", "-Dtile_size={tile_size}"]}})json");
  const KernelDescription k = folder.load(spec);
  // Compiled like the default configuration, its own options last so that they override the default's define.
  CHECK(k.reference_kernel->options ==
        std::vector<std::string>{"-Dblock_size_x=32", "-Dtile_size=1", "-Utile_size", "-Dtile_size={tile_size}"});

  spec["verify"]["reference_key"] = "block_size_x";
  CHECK(folder.error(spec) == "axpy.json: verify.reference_kernel.options[1]: placeholder '{tile_size}' must be named by "
                              "verify.reference_key, which decides when the reference runs again");
  spec["verify"].erase("reference_key");
  spec["verify"]["reference_kernel"]["options"][1] = "-Dtile_size={tiles}";
  CHECK_THAT(folder.error(spec), Catch::Contains("placeholder '{tiles}' names no parameter"));

  Json key_alone = kernel_tuner_style_spec();
  key_alone["verify"] = {{"reference_key", "tile_size"}};
  CHECK_THAT(folder.error(key_alone), Catch::StartsWith("axpy.json: verify.reference_key: needs a reference_kernel"));
}

TEST_CASE("a constant argument names a __constant__ variable of the source, filled as buffers are and not passed", "[spec][conventions]") {
  const SpecFolder folder(R"(__constant__ float weights[16];
extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
  int i = (blockIdx.x * block_size_x + threadIdx.x) * tile_size;
  if (i < n) y[i] += a * x[i] * weights[i % 16];
})");
  Json spec = kernel_tuner_style_spec();
  spec["arguments"].push_back({{"constant", "weights"}, {"type", "f32"}, {"count", 16}, {"init", "uniform"}, {"low", 0.5}, {"high", 1}});
  const KernelDescription k = folder.load(spec);
  const auto& weights = std::get<BufferArgument>(k.arguments.back());
  CHECK(weights.constant);
  CHECK(weights.init == BufferArgument::Init::uniform);
  CHECK(kernel_parameter_count(k) == 4);  // y, x, a, n

  spec["arguments"].back()["constant"] = "filter";
  CHECK(folder.error(spec) == "axpy.json: arguments[4].constant: the sources declare no variable 'filter' (a __constant__ array the kernel reads)");
  spec["arguments"].back()["constant"] = "weights";
  spec["arguments"].back()["output"] = true;
  CHECK_THAT(folder.error(spec), Catch::StartsWith("axpy.json: arguments[4].output: unknown field"));
  spec["arguments"].back().erase("output");
  spec["arguments"].back()["buffer"] = "weights";
  CHECK_THAT(folder.error(spec), Catch::StartsWith("axpy.json: arguments[4]: give exactly one of \"buffer\""));
}

TEST_CASE("a buffer's count may name parameters, with a reference kernel to compute each size's expected outputs", "[spec][conventions]") {
  const SpecFolder folder(R"(extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
  int i = (blockIdx.x * block_size_x + threadIdx.x) * tile_size;
  if (i < n) y[i] += a * x[i];
}
extern "C" __global__ void axpy_reference(float* y, const float* x, float a, int n) {})");
  Json spec = kernel_tuner_style_spec();
  spec["arguments"][1]["count"] = "n * tile_size";
  CHECK_THAT(folder.error(spec), Catch::StartsWith("axpy.json: arguments[1].count: 'n * tile_size' names a parameter"));
  spec["verify"] = Json::parse(R"json({"reference_kernel": {"entry": "axpy_reference", "block": [64], "grid": ["ceil_div(n, 64)"]}})json");
  const KernelDescription k = folder.load(spec);
  CHECK(std::get<BufferArgument>(k.arguments[1]).count == "n * tile_size");
  // What a tuning run needs in memory is counted at the default configuration's sizes (tile_size 1).
  CHECK(measurement_bytes(k, require_arch_profile("sm_90"), ProblemSize::parse("1000")) == 3 * 4000 + 4000);
}
