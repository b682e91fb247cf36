// What one launch of the 3D stencil (stencil3d.cu) moves and executes, per
// configuration: the counts the execution-time model needs. Kept apart from
// the kernel source so it can be read against it; CUDA-free.
#pragma once

#include <blocktune/detail/model.hpp>
#include <blocktune/detail/space.hpp>

#include <array>
#include <cstdint>

namespace blocktune {

// `config` names block_x, block_y, block_z, strategy, zloop, z_chunk, vx and
// py (1 if absent, as in recordings made before it existed);
// `element_bytes` is 4 (FP32) or 8 (FP64).
KernelWork stencil3d_work(int radius, int element_bytes, const std::array<std::int64_t, 3>& problem, const Config& config);

}  // namespace blocktune
