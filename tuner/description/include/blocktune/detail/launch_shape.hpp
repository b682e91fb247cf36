// A launch's geometry: grid, block, dynamic shared memory and carveout.
// CUDA-free, so that resolving a configuration needs no CUDA header.
#pragma once

#include <array>

namespace blocktune {

struct LaunchShape3 {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned dynamic_smem = 0;
  int carveout = -1;  // percent, -1 = leave the driver's default
};

}  // namespace blocktune
