// The example specs load, have a sensible space and compile for sm_90; the
// stencil's spec is the built-in stencil written down.
#include "spec_test_util.hpp"

#include <blocktune/kernels.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;
using namespace blocktune::test;

namespace {

struct Example {
  const char* folder;
  const char* problem;
  const char* unit;  // of the objective
};

constexpr Example kAll[] = {
    {"matmul", "2048x2048x2048", "GFLOP/s"},
    {"transpose", "8192x8192", "GB/s"},
    {"reduction", "67108864", "GB/s"},
    {"conv2d", "8192x8192", "GFLOP/s"},
    {"blur", "16777216", "GB/s"},  // a T1 file extended by a spec, with a constant argument
};

}  // namespace

TEST_CASE("each example spec plans for sm_90: a sensible space whose variants compile", "[examples]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const VariantCompiler compiler(std::nullopt);
  for (const Example& example : kAll) {
    INFO(example.folder);
    const KernelDescription k = load_spec(kExampleSpecs / example.folder / "spec.json");
    const ProblemSize problem = ProblemSize::parse(example.problem);
    const std::vector<Config> valid = k.space.enumerate(environment(k, h100, problem));
    CHECK(valid.size() >= 50);
    CHECK(valid.size() <= 500);
    CHECK((example.unit == std::string("GB/s") ? !k.bytes_moved.empty() : !k.flops.empty() && k.bytes_moved.empty()));

    // The default and a spread of others; the whole plan is `blocktune plan --spec`'s job.
    const Config default_config = Config::parse(k.default_config);
    for (const Config& config : {default_config, valid.front(), valid[valid.size() / 2], valid.back()}) {
      const PlanEntry entry = plan_one(k, config, h100, problem, compiler);
      INFO(config.to_string() << "\n" << entry.variant.log);
      CHECK(entry.launchable());
    }
    if (const auto& ref = k.reference_kernel) {
      std::vector<std::string> options;  // as the measurement session compiles it: {param} takes the configuration's value
      for (const std::string& option : ref->options) options.push_back(substitute(option, default_config));
      const CompiledVariant reference =
          compiler.compile({ref->source, ref->source_name, substitute(ref->entry, default_config), {}, options, h100.arch()});
      INFO(reference.log);
      CHECK(reference.ok);
    }
  }
}

TEST_CASE("the stencil's spec is the built-in stencil written down: one description, one plan", "[examples]") {
  KernelDescription builtin = stencil3d(1);
  const KernelDescription spec = load_spec(kExampleSpecs / "stencil3d" / "spec.json");
  // A spec cannot hold a host function: the spec's stencil is checked against
  // its default configuration instead, which computes one time step, so the
  // spec fuses none (no reference per fused step count). Everything else is the same.
  CHECK(builtin.reference);
  CHECK_FALSE(spec.reference);
  SearchSpace single_step;
  for (const Parameter& p : builtin.space.parameters())
    single_step.add_parameter(p.name == "fused_steps" ? Parameter{p.name, {std::int64_t{1}}} : p);
  for (const Expression& c : builtin.space.constraints()) single_step.add_constraint(c.text());
  builtin.space = single_step;
  builtin.reference_key.clear();
  KernelDescription without_host_reference = builtin;
  without_host_reference.reference = nullptr;
  CHECK(dump(spec) == dump(without_host_reference));

  // Every configuration resolves to the same compile request and launch.
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const ProblemSize problem = ProblemSize::parse("512x512x512");
  const std::vector<Config> configs = builtin.space.enumerate(environment(builtin, h100, problem));
  REQUIRE(configs == spec.space.enumerate(environment(spec, h100, problem)));
  for (const Config& config : configs) {
    const ResolvedConfig a = resolve(builtin, config, h100, problem), b = resolve(spec, config, h100, problem);
    REQUIRE(a.request.identity() == b.request.identity());
    REQUIRE(a.shape.grid == b.shape.grid);
    REQUIRE(a.shape.block == b.shape.block);
    REQUIRE(a.shape.carveout == b.shape.carveout);
  }
  // And the plan of a corner of the space, compiled, is the same.
  const auto corner = [](KernelDescription k) {
    SearchSpace space;
    for (const Parameter& p : k.space.parameters())
      space.add_parameter(p.values.size() == 1 ? p : Parameter{p.name, {p.values.front(), p.values.back()}});
    for (const Expression& c : k.space.constraints()) space.add_constraint(c.text());
    k.space = space;
    return k;
  };
  ScratchDir cache;
  const VariantCompiler compiler(cache.path());
  const Plan a = make_plan(corner(builtin), h100, ProblemSize::parse("64x64x64"), compiler);
  const Plan b = make_plan(corner(spec), h100, ProblemSize::parse("64x64x64"), compiler);
  CHECK(b.cached == a.compiled + a.cached);  // the spec's variants are the built-in's, from the cache
  REQUIRE(a.entries.size() == b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    INFO(a.entries[i].config.to_string());
    CHECK(a.entries[i].config == b.entries[i].config);
    CHECK(a.entries[i].static_outcome() == b.entries[i].static_outcome());
    CHECK(a.entries[i].variant.usage.registers == b.entries[i].variant.usage.registers);
    CHECK(a.entries[i].occupancy.fraction == b.entries[i].occupancy.fraction);
  }
}
