// The one description of a tunable kernel: its source, search space, launch
// geometry, arguments and how to check its output. Built-in kernels are
// written in C++ (kernels/); spec files are the same description written down.
#pragma once

#include <blocktune/detail/model.hpp>
#include <blocktune/detail/residual.hpp>
#include <blocktune/runtime.hpp>
#include <blocktune/detail/space.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace blocktune {

enum class ElementType { f32, f64, i32, i64, u32, u64 };
inline constexpr std::array kElementTypes{ElementType::f32, ElementType::f64, ElementType::i32,
                                          ElementType::i64, ElementType::u32, ElementType::u64};
std::size_t size_of(ElementType type);
std::string_view to_string(ElementType type);
bool is_integral(ElementType type);

struct BufferArgument {
  enum class Init { random, constant, values, file, uniform, normal, iota };
  std::string name;
  ElementType type = ElementType::f32;
  std::string count;               // elements, an expression over the problem dims
  Init init = Init::random;        // random: uniform in [-1, 1) from `seed`, never zeros
  double value = 0;                // for Init::constant
  std::vector<double> values;      // for Init::values: the whole buffer, e.g. coefficients
  std::string file;                // for Init::file: raw elements, exactly count * element size bytes
  double low = -1, high = 1;       // for Init::uniform: uniform in [low, high)
  double mean = 0, stddev = 1;     // for Init::normal
  std::uint64_t seed = 1;          // for random, uniform and normal
  bool output = false;             // compared against the reference after a run
  // Not a kernel parameter: the module's __constant__ (or __device__) symbol
  // of this name, filled with the initial contents after the module loads.
  bool constant = false;
};


struct ScalarArgument {
  std::string name;
  ElementType type = ElementType::i32;
  std::string value;               // a number written out (0.1, -2.5e-3), or an integer expression over the problem dims and parameters
};

// The value of a scalar written as a number with a fraction or an exponent
// ("0.1", "-3e-2"); nullopt for anything else, which is an integer expression.
std::optional<double> scalar_literal(std::string_view text);

// How parameters reach the source as macros: upper-cased (block_x becomes
// BLOCK_X, blocktune's convention) or as written (Kernel Tuner's and T1 files').
enum class DefineNames { upper, as_is };

using Argument = std::variant<BufferArgument, ScalarArgument>;

// A host copy of one buffer argument.
struct HostBuffer {
  std::string name;
  ElementType type = ElementType::f32;
  std::vector<std::byte> bytes;

  std::size_t count() const { return bytes.size() / size_of(type); }
  template <typename T>
  std::span<T> as() { return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)}; }
  template <typename T>
  std::span<const T> as() const { return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)}; }
};

// A buffer's initial contents, `count` elements by its `init` (Init::file
// leaves zeros: the caller reads the file).
HostBuffer initial_buffer(const BufferArgument& buffer, std::int64_t count);

// A trusted kernel that computes the expected outputs from the same
// arguments, launched once per reference key.
struct ReferenceKernel {
  std::string source, source_name;
  std::string entry;                                   // name expression, "{param}" as in KernelDescription
  std::vector<std::string> options;
  std::array<std::string, 3> block = {"256", "1", "1"};  // expressions over problem dims and parameters
  std::array<std::string, 3> grid = {"1", "1", "1"};
  std::string dynamic_smem = "0";
};

// A spec file's counts for the execution-time model: KernelWork's fields as
// expressions over parameters, problem dims and device limits. An empty field
// falls back to bytes_moved and flops (see kernel_work).
struct WorkExpressions {
  std::string dram_bytes, l2_bytes, l1_wavefronts, shared_wavefronts, warp_instructions, steps, rounds, chains, staged;
};

// Each work field: its name in a spec's work block, its expression, and the
// count it sets.
struct WorkField {
  std::string_view name;
  std::string WorkExpressions::*expression;
  double KernelWork::*count;
};
inline constexpr std::array<WorkField, 9> kWorkFields{{
    {"dram_bytes", &WorkExpressions::dram_bytes, &KernelWork::dram_bytes},
    {"l2_bytes", &WorkExpressions::l2_bytes, &KernelWork::l2_bytes},
    {"l1_wavefronts", &WorkExpressions::l1_wavefronts, &KernelWork::l1_wavefronts},
    {"shared_wavefronts", &WorkExpressions::shared_wavefronts, &KernelWork::shared_wavefronts},
    {"warp_instructions", &WorkExpressions::warp_instructions, &KernelWork::warp_instructions},
    {"steps", &WorkExpressions::steps, &KernelWork::steps},
    {"rounds", &WorkExpressions::rounds, &KernelWork::rounds},
    {"chains", &WorkExpressions::chains, &KernelWork::chains},
    {"staged", &WorkExpressions::staged, &KernelWork::staged},
}};

struct KernelDescription {
  std::string name;          // the key in the database, e.g. "stencil3d_r1"
  // Where the description comes from, so another process can load it again:
  // "builtin:NAME" or "spec:PATH". Empty for descriptions built in code, which
  // are then measured in-process (no fault isolation).
  std::string origin;
  std::string summary;       // one line for listings
  std::string source;        // CUDA C++ source text
  std::string source_name;   // e.g. "stencil3d.cu"
  std::string entry;         // name expression; "{param}" takes the configuration's value
  std::vector<std::string> options;   // extra NVRTC options
  SearchSpace space;
  std::vector<std::string> defines;   // parameters passed as -D; empty = every parameter
  DefineNames define_names = DefineNames::upper;

  std::vector<std::string> problem_names = {"nx", "ny", "nz"};  // variables naming the problem dims
  std::optional<ProblemSize> default_problem;  // the problem commands take when given none
  // Launch geometry, expressions over parameters and problem dims.
  std::array<std::string, 3> block = {"block_x", "block_y", "block_z"};
  std::array<std::string, 3> grid = {"1", "1", "1"};
  std::string dynamic_smem = "0";
  std::string carveout = "-1";         // percent; -1 leaves the driver's default

  std::vector<Argument> arguments;     // in the kernel's parameter order

  // Iterative kernels (time_steps.hpp): how many time steps one launch
  // advances, an expression over the parameters (e.g. "fused_steps"), and the
  // buffers an N-step run swaps after each launch: every launch reads
  // step_input and writes step_output. Expressions may name `time_steps`,
  // the problem's; a description with steps_per_launch other than "1" keeps
  // to configurations that advance at most time_steps steps.
  std::string steps_per_launch = "1";
  std::string step_input, step_output;  // empty: the kernel is not iterated
  std::string default_config;          // canonical text of the configuration to compare against
  std::string bytes_moved;             // expression for effective bandwidth (GB/s); empty if none
  std::string flops;                   // expression for GFLOP/s; empty if none
  // What a configuration moves and executes, for the execution-time model;
  // unset or nullopt: bytes_moved and flops, the same for every configuration.
  std::function<std::optional<KernelWork>(const ProblemSize& problem, const Config& config)> work;
  WorkExpressions work_expressions;  // the same written as expressions (spec files); used when `work` is unset
  // A learned correction of the model's time for this kernel (detail/residual.hpp); null: the model as it is.
  const ResidualModel* residual = nullptr;

  // Where the expected outputs come from, the first that is set:
  // 1. a host function: from the initial buffers (outputs included, for kernels
  //    that leave parts untouched) it overwrites the outputs with expected values;
  std::function<void(const ProblemSize& problem, const Config& config, std::vector<HostBuffer>& buffers)> reference;
  // 2. a reference kernel run on the GPU;
  std::optional<ReferenceKernel> reference_kernel;
  // 3. files of expected values, output buffer name -> raw elements;
  std::vector<std::pair<std::string, std::string>> reference_files;
  // 4. otherwise, the default configuration's output.
  // The expected outputs are computed once per distinct value of this
  // expression over the parameters (e.g. "fused_steps"); empty: once.
  std::string reference_key;
  double tolerance = 1e-5;             // bound on ||out - ref|| / ||ref|| per output buffer
};

// Makes `kernel` iterative (steps_per_launch, step_input, step_output) and
// keeps its space to configurations whose launch fits in the problem's time steps.
void set_time_steps(KernelDescription& kernel, std::string per_launch, std::string input, std::string output);

// How many arguments the kernel itself takes: the buffers that are not
// constant symbols, and the scalars.
std::size_t kernel_parameter_count(const KernelDescription& kernel);

// Whether a buffer's count names a parameter: its size changes with the configuration.
bool sized_by_parameters(const KernelDescription& kernel, const BufferArgument& buffer);

// The macro a parameter becomes (`define_names`), nullopt where the parameter
// is not passed as a define.
std::optional<std::string> macro_name(const KernelDescription& kernel, std::string_view parameter);

// A scalar argument's bytes as the kernel takes it: `value` converted to
// `type`, with `lookup` naming parameters, problem dims and device variables.
std::array<std::byte, 8> scalar_bytes(const ScalarArgument& scalar, const Lookup& lookup);

}  // namespace blocktune
