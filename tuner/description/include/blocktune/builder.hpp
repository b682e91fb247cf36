// Describing a kernel from code: the C++ twin of a spec file. Every spec file
// is read through this builder, so both are checked by the same validate().
//
//   const blocktune::KernelDescription kernel =
//       blocktune::KernelBuilder("matmul")
//           .source_file("matmul.cu")
//           .entry("matmul<{tile}>")
//           .problem({"m", "n", "k"})
//           .parameter("block_x", {16, 32})
//           .parameter("tile", {1, 2, 4})
//           .constraint("block_x * tile <= 128")
//           .defines({"block_x"})  // tile reaches the kernel as a template argument
//           .block({"block_x", "block_x"})
//           .grid_divisors({"block_x * tile", "block_x"})
//           .buffer("a", ElementType::f32, "m * k")
//           .buffer("b", ElementType::f32, "k * n")
//           .buffer("c", ElementType::f32, "m * n")
//           .output("c")
//           .scalar("m", ElementType::i32, "m")
//           .flops("2 * m * n * k")
//           .tolerance(1e-4)
//           .build();
#pragma once

#include <blocktune/detail/kernel.hpp>
#include <blocktune/spec.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace blocktune {

// A trusted kernel that computes the expected outputs from the same arguments.
// It is compiled like the default configuration (the kernel's options and
// include paths, the default's defines), so it may live in the tuned kernel's
// source, then with its own `options`.
struct ReferenceLaunch {
  std::string entry;                                // name expression; "{param}" takes the configuration's value
  std::vector<std::string> block = {"256"};         // 1 to 3 expressions
  std::vector<std::string> grid = {"1"};            // 1 to 3 expressions
  std::string dynamic_smem = "0";
  std::vector<std::filesystem::path> source_files;  // empty: the tuned kernel's own source
  std::vector<std::string> options;                 // further NVRTC options
};

class KernelBuilder {
 public:
  // `name` is the kernel's key in the tuning database.
  explicit KernelBuilder(std::string name);

  KernelBuilder& summary(std::string text);
  // Source files are read at build(); several are joined in order with #line
  // directives, so compiler messages name the right file.
  KernelBuilder& source_file(std::filesystem::path file);
  // Or the source text itself, e.g. embedded in the application.
  KernelBuilder& source(std::string text, std::string name);
  KernelBuilder& include_path(std::filesystem::path directory);  // passed to NVRTC as -I
  KernelBuilder& entry(std::string name_expression);              // "matmul<{tile}>" or an extern "C" name
  KernelBuilder& option(std::string nvrtc_option);

  // Names of the problem dimensions, in the order of --problem (default nx, ny, nz).
  KernelBuilder& problem(std::vector<std::string> dimension_names);
  // The problem that commands take when given none.
  KernelBuilder& default_problem(ProblemSize problem);
  KernelBuilder& parameter(std::string name, std::vector<Value> values);
  KernelBuilder& constraint(std::string expression);
  // Parameters passed to the source as -DNAME=value; default: all.
  KernelBuilder& defines(std::vector<std::string> parameters);
  // How their names reach the source: upper-cased (default) or as written.
  KernelBuilder& define_names(DefineNames names);
  // The configuration to compare against and fall back to, e.g. "block_x=32,tile=2";
  // default: the first configuration that satisfies the constraints.
  KernelBuilder& default_config(std::string config_text);

  // Launch geometry: 1 to 3 expressions each; missing dimensions are 1.
  KernelBuilder& block(std::vector<std::string> expressions);
  KernelBuilder& grid(std::vector<std::string> expressions);
  // grid[i] = ceil_div(problem dimension i, divisors[i]).
  KernelBuilder& grid_divisors(std::vector<std::string> divisors);
  KernelBuilder& dynamic_smem(std::string bytes_expression);
  KernelBuilder& carveout(std::string percent_expression);  // -1: the driver's default

  // Arguments in the kernel's parameter order. A buffer's element count is an
  // expression over the problem dimensions; this form fills it with random
  // values seeded by its position.
  KernelBuilder& buffer(std::string name, ElementType type, std::string count);
  KernelBuilder& buffer(BufferArgument argument);
  KernelBuilder& output(const std::string& buffer_name);
  KernelBuilder& scalar(std::string name, ElementType type, std::string value);

  // The reported metric: GB/s when bytes_moved is set, else GFLOP/s when flops
  // is, else time only. The winner is always the fastest.
  KernelBuilder& bytes_moved(std::string expression);
  KernelBuilder& flops(std::string expression);
  // Per-configuration counts for the execution-time model.
  KernelBuilder& work(WorkExpressions expressions);

  // Where the expected outputs come from; without any, the default configuration's.
  KernelBuilder& reference_kernel(ReferenceLaunch launch);
  KernelBuilder& reference_file(std::string output, std::filesystem::path file);
  KernelBuilder& reference_function(
      std::function<void(const ProblemSize&, const Config&, std::vector<HostBuffer>&)> function);
  KernelBuilder& reference_key(std::string expression);
  KernelBuilder& tolerance(double relative_error);

  // An iterative kernel: time steps per launch (an expression over the
  // parameters) and the buffers swapped between launches (kernel.hpp).
  KernelBuilder& time_steps(std::string per_launch, std::string input, std::string output);

  // Reads the sources and runs validate(). Throws SpecError naming the field
  // as a spec file would ("grid.divisors[1]", "arguments[0].count").
  KernelDescription build() const;

 private:
  std::string origin() const;

  KernelDescription kernel_;
  std::vector<std::filesystem::path> source_files_;
  std::vector<std::filesystem::path> include_paths_;
  std::vector<std::string> extra_options_;
  std::vector<Parameter> parameters_;
  std::vector<std::string> constraints_;
  std::vector<std::string> block_, grid_, grid_divisors_;
  std::vector<std::string> outputs_;
  std::optional<ReferenceLaunch> reference_launch_;
};

}  // namespace blocktune
