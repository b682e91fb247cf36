#include <blocktune/prediction.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace blocktune {
namespace {

// Hopper (H100 SXM) figures published by microbenchmark studies: Luo et al.,
// "Benchmarking and Dissecting the Nvidia Hopper GPU Architecture" (IPDPS
// 2024) for the latencies; L2 bandwidth about 2.3x the DRAM copy bandwidth
// (bench/results/characterize/README.md). Other architectures scale from the
// same ratios until they are characterised.
constexpr double kL2OverDram = 2.3;
constexpr double kDramEfficiency = 0.9;  // copy bandwidth / the bus's theoretical bandwidth

double evaluate_double(const KernelDescription& kernel, const std::string& text, const Lookup& lookup, std::string_view field) {
  try {
    return static_cast<double>(Expression::parse(text).evaluate_int(lookup));
  } catch (const ExpressionError& error) {
    throw ExpressionError(fmt::format("kernel {}, {}: {}", kernel.name, field, error.what()));
  }
}

}  // namespace

DeviceParameters model_parameters(const DeviceInfo& device, const std::map<std::string, double, std::less<>>& metrics) {
  DeviceParameters p;
  p.sm_count = device.sm_count;
  p.sm_clock_hz = device.sm_clock_mhz * 1e6;
  p.max_warps_per_sm = device.max_threads_per_sm / std::max(device.warp_size, 1);
  p.dram_bandwidth = kDramEfficiency * device.memory_clock_mhz * 1e6 * 2 * device.memory_bus_bits / 8;
  p.l2_bandwidth = kL2OverDram * p.dram_bandwidth;
  p.l1_bytes = device.shared_per_sm + 28 * 1024;  // the unified L1 + shared array: 256 KiB on cc 9.0
  if (const auto copy = metrics.find(kCopyBandwidth.name); copy != metrics.end() && copy->second > 0 && !metrics.contains(kL2Bandwidth.name))
    p.l2_bandwidth = kL2OverDram * copy->second * 1e9;
  return with_metrics(p, metrics);
}

DeviceParameters model_parameters(const DeviceInfo& device, const std::vector<DeviceMetric>& metrics) {
  std::map<std::string, double, std::less<>> values;
  for (const DeviceMetric& m : metrics) values[m.name] = m.value;
  return model_parameters(device, values);
}

bool counts_work(const KernelDescription& kernel) {
  return kernel.work || !kernel.bytes_moved.empty() || !kernel.flops.empty() ||
         std::ranges::any_of(kWorkFields, [&](const WorkField& field) { return !(kernel.work_expressions.*field.expression).empty(); });
}

KernelWork kernel_work(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem, const Config& config) {
  if (kernel.work)
    if (auto counted = kernel.work(problem, config)) return *counted;
  // Without a count of its own: the effective bytes through every level and
  // the flops as FMAs, then whatever the spec's work expressions count.
  const Lookup lookup = config.lookup(environment(kernel, device, problem));
  const auto value = [&](const std::string& text, std::string_view field) { return evaluate_double(kernel, text, lookup, field); };
  KernelWork w;
  const double bytes = kernel.bytes_moved.empty() ? 0 : value(kernel.bytes_moved, "bytes_moved");
  const double flops = kernel.flops.empty() ? 0 : value(kernel.flops, "flops");
  w.dram_bytes = w.l2_bytes = bytes;
  w.l1_wavefronts = bytes / 128;
  w.warp_instructions = flops / 2 / 32;
  const WorkExpressions& counted = kernel.work_expressions;
  for (const WorkField& field : kWorkFields)
    if (const std::string& text = counted.*field.expression; !text.empty()) w.*field.count = value(text, fmt::format("work.{}", field.name));
  if (counted.l2_bytes.empty() && !counted.dram_bytes.empty()) w.l2_bytes = w.dram_bytes;
  return w;
}

Prediction predict_launch(const KernelDescription& kernel, const DeviceParameters& parameters, const KernelWork& work,
                          const LaunchResources& launch, std::int64_t steps_per_launch) {
  const Prediction analytic = predict(parameters, work, launch);
  // Fused launches were too few to learn from (bench/results/model/README.md, "A learned correction").
  return kernel.residual && steps_per_launch == 1 ? corrected(*kernel.residual, parameters, work, analytic, launch) : analytic;
}

LaunchResources launch_resources(const DeviceInfo& device, const PlanEntry& entry, const DeviceParameters& parameters) {
  const auto& shape = entry.resolved.shape;
  return {
      .blocks = double(shape.grid[0]) * shape.grid[1] * shape.grid[2],
      .threads_per_block = static_cast<int>(shape.block[0] * shape.block[1] * shape.block[2]),
      .blocks_per_sm = entry.occupancy.blocks_per_sm,
      .spill_bytes = entry.variant.usage.spill_stores + entry.variant.usage.spill_loads,
      .l1_cache_bytes = l1_cache_bytes(parameters, device.shared_per_sm, shape.carveout,
                                       double(entry.occupancy.blocks_per_sm) *
                                           (entry.variant.usage.static_smem + shape.dynamic_smem + device.reserved_shared_per_block)),
  };
}

std::optional<Prediction> predict_entry(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem,
                                        const PlanEntry& entry, const DeviceParameters& parameters) {
  if (!entry.launchable()) return std::nullopt;
  return predict_launch(kernel, parameters, kernel_work(kernel, device, problem, entry.config), launch_resources(device, entry, parameters),
                        entry.resolved.steps_per_launch);
}

int resident_warps(const DeviceInfo& device, const PlanEntry& entry, const DeviceParameters& parameters) {
  return entry.launchable() ? resident_warps(parameters, launch_resources(device, entry, parameters)) : 0;
}

std::vector<RankedEntry> rank_by_model(const KernelDescription& kernel, const Plan& plan, const DeviceParameters& parameters) {
  std::vector<RankedEntry> ranked;
  for (const PlanEntry& entry : plan.entries)
    if (auto prediction = predict_entry(kernel, plan.device, plan.problem, entry, parameters)) ranked.push_back({&entry, *prediction});
  std::ranges::stable_sort(ranked, [](const RankedEntry& a, const RankedEntry& b) { return a.prediction.seconds < b.prediction.seconds; });
  return ranked;
}

}  // namespace blocktune
