// The built-in kernels and their tuning descriptions.
#pragma once

#include <blocktune/kernel.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

// What `blocktune tune` tunes when no kernel is named.
inline constexpr std::string_view kDefaultKernel = "stencil3d_r1";
inline constexpr std::string_view kDefaultProblem = "512x512x512";

// The 3D star stencil of `radius` (1 to 5), FP32 or FP64, named "stencil3d_r<radius>" ("..._f64").
KernelDescription stencil3d(int radius, ElementType type = ElementType::f32);

std::vector<std::string> builtin_kernel_names();
// Throws std::invalid_argument listing the known names.
KernelDescription builtin_kernel(std::string_view name);

}  // namespace blocktune
