// Resolving a configuration: the kernel description's expressions evaluated
// for one device and problem, giving the compile request and launch geometry.
// CUDA-free (the description layer).
#pragma once

#include <blocktune/detail/compile_request.hpp>
#include <blocktune/detail/device.hpp>
#include <blocktune/detail/kernel.hpp>
#include <blocktune/detail/launch_shape.hpp>
#include <blocktune/runtime.hpp>

#include <cstdint>
#include <string>

namespace blocktune {

// Variables an expression of a kernel description may use besides its
// parameters: the problem dims, the problem's time_steps and the device's limits.
Lookup environment(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem);

// Replaces each "{param}" in `text` with the configuration's value: "stencil<{radius}>" -> "stencil<4>".
std::string substitute(std::string text, const Config& config);

// Bytes of GPU memory a measurement needs: every buffer, plus a second copy
// of each output (its initial contents) and the expected outputs. A double:
// problem sizes are user input and the product may exceed 2^63.
double measurement_bytes(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem);
// Throws std::invalid_argument, naming the sizes, when measurement_bytes exceeds the device's memory.
void require_memory(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem);

// A configuration made concrete for one device and problem.
struct ResolvedConfig {
  CompileRequest request;
  LaunchShape3 shape;
  std::int64_t steps_per_launch = 1;  // time steps one launch advances
};
// Throws ExpressionError or std::invalid_argument with a message naming the kernel and field.
ResolvedConfig resolve(const KernelDescription& kernel, const Config& config, const DeviceInfo& device,
                       const ProblemSize& problem);

}  // namespace blocktune
