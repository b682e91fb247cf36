// libFuzzer target for the command line: the input is an argument vector
// (arguments separated by newlines or NUL bytes), run in this process as
// `blocktune ARGS...` (blocktune::cli::run). Any exit code is fine: errors the
// CLI turns into a message and a code are the expected answer to a mistake. A
// crash, an abort, an uncaught exception, a sanitizer report, a leak or a hang
// is a bug.
//
// Every run happens in a fresh copy of a scratch folder (a temporary folder
// made at start-up) holding a tuning database, recorded spaces, a spec, a T1
// file, a Kernel Tuner cache and a database export, named as in fuzz/cli.dict;
// BLOCKTUNE_DB, BLOCKTUNE_CACHE_DIR, HOME and the XDG folders point into
// temporary folders, so the user's database and variant cache are never used.
//
// Inputs that would make a run slow or unbounded are skipped (return -1):
//  - an argument with '/' (a path outside the scratch folder could be written),
//  - a number above kMaxNumber in any argument (not counting digits in names,
//    like sm_90, nor the value of -p, --problem or --size), and numbers in
//    hexadecimal, octal, binary or with an exponent: sample sizes, counts,
//    seeds, workers, budgets and timeouts stay small;
//  - plan or bench compile without an explicit sample or count (-n, --sample,
//    --count): their defaults compile 200 or all configurations with NVRTC;
//  - --all (plan: every configuration), --or-plan (tune: the whole plan for
//    sm_90), --no-cache (NVRTC every time);
//  - tune without --simulate never reaches a GPU here (none), so it is kept.
#include "run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr unsigned long kMaxNumber = 5;

struct Sandbox {
  fs::path root;      // everything of this process
  fs::path pristine;  // the scratch folder's template
  fs::path scratch;   // the current run's copy
};

fs::path make_temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "blocktune-cli-fuzz-XXXXXX").string();
  if (!mkdtemp(pattern.data())) std::abort();
  return pattern;
}

int run_args(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return blocktune::cli::run(static_cast<int>(args.size()), argv.data());
}

Sandbox& sandbox() {
  static Sandbox box = [] {
    Sandbox b;
    b.root = make_temp_dir();
    b.pristine = b.root / "pristine";
    b.scratch = b.root / "scratch";
    for (const char* dir : {"home", "data", "cache", "config", "variants", "pristine"}) fs::create_directories(b.root / dir);
    setenv("HOME", (b.root / "home").c_str(), 1);
    setenv("XDG_DATA_HOME", (b.root / "data").c_str(), 1);
    setenv("XDG_CACHE_HOME", (b.root / "cache").c_str(), 1);
    setenv("XDG_CONFIG_HOME", (b.root / "config").c_str(), 1);
    setenv("BLOCKTUNE_CACHE_DIR", (b.root / "variants").c_str(), 1);
    setenv("BLOCKTUNE_DB", "tuning.db", 1);  // relative: the current run's scratch folder
    setenv("TMPDIR", b.root.c_str(), 1);
    const fs::path repo = BLOCKTUNE_FUZZ_REPO_DIR;
    const auto copy = [&](const fs::path& from, const char* to) { fs::copy_file(repo / from, b.pristine / to); };
    copy("tests/data/db/stencil3d_r1_h200.db", "tuning.db");
    copy("tests/data/spaces/sum_of_squares-67108864-h100-80gb-hbm3.csv.gz", "space.csv.gz");
    copy("tests/data/spaces/transpose-8192x8192-h100-80gb-hbm3.csv.gz", "transpose.csv.gz");
    copy("examples/specs/reduction/spec.json", "spec.json");
    copy("examples/specs/reduction/reduction.cu", "reduction.cu");
    copy("tests/data/t1/saxpy-t1.json", "t1.json");
    copy("tests/data/t1/saxpy.cu", "saxpy.cu");
    copy("tests/data/search/kernel_tuner_cache.json", "kt.json");
    // A database export for `db import`, written by the CLI itself.
    if (chdir(b.pristine.c_str()) != 0) std::abort();
    std::cout.setstate(std::ios::failbit);
    (void)run_args({"blocktune", "db", "export", "export.json"});
    std::cout.clear();
    std::cerr << "cli_fuzzer: scratch folders in " << b.root << "\n";
    return b;
  }();
  return box;
}

// A number above `limit` in `arg`: a run of digits not part of a name
// (stencil3d_r5, sm_90), after a short option's letter (-n500). Hexadecimal,
// octal, binary and exponents (0x.., 0b.., 1e9) count as large.
bool has_number_above(std::string_view arg, unsigned long limit) {
  if (arg.size() > 2 && arg[0] == '-' && std::isalpha(static_cast<unsigned char>(arg[1]))) arg.remove_prefix(2);
  const auto digit = [&](std::size_t i) { return std::isdigit(static_cast<unsigned char>(arg[i])) != 0; };
  const auto name_char = [&](std::size_t i) { return std::isalnum(static_cast<unsigned char>(arg[i])) || arg[i] == '_'; };
  for (std::size_t i = 0; i < arg.size();) {
    if (!digit(i)) { ++i; continue; }
    const bool in_name = i > 0 && name_char(i - 1);
    std::size_t j = i;
    unsigned long value = 0;
    bool large = false;
    while (j < arg.size() && digit(j)) {
      value = std::min(value * 10 + static_cast<unsigned long>(arg[j] - '0'), limit + 1);
      ++j;
    }
    large = value > limit || (j < arg.size() && std::string_view("xXbBoOeE").find(arg[j]) != std::string_view::npos);
    if (large && !in_name) return true;
    i = j;
  }
  return false;
}

bool is_problem_size(std::string_view arg) {  // 512, 512x512x512
  bool digit_before = false;
  for (char c : arg) {
    if (std::isdigit(static_cast<unsigned char>(c))) digit_before = true;
    else if (c == 'x' && digit_before) digit_before = false;
    else return false;
  }
  return digit_before;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// A problem size is any size: it costs nothing before a GPU runs the kernel.
bool is_problem_argument(std::string_view previous, std::string_view arg) {
  for (std::string_view option : {"-p", "--problem", "--size"}) {
    if (previous == option && is_problem_size(arg)) return true;
    if (starts_with(arg, option)) {
      std::string_view rest = arg.substr(option.size());
      if (starts_with(rest, "=")) rest.remove_prefix(1);
      if (is_problem_size(rest)) return true;
    }
  }
  return false;
}

bool acceptable(const std::vector<std::string>& args) {
  bool plan = false, bench = false, sample = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a.find('/') != std::string_view::npos) return false;
    if (starts_with(a, "--al") || starts_with(a, "--or") || starts_with(a, "--no-c")) return false;  // --all, --or-plan, --no-cache
    if (!is_problem_argument(args[i - 1], a) && has_number_above(a, kMaxNumber)) return false;
    if (a == "plan") plan = true;
    if (a == "bench") bench = true;
    if (starts_with(a, "-n") || starts_with(a, "--sample") || starts_with(a, "--count")) sample = true;
  }
  return !(plan || bench) || sample;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Sandbox& box = sandbox();
  std::vector<std::string> args{"blocktune"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n' || c == '\0') {
      args.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty() || size == 0) args.push_back(current);
  if (args.size() > 32 || !acceptable(args)) return -1;

  std::error_code ignored;
  fs::remove_all(box.scratch, ignored);
  fs::copy(box.pristine, box.scratch, fs::copy_options::recursive);
  if (chdir(box.scratch.c_str()) != 0) std::abort();
  (void)run_args(std::move(args));
  std::cout.clear();  // a failed write (checked by the CLI) must not carry over to the next run
  std::cerr.clear();
  return 0;
}
