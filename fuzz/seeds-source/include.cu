#include "unroll.cuh"
template <int TILE>
__global__ void scale(float* out, const float* in, float factor, int n) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
  for (int t = 0; t < TILE * kUnroll; ++t)
    if (i + t < n) out[i + t] = twice(in[i + t]) * factor;
}
