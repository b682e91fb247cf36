#include <blocktune/detail/compiler.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace blocktune;

namespace {

const char* kGood = R"(
template <int N> __global__ void scale(float* data) { data[threadIdx.x] *= N * FACTOR; }
extern "C" __global__ void tiled(float* data) {
  __shared__ float tile[256];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[255 - threadIdx.x];
}
)";

std::filesystem::path fresh_cache(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / "blocktune-test-cache" / name;
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace

TEST_CASE("a templated kernel compiles to a cubin with its resources read from ptxas", "[compiler]") {
  const VariantCompiler compiler(std::nullopt);
  const CompiledVariant v = compiler.compile({kGood, "good.cu", "scale<3>", {{"FACTOR", "2"}}, {}, "sm_90"});
  REQUIRE(v.ok);
  CHECK(v.lowered_name == "_Z5scaleILi3EEvPf");
  CHECK(v.cubin.size() > 100);
  CHECK(v.cubin.substr(1, 3) == "ELF");
  CHECK(v.usage.registers > 0);
  CHECK(v.usage.static_smem == 0);
  CHECK_FALSE(v.from_cache);
}

TEST_CASE("static shared memory and barriers of an extern C kernel are reported", "[compiler]") {
  const VariantCompiler compiler(std::nullopt);
  const CompiledVariant v = compiler.compile({kGood, "good.cu", "tiled", {{"FACTOR", "1"}}, {}, "sm_80"});
  REQUIRE(v.ok);
  CHECK(v.lowered_name == "tiled");
  CHECK(v.usage.static_smem == 1024);
  CHECK(v.usage.barriers == 1);
}

TEST_CASE("a kernel that does not compile is a result with its log, not an exception", "[compiler]") {
  const VariantCompiler compiler(std::nullopt);
  const CompiledVariant v = compiler.compile({"__global__ void broken(float* x) { x[0] = undefined_name; }", "broken.cu", "broken", {}, {}, "sm_90"});
  CHECK_FALSE(v.ok);
  CHECK(v.cubin.empty());
  CHECK_THAT(v.log, Catch::Contains("broken.cu(1)") && Catch::Contains("undefined_name"));
  CHECK_THAT(v.log, Catch::EndsWith("nvrtcCompileProgram failed: NVRTC_ERROR_COMPILATION"));
}

// NVRTC puts a NUL between ptxas's info lines and its error (CUDA 13.0): the
// sqlite3 shell showed a stored message without the error.
TEST_CASE("a kernel with too much static shared memory fails with ptxas's reason in its log", "[compiler]") {
  const VariantCompiler compiler(std::nullopt);
  const char* source = R"(extern "C" __global__ void big(float* x) {
  __shared__ float tile[16000];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[15999 - threadIdx.x];
})";
  const CompiledVariant v = compiler.compile({source, "big.cu", "big", {}, {}, "sm_90"});
  CHECK_FALSE(v.ok);
  CHECK(v.log.find('\0') == std::string::npos);
  CHECK_THAT(v.log, Catch::Contains("uses too much shared data") && Catch::EndsWith("NVRTC_ERROR_COMPILATION"));
}

TEST_CASE("a kernel name missing from the source is reported by name", "[compiler]") {
  const VariantCompiler compiler(std::nullopt);
  const CompiledVariant v = compiler.compile({kGood, "good.cu", "no_such_kernel", {{"FACTOR", "1"}}, {}, "sm_90"});
  CHECK_FALSE(v.ok);
  CHECK_THAT(v.log, Catch::Contains("no_such_kernel"));
}

TEST_CASE("an unknown architecture is a compile error naming it", "[compiler]") {
  const VariantCompiler compiler(std::nullopt);
  const CompiledVariant v = compiler.compile({kGood, "good.cu", "tiled", {{"FACTOR", "1"}}, {}, "sm_13"});
  CHECK_FALSE(v.ok);
  CHECK_THAT(v.log, Catch::Contains("sm_13"));
}

TEST_CASE("the variant cache answers a second compile and survives corruption", "[compiler][cache]") {
  const auto dir = fresh_cache("second");
  const VariantCompiler compiler(dir);
  const CompileRequest request{kGood, "good.cu", "scale<5>", {{"FACTOR", "2"}}, {}, "sm_90"};
  const CompiledVariant first = compiler.compile(request);
  REQUIRE(first.ok);
  const CompiledVariant second = compiler.compile(request);
  CHECK(second.from_cache);
  CHECK(second.cubin == first.cubin);
  CHECK(second.usage.registers == first.usage.registers);
  CHECK(second.lowered_name == first.lowered_name);

  // Any change of source, define, option or architecture is a different variant.
  CompileRequest other = request;
  other.defines[0].second = "3";
  CHECK_FALSE(compiler.compile(other).from_cache);

  // A truncated cache file is a miss, and is rewritten.
  for (const auto& file : std::filesystem::directory_iterator(dir)) std::filesystem::resize_file(file.path(), 40);
  const CompiledVariant again = compiler.compile(request);
  CHECK_FALSE(again.from_cache);
  CHECK(again.cubin == first.cubin);
  CHECK(compiler.compile(request).from_cache);
}

TEST_CASE("compile errors are cached as results too", "[compiler][cache]") {
  const VariantCompiler compiler(fresh_cache("errors"));
  const CompileRequest request{"__global__ void k() { nope; }", "k.cu", "k", {}, {}, "sm_90"};
  CHECK_FALSE(compiler.compile(request).ok);
  const CompiledVariant cached = compiler.compile(request);
  CHECK(cached.from_cache);
  CHECK_FALSE(cached.ok);
  CHECK_THAT(cached.log, Catch::Contains("nope"));
}

TEST_CASE("a cached compile error written with NUL bytes in its log is read without them", "[compiler][cache]") {
  const auto dir = fresh_cache("nul-log");
  const VariantCompiler compiler(dir);
  const CompileRequest request{"__global__ void k() { nope; }", "k.cu", "k", {}, {}, "sm_90"};
  CHECK_FALSE(compiler.compile(request).ok);
  // Rewrite the one cache file as an older blocktune wrote it: NVRTC's NUL kept in the log.
  const auto file = std::filesystem::directory_iterator(dir)->path();
  std::ifstream in(file, std::ios::binary);
  std::string header, rest;
  std::getline(in, header);
  std::getline(in, rest, '\0');
  in.close();
  const auto log_at = header.find("\"log\":\"") + 7;
  header.insert(log_at, "\\u0000");
  std::ofstream(file, std::ios::binary) << header << '\n' << rest;
  const CompiledVariant cached = compiler.compile(request);
  REQUIRE(cached.from_cache);
  CHECK(cached.log.find('\0') == std::string::npos);
  CHECK_THAT(cached.log, Catch::Contains("nope"));
}

TEST_CASE("compile_all returns results in request order from several threads", "[compiler]") {
  const VariantCompiler compiler(std::nullopt);
  std::vector<CompileRequest> requests;
  for (int n = 1; n <= 4; ++n) requests.push_back({kGood, "good.cu", "scale<" + std::to_string(n) + ">", {{"FACTOR", "1"}}, {}, "sm_90"});
  requests.push_back({"bad", "bad.cu", "k", {}, {}, "sm_90"});
  std::size_t last_done = 0;
  const auto results = compiler.compile_all(requests, 2, [&](std::size_t done, std::size_t total) {
    CHECK(done == last_done + 1);
    CHECK(total == 5);
    last_done = done;
  });
  REQUIRE(results.size() == 5);
  for (int n = 1; n <= 4; ++n) CHECK(results[n - 1].lowered_name == "_Z5scaleILi" + std::to_string(n) + "EEvPf");
  CHECK_FALSE(results[4].ok);
  CHECK(last_done == 5);
}

TEST_CASE("the ptxas parser reads registers, stack, spills, barriers and shared memory per entry", "[compiler][ptxas]") {
  const std::string log = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z1kILi128EEvPf' for 'sm_90'
ptxas info    : Function properties for _Z1kILi128EEvPf
ptxas         .     160 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 56 registers, used 1 barriers, 160 bytes cumulative stack size, 512 bytes smem
ptxas info    : Compile time = 38.167 ms
ptxas info    : Compiling entry function 'plain' for 'sm_90'
ptxas info    : Function properties for plain
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 1.137 ms
)";
  const auto k = parse_ptxas_info(log, "_Z1kILi128EEvPf");
  REQUIRE(k);
  CHECK(k->registers == 56);
  CHECK(k->stack_bytes == 160);
  CHECK(k->spill_stores == 24);
  CHECK(k->spill_loads == 16);
  CHECK(k->barriers == 1);
  CHECK(k->static_smem == 512);
  const auto plain = parse_ptxas_info(log, "plain");
  REQUIRE(plain);
  CHECK(plain->registers == 8);
  CHECK(plain->static_smem == 0);
  CHECK(plain->barriers == 0);
  CHECK_FALSE(parse_ptxas_info(log, "missing"));
  CHECK_FALSE(parse_ptxas_info("", "plain"));
}

TEST_CASE("a kernel that spills is reported with its spill bytes", "[compiler][ptxas]") {
  const char* source = R"(
extern "C" __global__ void spill(float* d, int n) {
  float a[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = d[threadIdx.x + i * n];
  for (int s = 0; s < n; ++s) {
#pragma unroll
    for (int i = 0; i < 64; ++i) a[i] = a[i] * a[(i + 1) % 64] + d[i + s];
  }
  float t = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) t += a[i];
  d[threadIdx.x] = t;
})";
  const VariantCompiler compiler(std::nullopt);
  const CompiledVariant v = compiler.compile({source, "spill.cu", "spill", {}, {"-maxrregcount=32"}, "sm_90"});
  REQUIRE(v.ok);
  CHECK(v.usage.registers <= 32);
  CHECK(v.usage.spill_stores > 0);
  CHECK(v.usage.spill_loads > 0);
}

// NVRTC has reported success with no lowered name for sources with stray 0xFF
// bytes; VariantCompiler turns that into a failed compile with a message.
// (Spec files refuse such sources earlier, naming the byte: tests/spec/test_errors.cpp.)
TEST_CASE("a source that is not UTF-8 never compiles to a variant without a name or machine code", "[compiler]") {
  const VariantCompiler compiler(std::nullopt);
  const std::string kernel = "template <int N> __global__ void scale(float* data) { data[threadIdx.x] *= N; }\n";
  for (const std::string& source : {"// \xFF\n" + kernel, kernel + "\xFF", "\xFF" + kernel, kernel + "// \xFF\xFE\n",
                                    std::string("template <int N> __global__ void sc\xFF" "ale(float* data) {}\n")}) {
    for (const char* entry : {"scale<1>", "sc\xFF" "ale<1>"}) {
      const CompiledVariant v = compiler.compile({source, "bytes.cu", entry, {}, {}, "sm_90"});
      if (v.ok) {
        CHECK_FALSE(v.lowered_name.empty());
        CHECK_FALSE(v.cubin.empty());
      } else {
        CHECK_FALSE(v.log.empty());
      }
    }
  }
}
