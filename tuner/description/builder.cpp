#include <blocktune/builder.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>

namespace blocktune {

KernelBuilder::KernelBuilder(std::string name) { kernel_.name = std::move(name); }

KernelBuilder& KernelBuilder::summary(std::string text) {
  kernel_.summary = std::move(text);
  return *this;
}

KernelBuilder& KernelBuilder::source_file(std::filesystem::path file) {
  source_files_.push_back(std::move(file));
  return *this;
}

KernelBuilder& KernelBuilder::source(std::string text, std::string name) {
  kernel_.source = std::move(text);
  kernel_.source_name = std::move(name);
  return *this;
}

KernelBuilder& KernelBuilder::include_path(std::filesystem::path directory) {
  include_paths_.push_back(std::move(directory));
  return *this;
}

KernelBuilder& KernelBuilder::entry(std::string name_expression) {
  kernel_.entry = std::move(name_expression);
  return *this;
}

KernelBuilder& KernelBuilder::option(std::string nvrtc_option) {
  kernel_.options.push_back(std::move(nvrtc_option));
  return *this;
}

KernelBuilder& KernelBuilder::problem(std::vector<std::string> dimension_names) {
  kernel_.problem_names = std::move(dimension_names);
  return *this;
}

KernelBuilder& KernelBuilder::parameter(std::string name, std::vector<Value> values) {
  parameters_.push_back({std::move(name), std::move(values)});
  return *this;
}

KernelBuilder& KernelBuilder::constraint(std::string expression) {
  constraints_.push_back(std::move(expression));
  return *this;
}

KernelBuilder& KernelBuilder::default_problem(ProblemSize problem) {
  kernel_.default_problem = std::move(problem);
  return *this;
}

KernelBuilder& KernelBuilder::define_names(DefineNames names) {
  kernel_.define_names = names;
  return *this;
}

KernelBuilder& KernelBuilder::defines(std::vector<std::string> parameters) {
  kernel_.defines = std::move(parameters);
  return *this;
}

KernelBuilder& KernelBuilder::default_config(std::string config_text) {
  kernel_.default_config = std::move(config_text);
  return *this;
}

KernelBuilder& KernelBuilder::block(std::vector<std::string> expressions) {
  block_ = std::move(expressions);
  return *this;
}

KernelBuilder& KernelBuilder::grid(std::vector<std::string> expressions) {
  grid_ = std::move(expressions);
  return *this;
}

KernelBuilder& KernelBuilder::grid_divisors(std::vector<std::string> divisors) {
  grid_divisors_ = std::move(divisors);
  return *this;
}

KernelBuilder& KernelBuilder::dynamic_smem(std::string bytes_expression) {
  kernel_.dynamic_smem = std::move(bytes_expression);
  return *this;
}

KernelBuilder& KernelBuilder::carveout(std::string percent_expression) {
  kernel_.carveout = std::move(percent_expression);
  return *this;
}

KernelBuilder& KernelBuilder::buffer(std::string name, ElementType type, std::string count) {
  const std::uint64_t seed = kernel_.arguments.size() + 1;  // distinct contents per buffer
  return buffer(BufferArgument{.name = std::move(name), .type = type, .count = std::move(count), .seed = seed});
}

KernelBuilder& KernelBuilder::buffer(BufferArgument argument) {
  kernel_.arguments.emplace_back(std::move(argument));
  return *this;
}

KernelBuilder& KernelBuilder::output(const std::string& buffer_name) {
  outputs_.push_back(buffer_name);
  return *this;
}

KernelBuilder& KernelBuilder::scalar(std::string name, ElementType type, std::string value) {
  kernel_.arguments.emplace_back(ScalarArgument{std::move(name), type, std::move(value)});
  return *this;
}

KernelBuilder& KernelBuilder::bytes_moved(std::string expression) {
  kernel_.bytes_moved = std::move(expression);
  return *this;
}

KernelBuilder& KernelBuilder::flops(std::string expression) {
  kernel_.flops = std::move(expression);
  return *this;
}

KernelBuilder& KernelBuilder::work(WorkExpressions expressions) {
  kernel_.work_expressions = std::move(expressions);
  return *this;
}

KernelBuilder& KernelBuilder::reference_kernel(ReferenceLaunch launch) {
  reference_launch_ = std::move(launch);
  return *this;
}

KernelBuilder& KernelBuilder::reference_file(std::string output, std::filesystem::path file) {
  kernel_.reference_files.emplace_back(std::move(output), file.string());
  return *this;
}

KernelBuilder& KernelBuilder::reference_function(
    std::function<void(const ProblemSize&, const Config&, std::vector<HostBuffer>&)> function) {
  kernel_.reference = std::move(function);
  return *this;
}

KernelBuilder& KernelBuilder::reference_key(std::string expression) {
  kernel_.reference_key = std::move(expression);
  return *this;
}

KernelBuilder& KernelBuilder::tolerance(double relative_error) {
  kernel_.tolerance = relative_error;
  return *this;
}

KernelBuilder& KernelBuilder::time_steps(std::string per_launch, std::string input, std::string output) {
  kernel_.steps_per_launch = std::move(per_launch);
  kernel_.step_input = std::move(input);
  kernel_.step_output = std::move(output);
  return *this;
}

std::string KernelBuilder::origin() const { return fmt::format("KernelBuilder '{}'", kernel_.name); }

namespace {

// 1 to 3 expressions as a launch dimension; the missing ones are 1.
std::array<std::string, 3> dimensions(const std::vector<std::string>& expressions, std::string_view origin, std::string_view field) {
  if (expressions.empty() || expressions.size() > 3)
    throw SpecError(std::string(origin), std::string(field), fmt::format("has {} entries; give 1 to 3", expressions.size()));
  std::array<std::string, 3> result = {"1", "1", "1"};
  std::ranges::copy(expressions, result.begin());
  return result;
}

// -DNAME=value for the default configuration's parameters, as resolve() passes them.
std::vector<std::string> default_defines(const KernelDescription& kernel) {
  std::vector<std::string> defines;
  const Config config = Config::parse(kernel.default_config);
  for (const auto& [name, value] : config.entries())
    if (const auto macro = macro_name(kernel, name)) defines.push_back(fmt::format("-D{}={}", *macro, to_string(value)));
  return defines;
}

}  // namespace

KernelDescription KernelBuilder::build() const {
  const std::string from = origin();
  const auto fail = [&](std::string field, std::string problem) { throw SpecError(from, std::move(field), std::move(problem)); };
  KernelDescription kernel = kernel_;

  if (!source_files_.empty() && !kernel.source.empty()) fail("sources", "give source files or source text, not both");
  if (source_files_.empty() && kernel.source.empty()) fail("sources", "missing; required: the kernel's source files");
  if (!source_files_.empty()) {
    SourceText source = read_sources(source_files_, from, "sources");
    kernel.source = std::move(source.text);
    kernel.source_name = std::move(source.name);
  }
  std::vector<std::string> includes;
  for (std::size_t i = 0; i < include_paths_.size(); ++i) {
    std::error_code error;
    const auto status = std::filesystem::status(include_paths_[i], error);
    const std::string directory = include_paths_[i].string();
    if (!std::filesystem::is_directory(status))
      fail(fmt::format("include_paths[{}]", i), std::filesystem::exists(status) ? fmt::format("'{}' is not a directory", directory)
                                                                               : fmt::format("directory '{}' does not exist", directory));
    includes.push_back("-I" + include_paths_[i].string());
  }
  kernel.options.insert(kernel.options.begin(), includes.begin(), includes.end());

  for (const Parameter& parameter : parameters_) {
    try {
      kernel.space.add_parameter(parameter);
    } catch (const std::invalid_argument& error) {
      fail("parameters." + parameter.name, error.what());
    }
  }
  for (std::size_t c = 0; c < constraints_.size(); ++c) {
    const std::string field = fmt::format("constraints[{}]", c);
    if (constraints_[c].size() > kMaxExpressionLength)
      fail(field, fmt::format("the expression is {} characters long, over the limit of {}", constraints_[c].size(), kMaxExpressionLength));
    try {
      kernel.space.add_constraint(constraints_[c]);
    } catch (const ExpressionError& error) {
      fail(field, error.what());
    }
  }

  try {
    set_time_steps(kernel, kernel.steps_per_launch, kernel.step_input, kernel.step_output);
  } catch (const ExpressionError& error) {
    fail("time_steps.per_launch", error.what());
  }

  if (block_.empty()) fail("block", "missing; required: the block's dimensions, e.g. [\"block_x\", \"block_y\"]");
  kernel.block = dimensions(block_, from, "block");
  if (grid_.empty() == grid_divisors_.empty()) fail("grid", "give either grid expressions or grid divisors");
  if (!grid_.empty()) kernel.grid = dimensions(grid_, from, "grid");
  if (!grid_divisors_.empty()) {
    kernel.grid = dimensions(grid_divisors_, from, "grid.divisors");
    if (grid_divisors_.size() > kernel.problem_names.size())
      fail("grid.divisors", fmt::format("has {} entries, but the problem has only {}", grid_divisors_.size(), fmt::join(kernel.problem_names, ", ")));
    for (std::size_t d = 0; d < grid_divisors_.size(); ++d)
      kernel.grid[d] = fmt::format("ceil_div({}, {})", kernel.problem_names[d], grid_divisors_[d]);
  }

  for (const std::string& name : outputs_) {
    const auto buffer = std::ranges::find_if(kernel.arguments, [&](const Argument& argument) {
      return std::holds_alternative<BufferArgument>(argument) && std::get<BufferArgument>(argument).name == name;
    });
    if (buffer == kernel.arguments.end()) fail("output", fmt::format("'{}' names no buffer argument", name));
    std::get<BufferArgument>(*buffer).output = true;
  }

  if (reference_launch_) {
    const ReferenceLaunch& launch = *reference_launch_;
    const std::string field = "verify.reference_kernel";
    ReferenceKernel reference;
    if (launch.source_files.empty()) {
      reference.source = kernel.source;
      reference.source_name = kernel.source_name;
    } else {
      SourceText source = read_sources(launch.source_files, from, field + ".sources");
      reference.source = std::move(source.text);
      reference.source_name = std::move(source.name);
    }
    reference.entry = launch.entry;
    reference.block = dimensions(launch.block, from, field + ".block");
    reference.grid = dimensions(launch.grid, from, field + ".grid");
    reference.dynamic_smem = launch.dynamic_smem;
    reference.options = launch.options;  // its own, for validation; the tuned kernel's go first below
    kernel.reference_kernel = std::move(reference);
  }

  try {
    validate(kernel, from);
  } catch (const SpecError& error) {
    // The grid was written as divisors: name the divisor, as the spec does.
    if (!grid_divisors_.empty() && error.field().starts_with("grid["))
      throw SpecError(from, "grid.divisors" + error.field().substr(4), error.problem());
    throw;
  }
  // The reference kernel may share a source with the tuned kernel, which
  // needs its options and defines to compile: it is compiled like the default
  // configuration, then with its own options.
  if (kernel.reference_kernel) {
    auto& options = kernel.reference_kernel->options;
    options = kernel.options;
    std::ranges::copy(default_defines(kernel), std::back_inserter(options));
    std::ranges::copy(reference_launch_->options, std::back_inserter(options));  // last: they may -U and -D the default's
  }
  return kernel;
}

}  // namespace blocktune
