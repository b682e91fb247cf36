// Internal to tuner/: one kernel's buffers on one GPU for one problem, shared
// by in-process measurement and the measurement worker.
#pragma once

#include <blocktune/tuner.hpp>

#include <memory>
#include <string>

namespace blocktune {

// Checks every configuration against the expected outputs, then times it.
class MeasurementSession {
 public:
  // `default_entry` gives the expected outputs when the kernel has no other reference.
  MeasurementSession(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const VariantCompiler& compiler,
                     const PlanEntry* default_entry);
  ~MeasurementSession();
  const GpuContext& context() const;
  TrialRecord measure(const PlanEntry& entry, const TimingOptions& timing);
  // Set after a fault that leaves the GPU context unusable.
  const std::string& lost() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// The trial as far as the plan knows it: resources, occupancy, static outcome.
TrialRecord static_trial(const PlanEntry& entry);

// Bytes for the copy-bandwidth test: large enough to leave the L2 behind, small enough for any GPU.
std::size_t copy_test_bytes(const DeviceInfo& device);

}  // namespace blocktune
