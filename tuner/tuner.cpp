#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>
#include <blocktune/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

namespace blocktune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

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
  for (const auto& [name, value] : config.entries()) {
    const bool passed = kernel.defines.empty() || std::ranges::find(kernel.defines, name) != kernel.defines.end();
    if (passed) r.request.defines.emplace_back(name, to_string(value));
  }
  // Defines are upper-cased: block_x -> BLOCK_X, the convention of kernel sources.
  for (auto& [name, value] : r.request.defines) std::ranges::transform(name, name.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
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
  return r;
}

Outcome PlanEntry::static_outcome() const {
  if (!rejected_by.empty()) return Outcome::rejected_by_constraint;
  if (!variant.ok) return Outcome::compile_error;
  if (!occupancy.invalid.empty()) return Outcome::pruned_by_occupancy;
  return Outcome::ok;
}

std::string PlanEntry::reason() const {
  switch (static_outcome()) {
    case Outcome::rejected_by_constraint: return fmt::format("violates {}", rejected_by);
    case Outcome::compile_error: return "does not compile";
    case Outcome::pruned_by_occupancy: return fmt::format("cannot launch: {}", occupancy.invalid);
    default: return {};
  }
}

std::size_t Plan::count(Outcome outcome) const {
  return static_cast<std::size_t>(std::ranges::count_if(entries, [&](const PlanEntry& e) { return e.static_outcome() == outcome; }));
}

double Plan::rejected() const { return raw_size - double(entries.size() - count(Outcome::rejected_by_constraint)); }

namespace {

// Every point of the raw product, in enumeration order, for listing why the
// constraints reject some; only used for small spaces.
std::vector<Config> raw_points(const SearchSpace& space) {
  std::vector<Config> points{Config{}};
  for (const Parameter& parameter : space.parameters()) {
    std::vector<Config> next;
    next.reserve(points.size() * parameter.values.size());
    for (const Config& point : points)
      for (const Value& value : parameter.values) {
        auto entries = point.entries();
        entries.emplace_back(parameter.name, value);
        next.emplace_back(std::move(entries));
      }
    points = std::move(next);
  }
  return points;
}

constexpr double kListRejectedUpTo = 100000;

Occupancy occupancy_of(const PlanEntry& entry, const DeviceInfo& device) {
  if (!entry.variant.ok) return {};
  const auto& shape = entry.resolved.shape;
  return compute_occupancy(device, {.block_threads = static_cast<int>(shape.block[0] * shape.block[1] * shape.block[2]),
                                    .registers = entry.variant.usage.registers,
                                    .static_smem = entry.variant.usage.static_smem,
                                    .dynamic_smem = static_cast<int>(shape.dynamic_smem),
                                    .carveout = shape.carveout,
                                    .barriers = entry.variant.usage.barriers});
}

}  // namespace

double measurement_bytes(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem) {
  const Lookup env = environment(kernel, device, problem);
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

Plan make_plan(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem,
               const VariantCompiler& compiler, const PlanOptions& options) {
  const auto start = Clock::now();
  // A problem no configuration can measure is refused before any compile.
  if (const double needed = measurement_bytes(kernel, device, problem); needed > static_cast<double>(device.memory_bytes))
    throw std::invalid_argument(fmt::format("problem {} needs {:.1f} GiB of GPU memory for {} (buffers, initial outputs and "
                                            "expected outputs); {} has {:.1f} GiB",
                                            problem.to_string(), needed / (1 << 30), kernel.name, device.name,
                                            static_cast<double>(device.memory_bytes) / (1 << 30)));
  Plan plan;
  plan.device = device;
  plan.problem = problem;
  plan.raw_size = kernel.space.raw_size();
  const Lookup env = environment(kernel, device, problem);

  std::vector<Config> points = options.include_rejected && plan.raw_size <= kListRejectedUpTo ? raw_points(kernel.space)
                                                                                             : kernel.space.enumerate(env);
  for (Config& config : points) {
    PlanEntry entry;
    entry.config = std::move(config);
    if (auto violation = kernel.space.check(entry.config, env)) {
      entry.rejected_by = violation->constraint;
    } else {
      entry.resolved = resolve(kernel, entry.config, device, problem);
    }
    plan.entries.push_back(std::move(entry));
  }

  // Configurations that differ only in launch settings (the carveout) share a
  // variant: compile each distinct request once.
  std::map<std::string, std::size_t> request_index;
  std::vector<CompileRequest> requests;
  std::vector<std::size_t> variant_of(plan.entries.size(), 0);
  for (std::size_t i = 0; i < plan.entries.size(); ++i) {
    if (!plan.entries[i].rejected_by.empty()) continue;
    const auto [it, added] = request_index.emplace(plan.entries[i].resolved.request.identity(), requests.size());
    if (added) requests.push_back(plan.entries[i].resolved.request);
    variant_of[i] = it->second;
  }
  const std::vector<CompiledVariant> variants = compiler.compile_all(requests, options.threads, options.progress);
  for (const CompiledVariant& v : variants) (v.from_cache ? plan.cached : plan.compiled)++;

  for (std::size_t i = 0; i < plan.entries.size(); ++i) {
    PlanEntry& entry = plan.entries[i];
    if (!entry.rejected_by.empty()) continue;
    entry.variant = variants[variant_of[i]];
    entry.occupancy = occupancy_of(entry, device);
  }
  plan.seconds = seconds_since(start);
  return plan;
}

PlanEntry plan_one(const KernelDescription& kernel, const Config& config, const DeviceInfo& device, const ProblemSize& problem,
                   const VariantCompiler& compiler) {
  PlanEntry entry;
  entry.config = config;
  const Lookup env = environment(kernel, device, problem);
  if (auto violation = kernel.space.check(config, env)) {
    entry.rejected_by = violation->constraint;
    return entry;
  }
  entry.resolved = resolve(kernel, config, device, problem);
  entry.variant = compiler.compile(entry.resolved.request);
  entry.occupancy = occupancy_of(entry, device);
  return entry;
}

DeviceRecord to_record(const DeviceInfo& d) {
  DeviceRecord r;
  r.uuid = d.uuid.empty() ? d.arch() + "-profile" : d.uuid;
  r.name = d.name;
  r.cc_major = d.cc_major;
  r.cc_minor = d.cc_minor;
  r.sm_count = d.sm_count;
  r.memory_bytes = d.memory_bytes;
  r.l2_bytes = d.l2_bytes;
  r.sm_clock_mhz = d.sm_clock_mhz;
  r.memory_clock_mhz = d.memory_clock_mhz;
  r.memory_bus_bits = d.memory_bus_bits;
  // The store keeps the driver as one number: 580.159.04 -> 580159.
  if (unsigned major = 0, minor = 0; std::sscanf(d.driver_release.c_str(), "%u.%u", &major, &minor) == 2)
    r.driver_version = static_cast<int>(major * 1000 + minor);
  r.cuda_version = d.driver_version;
  r.ecc = d.ecc;
  return r;
}

}  // namespace blocktune
