// The blocktune command-line tool: each command is a thin layer over the library.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace blocktune::cli {

struct Target {              // which device a command is about
  std::optional<int> device; // a GPU ordinal
  std::string arch;          // or an architecture profile, "sm_90"
};

struct PlanArgs {
  std::string kernel;
  std::optional<std::string> problem;  // none: the kernel's default problem
  std::int64_t time_steps = 1;
  std::filesystem::path spec;  // a tuning spec instead of a built-in kernel
  Target target;
  bool all = false;                    // compile and list every valid configuration
  std::size_t sample = 200;            // otherwise compile this many, drawn uniformly
  std::uint64_t seed = 1;
  std::optional<double> max_seconds;
  std::optional<double> compile_timeout;
  unsigned threads = 0;
  bool no_cache = false;
};

struct TuneArgs {
  std::string kernel;
  std::optional<std::string> problem;  // none: the kernel's default problem
  std::int64_t time_steps = 1;
  std::filesystem::path spec;
  double timeout_floor = 10, timeout_factor = 20;
  bool in_process = false;
  int device = 0;
  std::filesystem::path database;
  bool or_plan = false;
  std::string strategy;
  bool no_model = false;
  bool no_transfer = false;
  std::uint64_t seed = 1;
  std::optional<std::size_t> max_evaluations;
  std::optional<double> max_seconds;
  std::optional<std::size_t> patience;
  double compile_timeout = 300;
  unsigned lookahead = 0;
  std::filesystem::path simulate;  // a recorded space answers instead of a GPU
  std::string simulate_arch = "sm_90";
  bool flush_l2 = true;
  bool no_cache = false;
  unsigned threads = 0;
  std::filesystem::path trace;  // JSON lines, one per trial; empty: none
};

struct MeasureArgs {
  std::string kernel, config;
  std::optional<std::string> problem;  // none: the kernel's default problem
  std::int64_t time_steps = 1;
  std::filesystem::path spec;
  int device = 0;
  int repeats = 0;
  bool flush_l2 = true;
  bool no_cache = false;
};

struct BestArgs {
  std::string kernel, problem;
  std::int64_t time_steps = 1;
  Target target;
  std::filesystem::path database;
};

struct BenchCompileArgs {
  std::string kernel, arch;
  std::size_t count = 0;
  unsigned threads = 0;
};

struct BenchStencilArgs {
  int radius = 1;
  std::string problem;
  std::int64_t time_steps = 100;  // the codings fusing up to this many steps take part
  int device = 0;
  std::filesystem::path database;
  std::filesystem::path csv;  // optional: one row per coding, appended
  bool f64 = false;
  std::vector<std::string> where;  // constraints that restrict the tuned space
};

struct CharacterizeArgs {
  int device = 0;
  std::filesystem::path database;
};

int list_devices(const Target& target, bool json);
int characterize(const CharacterizeArgs& args);
int list_kernels();
int plan(const PlanArgs& args);
int tune(const TuneArgs& args);
int measure(const MeasureArgs& args);
int best(const BestArgs& args);
int bench_compile(const BenchCompileArgs& args);
int bench_stencil(const BenchStencilArgs& args);

}  // namespace blocktune::cli
