// The execution-time model (blocktune/detail/model.hpp) applied to a plan: device
// parameters from the characterisation or the architecture's published
// figures, work from the kernel, resources from the compiled variant.
#pragma once

#include <blocktune/detail/model.hpp>
#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace blocktune {

// The device's parameters: its own facts (SMs, clock), the metrics
// `blocktune characterize` measured where given, published figures of its
// architecture for the rest.
DeviceParameters model_parameters(const DeviceInfo& device, const std::map<std::string, double, std::less<>>& metrics = {});
// The same from the metrics a store keeps for the device.
DeviceParameters model_parameters(const DeviceInfo& device, const std::vector<DeviceMetric>& metrics);

// Whether the kernel counts any work (a work function or expressions,
// bytes_moved, flops): without counts the model ranks only occupancy, waves
// and launch overhead.
bool counts_work(const KernelDescription& kernel);

// The kernel's work for one configuration: its own count where it has one,
// else bytes_moved and flops.
KernelWork kernel_work(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem, const Config& config);

// The model's prediction for one launch of `kernel`, with the kernel's learned
// correction (KernelDescription::residual) where it has one and the launch
// advances one time step: the correction learned such launches only.
Prediction predict_launch(const KernelDescription& kernel, const DeviceParameters& parameters, const KernelWork& work,
                          const LaunchResources& launch, std::int64_t steps_per_launch);

// What the model knows of an entry's launch: its grid, block, the blocks an SM
// holds at once and the L1 they leave.
LaunchResources launch_resources(const DeviceInfo& device, const PlanEntry& entry, const DeviceParameters& parameters);

// The warps a launchable entry keeps resident on an SM (resident_warps of its
// launch_resources); 0 for the others.
int resident_warps(const DeviceInfo& device, const PlanEntry& entry, const DeviceParameters& parameters);

// The prediction for a launchable entry; nullopt for the others. The entry's
// variant may hold estimated resources (ResourceEstimator) before it is compiled.
std::optional<Prediction> predict_entry(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem,
                                        const PlanEntry& entry, const DeviceParameters& parameters);

struct RankedEntry {
  const PlanEntry* entry = nullptr;
  Prediction prediction;
};
// The launchable entries, predicted fastest first; ties keep enumeration order.
std::vector<RankedEntry> rank_by_model(const KernelDescription& kernel, const Plan& plan, const DeviceParameters& parameters);

}  // namespace blocktune
