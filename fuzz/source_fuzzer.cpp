// libFuzzer target for kernel sources: the input is the text of a .cu file,
// given to a fixed minimal spec (kSpec, parsed from memory) whose folder is a
// temporary one holding the file as kernel.cu and an include path with
// helpers.cuh (from fuzz/data/include) and unroll.cuh, which names UNROLL. This reaches reading the sources, the
// UTF-8 check, the validator's scans of the sources (the entry must appear,
// every define must be named, directly or in an #included file) and, for a
// spec that loads, resolving its default configuration for sm_90 and
// compiling it with NVRTC (VariantCompiler without a cache).
//
// Every input must give a SpecError or a compile result, successful or not;
// anything else (another exception, a crash, undefined behaviour, a compile
// that "succeeds" without machine code or a lowered name) is a bug.
//
// NVRTC takes tens of milliseconds per compile: with BLOCKTUNE_FUZZ_NVRTC_EVERY=N
// only inputs whose hash is a multiple of N are compiled (default 1: all).
#include <blocktune/detail/compiler.hpp>
#include <blocktune/db_types.hpp>
#include <blocktune/detail/device.hpp>
#include <blocktune/spec.hpp>
#include <blocktune/tuner.hpp>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace fs = std::filesystem;

namespace {

// block_x reaches the launch geometry, tile the entry's template argument,
// unroll the source as the macro UNROLL (directly or in helpers.cuh).
constexpr std::string_view kSpec = R"({
  "name": "fuzzed",
  "sources": ["kernel.cu"],
  "entry": "scale<{tile}>",
  "options": ["-Iinclude"],
  "problem": ["n"],
  "parameters": {"block_x": [32, 64], "tile": [1, 2], "unroll": [1, 4]},
  "defines": ["unroll"],
  "block": ["block_x"],
  "grid": {"divisors": ["block_x * tile"]},
  "arguments": [
    {"buffer": "out", "type": "f32", "count": "n", "output": true},
    {"buffer": "in", "type": "f32", "count": "n"},
    {"scalar": "factor", "type": "f32", "value": "2"},
    {"scalar": "n", "type": "i32", "value": "n"}
  ]
})";

struct Folder {
  fs::path root;
  unsigned every = 1;
};

const Folder& folder() {
  static const Folder& f = *new Folder([] {  // never destroyed: the clean-up at exit reads it
    Folder made;
    std::string pattern = (fs::temp_directory_path() / "blocktune-source-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    made.root = pattern;
    fs::create_directories(made.root / "include");
    fs::copy_file(fs::path(BLOCKTUNE_FUZZ_DATA_DIR) / "include" / "helpers.cuh", made.root / "include" / "helpers.cuh");
    // A header that names the macro, so a source may reach it only through #include.
    std::ofstream(made.root / "include" / "unroll.cuh") << "#pragma once\n#include \"helpers.cuh\"\nconstexpr int kUnroll = UNROLL;\n";
    if (const char* every = std::getenv("BLOCKTUNE_FUZZ_NVRTC_EVERY"); every && std::atoi(every) > 0)
      made.every = static_cast<unsigned>(std::atoi(every));
    // "-Iinclude" is relative to the working directory, as NVRTC reads it.
    if (chdir(made.root.c_str()) != 0) std::abort();
    std::atexit([] { std::error_code ignored; fs::remove_all(folder().root, ignored); });
    std::fprintf(stderr, "source_fuzzer: folder %s, NVRTC for 1 input in %u\n", made.root.c_str(), made.every);
    return made;
  }());
  return f;
}

std::uint32_t fnv1a(const std::uint8_t* data, std::size_t size) {
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Folder& f = folder();
  {
    std::ofstream out(f.root / "kernel.cu", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();
  }
  blocktune::CompileRequest request;
  try {
    const blocktune::KernelDescription kernel = blocktune::parse_spec(kSpec, f.root, "fuzz.json");
    if (fnv1a(data, size) % f.every != 0) return 0;
    const blocktune::Config config = blocktune::Config::parse(kernel.default_config);
    request = blocktune::resolve(kernel, config, blocktune::require_arch_profile("sm_90"), blocktune::ProblemSize::parse("4096")).request;
  } catch (const blocktune::SpecError& error) {
    // The expected answer to a source the spec cannot use. A source that is
    // not UTF-8 is still given to NVRTC as the spec's default configuration
    // would be, as before the spec checked it: NVRTC has reported success
    // with no lowered name for such sources (VariantCompiler must say so).
    if (std::string_view(error.what()).find("is not valid UTF-8") == std::string_view::npos) return 0;
    if (fnv1a(data, size) % f.every != 0) return 0;
    request = {std::string(reinterpret_cast<const char*>(data), size), "kernel.cu", "scale<1>", {{"UNROLL", "1"}}, {"-Iinclude"}, "sm_90"};
  }
  // NVRTC itself crashes on some sources (fuzz/nvrtc-crashes/; blocktune
  // compiles through worker processes for that reason, CompilePool), so the
  // compile runs in a child process: a child that dies is counted and its input
  // kept in the build folder's fuzz/nvrtc-crashes/. The child checks what
  // VariantCompiler returned and exits 87 when it is wrong.
  static const blocktune::VariantCompiler compiler(std::nullopt);
  const pid_t child = fork();
  if (child < 0) std::abort();
  if (child == 0) {
    // NVRTC's own crashes end the child quietly (not through the sanitizer's
    // and libFuzzer's handlers, which would report them as the fuzzer's);
    // a sanitizer report from blocktune's code still comes, as a crash-* file.
    for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(signal, SIG_DFL);
    const blocktune::CompiledVariant variant = compiler.compile(request);
    if (variant.ok && (variant.cubin.empty() || variant.lowered_name.empty())) {
      std::fprintf(stderr, "compile succeeded without %s\n", variant.cubin.empty() ? "machine code" : "a lowered name");
      _exit(87);
    }
    if (!variant.ok && variant.log.empty()) {
      std::fprintf(stderr, "compile failed without a message\n");
      _exit(87);
    }
    _exit(0);
  }
  int status = 0;
  pid_t waited;
  do waited = waitpid(child, &status, 0);  // libFuzzer's SIGALRM (-timeout) interrupts it
  while (waited < 0 && errno == EINTR);
  if (waited != child) std::abort();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 87) std::abort();  // VariantCompiler's answer was wrong
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    static unsigned crashes = 0;
    const fs::path kept = fs::path(BLOCKTUNE_FUZZ_CRASH_DIR) / fmt::format("nvrtc-crash-{:08x}.cu", fnv1a(data, size));
    std::fprintf(stderr, "source_fuzzer: NVRTC crashed (%s %d; %u so far), input kept as %s\n", WIFSIGNALED(status) ? "signal" : "exit status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), ++crashes, kept.c_str());
    std::error_code ignored;
    fs::create_directories(kept.parent_path(), ignored);
    std::ofstream(kept, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  return 0;
}
