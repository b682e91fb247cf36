// The 7-point stencil of stencil_app, in its own file so that the tuning spec
// (stencil7.json) compiles the very kernel the application launches.
#pragma once

constexpr float center = 0.4f, neighbour = 0.1f;

// Interior points only; each thread walks z_per_thread consecutive planes.
extern "C" __global__ void stencil7(const float* in, float* out, int nx, int ny, int nz, int z_per_thread) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  const int k_first = (blockIdx.z * blockDim.z + threadIdx.z) * z_per_thread + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  const long long sy = nx, sz = static_cast<long long>(nx) * ny;
  for (int k = k_first; k < k_first + z_per_thread && k < nz - 1; ++k) {
    const long long at = k * sz + j * sy + i;
    out[at] = center * in[at] +
              neighbour * (in[at - 1] + in[at + 1] + in[at - sy] + in[at + sy] + in[at - sz] + in[at + sz]);
  }
}
