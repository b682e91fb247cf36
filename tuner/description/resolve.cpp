// Resolving a configuration: a kernel description's expressions evaluated
// for one device and problem. CUDA-free.
#include <blocktune/detail/resolve.hpp>

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <variant>

namespace blocktune {
namespace {

std::int64_t evaluate(const KernelDescription& kernel, std::string_view field, const std::string& text, const Lookup& lookup) {
  try {
    return Expression::parse(text).evaluate_int(lookup);
  } catch (const ExpressionError& error) {
    throw ExpressionError(fmt::format("kernel {}, {}: {}", kernel.name, field, error.what()));
  }
}

unsigned to_dimension(std::int64_t value, std::string_view what) {
  if (value < 1 || value > std::int64_t{0x7fffffff})
    throw std::invalid_argument(fmt::format("{} is {}, outside 1 to 2^31-1", what, value));
  return static_cast<unsigned>(value);
}

}  // namespace

std::string substitute(std::string text, const Config& config) {
  for (const auto& [name, value] : config.entries()) {
    const std::string placeholder = "{" + name + "}";
    for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at))
      text.replace(at, placeholder.size(), to_string(value));
  }
  return text;
}

Lookup environment(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem) {
  return [&kernel, device, problem](std::string_view name) -> std::optional<Value> {
    for (std::size_t d = 0; d < kernel.problem_names.size() && d < problem.dims.size(); ++d)
      if (name == kernel.problem_names[d]) return Value{problem.dims[d]};
    if (name == "max_threads_per_block") return Value{std::int64_t{device.max_threads_per_block}};
    if (name == "max_shared_per_block") return Value{std::int64_t{device.shared_per_block_optin}};
    if (name == "shared_per_sm") return Value{std::int64_t{device.shared_per_sm}};
    if (name == "max_threads_per_sm") return Value{std::int64_t{device.max_threads_per_sm}};
    if (name == "sm_count") return Value{std::int64_t{device.sm_count}};
    if (name == "warp_size") return Value{std::int64_t{device.warp_size}};
    if (name == "cc") return Value{std::int64_t{device.cc_major * 10 + device.cc_minor}};
    if (name == "time_steps") return Value{problem.time_steps};
    return std::nullopt;
  };
}

ResolvedConfig resolve(const KernelDescription& kernel, const Config& config, const DeviceInfo& device, const ProblemSize& problem) {
  const Lookup env = environment(kernel, device, problem);
  const Lookup lookup = config.lookup(env);
  ResolvedConfig r;
  r.request.source = kernel.source;
  r.request.source_name = kernel.source_name;
  r.request.kernel = substitute(kernel.entry, config);
  r.request.options = kernel.options;
  r.request.arch = device.arch();
  for (const auto& [name, value] : config.entries())
    if (auto macro = macro_name(kernel, name)) r.request.defines.emplace_back(std::move(*macro), to_string(value));
  for (int d = 0; d < 3; ++d) {
    r.shape.block[d] = to_dimension(evaluate(kernel, "block", kernel.block[d], lookup), fmt::format("block dimension {}", d));
    r.shape.grid[d] = to_dimension(evaluate(kernel, "grid", kernel.grid[d], lookup), fmt::format("grid dimension {}", d));
  }
  const std::int64_t dynamic = evaluate(kernel, "dynamic_smem", kernel.dynamic_smem, lookup);
  if (dynamic < 0) throw std::invalid_argument(fmt::format("kernel {}: dynamic shared memory is negative ({})", kernel.name, dynamic));
  r.shape.dynamic_smem = static_cast<unsigned>(dynamic);
  const std::int64_t carveout = evaluate(kernel, "carveout", kernel.carveout, lookup);
  if (carveout < -1 || carveout > 100) throw std::invalid_argument(fmt::format("kernel {}: carveout {} is outside -1 to 100", kernel.name, carveout));
  r.shape.carveout = static_cast<int>(carveout);
  r.steps_per_launch = evaluate(kernel, "steps_per_launch", kernel.steps_per_launch, lookup);
  if (r.steps_per_launch < 1)
    throw std::invalid_argument(fmt::format("kernel {}: a launch advances {} time steps, not at least one", kernel.name, r.steps_per_launch));
  return r;
}

double measurement_bytes(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem) {
  // At the default configuration's sizes, where buffer counts name parameters.
  const Config default_config = Config::parse(kernel.default_config);
  const Lookup env = default_config.lookup(environment(kernel, device, problem));
  double total = 0;
  for (const Argument& argument : kernel.arguments) {
    const auto* buffer = std::get_if<BufferArgument>(&argument);
    if (!buffer) continue;
    const std::int64_t count = evaluate(kernel, fmt::format("buffer {}", buffer->name), buffer->count, env);
    if (count < 1)
      throw std::invalid_argument(fmt::format("kernel {}, problem {}: buffer {} has {} elements", kernel.name, problem.to_string(),
                                              buffer->name, count));
    total += static_cast<double>(count) * static_cast<double>(size_of(buffer->type)) * (buffer->output ? 3 : 1);
  }
  return total;
}

void require_memory(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem) {
  // A problem no configuration can measure is refused before any compile.
  if (const double needed = measurement_bytes(kernel, device, problem); needed > static_cast<double>(device.memory_bytes))
    throw std::invalid_argument(fmt::format("problem {} needs {:.1f} GiB of GPU memory for {} (buffers, initial outputs and "
                                            "expected outputs); {} has {:.1f} GiB",
                                            problem.to_string(), needed / (1 << 30), kernel.name, device.name,
                                            static_cast<double>(device.memory_bytes) / (1 << 30)));
}

}  // namespace blocktune
