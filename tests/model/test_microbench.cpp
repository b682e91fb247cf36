#include <blocktune/characterize.hpp>
#include <blocktune/detail/compiler.hpp>
#include <blocktune/kernels.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;

TEST_CASE("every microbenchmark of characterize compiles with NVRTC for sm_90, without a GPU") {
  const VariantCompiler compiler(std::nullopt);
  for (const std::string& name : microbenchmark_kernels()) {
    INFO(name);
    const CompiledVariant v = compiler.compile({.source = std::string(microbenchmark_source()), .source_name = "microbench.cu",
                                               .kernel = name, .arch = "sm_90"});
    CHECK(v.ok);
    CHECK_FALSE(v.cubin.empty());
    CHECK(v.usage.spill_stores == 0);  // a spill would put local memory into the latencies
  }
}
