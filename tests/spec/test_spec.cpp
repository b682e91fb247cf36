// Each feature of the spec format, mapped onto the kernel description.
#include "spec_test_util.hpp"

#include <blocktune/kernels.hpp>
#include <blocktune/prediction.hpp>
#include <blocktune/spec.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;
using namespace blocktune::test;

namespace {

using Strings = std::vector<std::string>;
using Dims = std::array<std::string, 3>;

std::string in_data(const std::string& name) { return (kSpecData / name).lexically_normal().string(); }

const BufferArgument& buffer(const KernelDescription& k, std::size_t index) { return std::get<BufferArgument>(k.arguments.at(index)); }
const ScalarArgument& scalar(const KernelDescription& k, std::size_t index) { return std::get<ScalarArgument>(k.arguments.at(index)); }

}  // namespace

TEST_CASE("a spec maps every field onto the kernel description", "[spec]") {
  const KernelDescription k = load_spec(kSpecData / "full.json");
  CHECK(k.name == "scale");
  CHECK(k.summary == "every field of a spec");
  // Two sources: each after a #line naming it, so compiler messages name the right file.
  CHECK(k.source == "#line 1 \"" + in_data("kernel.cu") + "\"\n" + read_text(kSpecData / "kernel.cu") + "#line 1 \"" +
                        in_data("extra.cu") + "\"\n" + read_text(kSpecData / "extra.cu"));
  CHECK(k.source_name == "kernel.cu");
  CHECK(k.entry == "scale<{tile}>");
  CHECK(k.options == Strings{"-I" + in_data("include"), "-use_fast_math"});
  CHECK(k.problem_names == Strings{"n"});

  REQUIRE(k.space.parameters().size() == 3);
  CHECK(k.space.parameters()[0].name == "block_x");
  CHECK(k.space.parameters()[0].values == std::vector<Value>{32, 64, 128});
  CHECK(k.space.parameters()[1].name == "tile");
  CHECK(k.space.parameters()[2].name == "mode");
  CHECK(k.space.parameters()[2].values == std::vector<Value>{std::string("'A'"), std::string("'B'")});
  REQUIRE(k.space.constraints().size() == 2);
  CHECK(k.space.constraints()[0].text() == "block_x * tile <= 256");
  CHECK(k.defines == Strings{"block_x", "mode"});
  // Written in another order, stored in the parameters' order.
  CHECK(k.default_config == Config({{"block_x", 64}, {"tile", 2}, {"mode", std::string("'B'")}}).to_string());

  CHECK(k.block == Dims{"block_x", "1", "1"});
  CHECK(k.grid == Dims{"ceil_div(n, block_x * tile)", "1", "1"});
  CHECK(k.dynamic_smem == "block_x * 4");
  CHECK(k.carveout == "50");

  REQUIRE(k.arguments.size() == 7);
  CHECK(buffer(k, 0).name == "out");
  CHECK(buffer(k, 0).init == BufferArgument::Init::constant);
  CHECK(buffer(k, 0).value == 0);
  CHECK(buffer(k, 0).output);
  CHECK(buffer(k, 1).init == BufferArgument::Init::random);
  CHECK(buffer(k, 1).seed == 7);
  CHECK_FALSE(buffer(k, 1).output);
  CHECK(buffer(k, 2).type == ElementType::f64);
  CHECK(buffer(k, 2).count == "2");
  CHECK(buffer(k, 2).init == BufferArgument::Init::values);
  CHECK(buffer(k, 2).values == std::vector<double>{0.5, -2});
  CHECK(buffer(k, 3).init == BufferArgument::Init::file);
  CHECK(buffer(k, 3).file == in_data("values.bin"));
  // Random buffers without a seed get their position, so no two are alike.
  CHECK(buffer(k, 4).type == ElementType::i32);
  CHECK(buffer(k, 4).seed == 5);
  CHECK(scalar(k, 5).name == "factor");
  CHECK(scalar(k, 5).type == ElementType::f32);
  CHECK(scalar(k, 5).value == "3");
  CHECK(scalar(k, 6).type == ElementType::i64);
  CHECK(scalar(k, 6).value == "n");

  CHECK(k.bytes_moved == "8 * n");
  CHECK(k.flops.empty());
  CHECK_FALSE(k.reference);
  REQUIRE(k.reference_kernel);
  const ReferenceKernel& ref = *k.reference_kernel;
  CHECK(ref.source == read_text(kSpecData / "extra.cu"));
  CHECK(ref.source_name == "extra.cu");
  CHECK(ref.entry == "scale_reference");
  // Compiled like the default configuration, then with its own options.
  CHECK(ref.options == Strings{"-I" + in_data("include"), "-use_fast_math", "-DBLOCK_X=64", "-DMODE='B'", "-lineinfo"});
  CHECK(ref.block == Dims{"256", "1", "1"});
  CHECK(ref.grid == Dims{"ceil_div(n, 256)", "1", "1"});
  CHECK(ref.dynamic_smem == "0");
  CHECK(k.reference_files.empty());
  CHECK(k.reference_key == "mode");
  CHECK(k.tolerance == 1e-6);
}

TEST_CASE("a spec's configuration resolves and compiles, its reference kernel too", "[spec]") {
  const KernelDescription k = load_spec(kSpecData / "full.json");
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const VariantCompiler compiler(std::nullopt);
  const Config config = Config::parse(R"(block_x=128,tile=2,mode="'A'")");
  const PlanEntry entry = plan_one(k, config, h100, ProblemSize::parse("1000"), compiler);
  INFO(entry.variant.log);
  CHECK(entry.launchable());
  CHECK(entry.resolved.request.kernel == "scale<2>");
  // Only the listed defines; the tile reaches the kernel as a template argument.
  CHECK(entry.resolved.request.defines == std::vector<std::pair<std::string, std::string>>{{"BLOCK_X", "128"}, {"MODE", "'A'"}});
  CHECK(entry.resolved.shape.block == std::array<unsigned, 3>{128, 1, 1});
  CHECK(entry.resolved.shape.grid == std::array<unsigned, 3>{4, 1, 1});  // ceil(1000 / 256)
  CHECK(entry.resolved.shape.dynamic_smem == 512);
  CHECK(entry.resolved.shape.carveout == 50);

  const ReferenceKernel& ref = *k.reference_kernel;
  const CompiledVariant reference = compiler.compile({ref.source, ref.source_name, substitute(ref.entry, config), {}, ref.options, "sm_90"});
  INFO(reference.log);
  CHECK(reference.ok);
}

TEST_CASE("a single source is used as it is, named by its file", "[spec]") {
  const KernelDescription k = from_json(minimal_spec());
  CHECK(k.source == read_text(kSpecData / "extra.cu"));
  CHECK(k.source_name == "extra.cu");
  Json spec = minimal_spec();
  spec["sources"] = "extra.cu";  // one file may also be given as a string
  CHECK(from_json(spec).source == k.source);
}

TEST_CASE("without a default, the first configuration satisfying the constraints is the default", "[spec]") {
  Json spec = minimal_spec();
  spec["parameters"] = Json::parse(R"({"block_x": [16, 32, 64], "tile": [8, 4]})");
  spec["constraints"] = Json::array({"block_x * tile >= 256"});
  spec["grid"] = {{"divisors", Json::array({"block_x * tile"})}};  // so that the tile reaches the kernel
  CHECK(from_json(spec).default_config == "block_x=32,tile=8");
  // The device's limits count; the problem size, unknown at load, does not.
  spec["constraints"] = Json::array({"block_x * tile * 16 > max_threads_per_block", "tile <= n"});
  CHECK(from_json(spec).default_config == "block_x=16,tile=8");
}

TEST_CASE("the problem dimensions default to nx, ny, nz", "[spec]") {
  Json spec = minimal_spec();
  spec.erase("problem");
  spec["grid"] = Json::array({"ceil_div(nx, block_x)", "ny", "nz"});
  spec["arguments"][0]["count"] = spec["arguments"][1]["count"] = "nx * ny * nz";
  spec["arguments"][2]["value"] = "nx";
  const KernelDescription k = from_json(spec);
  CHECK(k.problem_names == Strings{"nx", "ny", "nz"});
  CHECK(k.grid == Dims{"ceil_div(nx, block_x)", "ny", "nz"});
}

TEST_CASE("grids are expressions or divisors of the problem dimensions", "[spec]") {
  Json spec = minimal_spec();
  spec["problem"] = Json::array({"width", "height"});
  spec["parameters"] = Json::parse(R"({"tile_x": [16, 32], "tile_y": [4, 8], "per_thread": [1, 2]})");
  spec["block"] = Json::array({"tile_x", "tile_y"});
  spec["grid"] = {{"divisors", Json::array({"tile_x", "tile_y * per_thread"})}};
  spec["arguments"][2]["value"] = "width * per_thread / per_thread";  // per_thread must reach the kernel with either grid
  spec["arguments"][0]["count"] = spec["arguments"][1]["count"] = "width * height";
  KernelDescription k = from_json(spec);
  CHECK(k.grid == Dims{"ceil_div(width, tile_x)", "ceil_div(height, tile_y * per_thread)", "1"});
  const ResolvedConfig r = resolve(k, Config::parse("tile_x=32,tile_y=8,per_thread=2"), require_arch_profile("sm_90"),
                                   ProblemSize::parse("1000x100"));
  CHECK(r.shape.grid == std::array<unsigned, 3>{32, 7, 1});
  CHECK(r.shape.block == std::array<unsigned, 3>{32, 8, 1});

  spec["grid"] = Json::array({"sm_count * 4", 2});  // expressions, numbers, device variables
  k = from_json(spec);
  CHECK(k.grid == Dims{"sm_count * 4", "2", "1"});
  CHECK(resolve(k, Config::parse(k.default_config), require_arch_profile("sm_90"), ProblemSize::parse("1x1")).shape.grid ==
        std::array<unsigned, 3>{132 * 4, 2, 1});
}

TEST_CASE("the objective is time, GB/s or GFLOP/s", "[spec]") {
  Json spec = minimal_spec();
  KernelDescription k = from_json(spec);
  CHECK((k.bytes_moved.empty() && k.flops.empty()));
  spec["objective"] = "time";
  k = from_json(spec);
  CHECK((k.bytes_moved.empty() && k.flops.empty()));
  spec["objective"] = {{"metric", "GFLOP/s"}, {"flops", "2 * n"}};
  k = from_json(spec);
  CHECK((k.bytes_moved.empty() && k.flops == "2 * n"));
  spec["objective"] = {{"metric", "GB/s"}, {"bytes_moved", "8 * n"}, {"flops", "n"}};
  k = from_json(spec);
  CHECK((k.bytes_moved == "8 * n" && k.flops == "n"));
}

TEST_CASE("work counts for the model are expressions, and left out, bytes_moved and flops stand in", "[spec]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const ProblemSize problem = ProblemSize::parse("1000");
  Json spec = minimal_spec();
  spec["objective"] = {{"metric", "GB/s"}, {"bytes_moved", "8 * n"}, {"flops", "2 * n"}};
  KernelDescription k = from_json(spec);
  const Config config = Config::parse(k.default_config);
  KernelWork w = kernel_work(k, h100, problem, config);
  CHECK(w.dram_bytes == 8000);
  CHECK(w.l2_bytes == 8000);
  CHECK(w.l1_wavefronts == Approx(8000.0 / 128));
  CHECK(w.warp_instructions == Approx(2000.0 / 64));
  CHECK((w.shared_wavefronts == 0 && w.steps == 1 && w.rounds == 1 && w.chains == 1 && w.staged == 0));

  spec["work"] = {{"dram_bytes", "4 * n"}, {"shared_wavefronts", "n / block_x"}, {"warp_instructions", 77}, {"steps", "sm_count"},
                  {"rounds", 3},           {"chains", "block_x / 32"},              {"staged", "block_x >= 64"}};
  k = from_json(spec);
  w = kernel_work(k, h100, problem, config);
  CHECK(w.dram_bytes == 4000);
  CHECK(w.l2_bytes == 4000);  // the DRAM bytes, when only they are counted
  CHECK(w.l1_wavefronts == Approx(8000.0 / 128));
  CHECK(w.shared_wavefronts == static_cast<double>(1000 / config.get_int("block_x")));
  CHECK(w.warp_instructions == 77);
  CHECK(w.steps == 132);
  CHECK(w.rounds == 3);
  CHECK(w.chains == static_cast<double>(config.get_int("block_x") / 32));
  CHECK(w.staged == (config.get_int("block_x") >= 64 ? 1 : 0));
}

TEST_CASE("outputs are verified against reference files or the default configuration", "[spec]") {
  Json spec = minimal_spec();
  KernelDescription k = from_json(spec);
  CHECK_FALSE(k.reference_kernel);
  CHECK(k.reference_files.empty());
  CHECK(k.tolerance == 1e-5);

  spec["verify"] = {{"reference_files", {{"out", "values.bin"}}}, {"tolerance", 0}};
  k = from_json(spec);
  CHECK(k.reference_files == std::vector<std::pair<std::string, std::string>>{{"out", in_data("values.bin")}});
  CHECK(k.tolerance == 0);
  CHECK_FALSE(k.reference_kernel);
}

TEST_CASE("load_spec reads files relative to the spec, as parse_spec does relative to its folder", "[spec]") {
  const KernelDescription loaded = load_spec(kSpecData / "full.json");
  const KernelDescription parsed = parse_spec(read_text(kSpecData / "full.json"), kSpecData, "full.json");
  CHECK(loaded.source == parsed.source);
  CHECK(loaded.options == parsed.options);
  CHECK(loaded.default_config == parsed.default_config);
  CHECK(std::get<BufferArgument>(loaded.arguments[3]).file == std::get<BufferArgument>(parsed.arguments[3]).file);
}

TEST_CASE("the device variables a spec may use are those the tuner provides", "[spec]") {
  const KernelDescription k = stencil3d(1);
  const Lookup env = environment(k, require_arch_profile("sm_90"), ProblemSize::parse("8x8x8"));
  for (const std::string& name : device_variable_names()) {
    INFO(name);
    CHECK(env(name).has_value());
  }
}

TEST_CASE("every built-in kernel passes the validation of spec files", "[spec]") {
  for (const std::string& name : builtin_kernel_names()) {
    INFO(name);
    KernelDescription k = builtin_kernel(name);
    const std::string default_config = k.default_config;
    CHECK_NOTHROW(validate(k, name));
    CHECK(k.default_config == default_config);
  }
}
