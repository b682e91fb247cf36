// The built-in kernels and their tuning descriptions.
#pragma once

#include <blocktune/detail/kernel.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

// What `blocktune tune` tunes when no kernel is named.
inline constexpr std::string_view kDefaultKernel = "stencil3d_r1";
inline constexpr std::string_view kDefaultProblem = "512x512x512";

// A test kernel for fault isolation: out = 2 * in, with a parameter `mode`
// that makes some variants write out of bounds, read misaligned, trap, spin
// forever, compute a wrong result, fail to compile or ask for too much shared
// memory. Tuning it must record each outcome and pick a good variant.
KernelDescription faults();

// The 3D star stencil of `radius` (1 to 5), FP32 or FP64, named "stencil3d_r<radius>" ("..._f64").
KernelDescription stencil3d(int radius, ElementType type = ElementType::f32);

// The microbenchmark kernels of `blocktune characterize` (microbench.cu).
std::string_view microbenchmark_source();

std::vector<std::string> builtin_kernel_names();
// A built-in kernel by name, or a tuning spec by path (a file ending in .json,
// or "spec:PATH"); also "builtin:NAME". Sets KernelDescription::origin so a
// measurement worker can load the same description.
KernelDescription load_kernel(std::string_view name_or_spec);
// Throws std::invalid_argument listing the known names.
KernelDescription builtin_kernel(std::string_view name);

}  // namespace blocktune
