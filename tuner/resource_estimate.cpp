#include <blocktune/resource_estimate.hpp>

#include <algorithm>
#include <cmath>

namespace blocktune {

ResourceEstimator::ResourceEstimator(const KernelDescription& kernel) {
  for (const Parameter& parameter : kernel.space.parameters()) {
    const bool defined = kernel.defines.empty() || std::ranges::find(kernel.defines, parameter.name) != kernel.defines.end();
    const bool in_entry = kernel.entry.find("{" + parameter.name + "}") != std::string::npos;
    if (defined || in_entry) compile_parameters_.push_back(parameter.name);
  }
}

std::vector<Value> ResourceEstimator::key(const Config& config) const {
  std::vector<Value> values;
  values.reserve(compile_parameters_.size());
  for (const std::string& name : compile_parameters_) values.push_back(config.at(name));
  return values;
}

void ResourceEstimator::learn(const Config& config, const ResourceUsage& usage) { known_.emplace_back(key(config), usage); }

ResourceUsage ResourceEstimator::estimate(const Config& config) const {
  if (known_.empty()) return {.registers = 32, .static_smem = 0, .stack_bytes = 0, .spill_stores = 0, .spill_loads = 0, .barriers = 1};
  const std::vector<Value> wanted = key(config);
  std::size_t nearest = wanted.size() + 1;
  double registers = 0, static_smem = 0, stack = 0, spill_stores = 0, spill_loads = 0, barriers = 0, matches = 0;
  for (const auto& [values, usage] : known_) {
    std::size_t distance = 0;
    for (std::size_t p = 0; p < values.size() && distance <= nearest; ++p) distance += values[p] != wanted[p] ? 1 : 0;
    if (distance > nearest) continue;
    if (distance < nearest) {
      nearest = distance;
      registers = static_smem = stack = spill_stores = spill_loads = barriers = matches = 0;
    }
    registers += usage.registers;
    static_smem += usage.static_smem;
    stack += usage.stack_bytes;
    spill_stores += usage.spill_stores;
    spill_loads += usage.spill_loads;
    barriers = std::max(barriers, double(usage.barriers));
    matches += 1;
  }
  const auto mean = [&](double sum) { return static_cast<int>(std::lround(sum / matches)); };
  return {.registers = mean(registers), .static_smem = mean(static_smem), .stack_bytes = mean(stack),
          .spill_stores = mean(spill_stores), .spill_loads = mean(spill_loads), .barriers = static_cast<int>(barriers)};
}

}  // namespace blocktune
