// KernelBuilder: the same description as a spec, the same checks and messages.
#include "spec_test_util.hpp"

#include <blocktune/builder.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;
using namespace blocktune::test;

namespace {

std::string message_of(const KernelBuilder& builder) {
  try {
    builder.build();
  } catch (const SpecError& error) {
    return error.what();
  }
  return "no error";
}

// The builder's calls for tests/data/spec/full.json.
KernelBuilder full_builder() {
  KernelBuilder builder("scale");
  builder.summary("every field of a spec")
      .source_file(kSpecData / "kernel.cu")
      .source_file(kSpecData / "extra.cu")
      .include_path(kSpecData / "include")
      .entry("scale<{tile}>")
      .option("-use_fast_math")
      .problem({"n"})
      .parameter("block_x", {32, 64, 128})
      .parameter("tile", {1, 2, 4})
      .parameter("mode", {"'A'", "'B'"})
      .constraint("block_x * tile <= 256")
      .constraint("block_x <= max_threads_per_block")
      .defines({"block_x", "mode"})
      .default_config(R"(mode="'B'",tile=2,block_x=64)")
      .block({"block_x"})
      .grid_divisors({"block_x * tile"})
      .dynamic_smem("block_x * 4")
      .carveout("50")
      .buffer(BufferArgument{.name = "out", .count = "n", .init = BufferArgument::Init::constant, .value = 0})
      .output("out")
      .buffer(BufferArgument{.name = "in", .count = "n", .seed = 7})
      .buffer(BufferArgument{.name = "weights", .type = ElementType::f64, .count = "2", .init = BufferArgument::Init::values, .values = {0.5, -2}})
      .buffer(BufferArgument{.name = "table", .count = "2", .init = BufferArgument::Init::file, .file = (kSpecData / "values.bin").string()})
      .buffer("noise", ElementType::i32, "n")
      .scalar("factor", ElementType::f32, "3")
      .scalar("n", ElementType::i64, "n")
      .bytes_moved("8 * n")
      .reference_kernel({.entry = "scale_reference", .block = {"256"}, .grid = {"ceil_div(n, 256)"}, .source_files = {kSpecData / "extra.cu"},
                         .options = {"-lineinfo"}})
      .reference_key("mode")
      .tolerance(1e-6);
  return builder;
}

KernelBuilder small_builder() {
  KernelBuilder builder("small");
  builder.source_file(kSpecData / "extra.cu")
      .entry("scale_reference")
      .problem({"n", "m"})
      .parameter("block_x", {32, 64})
      .block({"block_x"})
      .grid_divisors({"block_x", "1"})
      .buffer("out", ElementType::f32, "n * m")
      .output("out");
  return builder;
}

}  // namespace

TEST_CASE("a builder and a spec file give the same description", "[builder]") {
  CHECK(dump(full_builder().build()) == dump(load_spec(kSpecData / "full.json")));
}

TEST_CASE("a builder's mistakes are the spec's, named after the builder", "[builder]") {
  CHECK(message_of(KernelBuilder("t").entry("k")) == "KernelBuilder 't': sources: missing; required: the kernel's source files");
  CHECK(message_of(small_builder().source("__global__ void k() {}", "k.cu")) ==
        "KernelBuilder 'small': sources: give source files or source text, not both");
  CHECK(message_of(small_builder().output("result")) == "KernelBuilder 'small': output: 'result' names no buffer argument");
  CHECK(message_of(small_builder().grid_divisors({"block_x", "tile"})) ==
        "KernelBuilder 'small': grid.divisors[1]: 'ceil_div(m, tile)' names 'tile', which is not a parameter (block_x), a problem "
        "dimension (n, m), time_steps or a device variable (max_threads_per_block, max_shared_per_block, shared_per_sm, max_threads_per_sm, "
        "sm_count, warp_size, cc)");
  CHECK(message_of(small_builder().grid({"1"})) == "KernelBuilder 'small': grid: give either grid expressions or grid divisors");
  CHECK(message_of(small_builder().block({"block_x", "1", "1", "1"})) == "KernelBuilder 'small': block: has 4 entries; give 1 to 3");
  CHECK(message_of(small_builder().block({})) ==
        R"(KernelBuilder 'small': block: missing; required: the block's dimensions, e.g. ["block_x", "block_y"])");
  CHECK(message_of(small_builder().parameter("block_x", {1})) == "KernelBuilder 'small': parameters.block_x: parameter 'block_x' is defined twice");
  CHECK(message_of(small_builder().constraint("block_x <")) ==
        "KernelBuilder 'small': constraints[0]: invalid expression 'block_x <': column 10: unexpected end of expression");
  CHECK(message_of(small_builder().include_path(kSpecData / "extra.cu")) ==
        "KernelBuilder 'small': include_paths[0]: '" + (kSpecData / "extra.cu").string() + "' is not a directory");
  CHECK(message_of(small_builder().reference_kernel({.entry = "scale_reference", .grid = {"1", "1", "1", "1"}})) ==
        "KernelBuilder 'small': verify.reference_kernel.grid: has 4 entries; give 1 to 3");
  CHECK(message_of(small_builder().tolerance(std::nan(""))) == "KernelBuilder 'small': verify.tolerance: nan is not a finite number >= 0");
}

TEST_CASE("a builder takes source text, template entries and a host reference", "[builder]") {
  const std::string source = R"(
template <int COUNT, typename T>
__global__ void fill(T* out, int n) {
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * COUNT;
  for (int i = first; i < first + COUNT && i < n; ++i) out[i] = T(i);
}
)";
  const auto reference = [](const ProblemSize&, const Config&, std::vector<HostBuffer>& buffers) {
    auto out = buffers[0].as<double>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(i);
  };
  const KernelDescription k = KernelBuilder("fill")
                                  .source(source, "fill.cu")
                                  .entry("fill<{items}, double>")
                                  .problem({"n"})
                                  .parameter("block", {64, 128, 256})
                                  .parameter("items", {1, 2, 4})
                                  .constraint("block * items <= 512")
                                  .block({"block"})
                                  .grid_divisors({"block * items"})
                                  .buffer(BufferArgument{.name = "out", .type = ElementType::f64, .count = "n", .output = true})
                                  .scalar("n", ElementType::i32, "n")
                                  .reference_function(reference)
                                  .build();
  CHECK(k.source == source);
  CHECK(k.source_name == "fill.cu");
  CHECK(k.default_config == "block=64,items=1");
  CHECK(k.reference);
  const PlanEntry entry = plan_one(k, Config::parse("block=128,items=4"), require_arch_profile("sm_90"), ProblemSize::parse("1000"),
                                   VariantCompiler(std::nullopt));
  INFO(entry.variant.log);
  CHECK(entry.launchable());
  CHECK(entry.resolved.request.kernel == "fill<4, double>");
  CHECK(entry.resolved.shape.grid == std::array<unsigned, 3>{2, 1, 1});
}
