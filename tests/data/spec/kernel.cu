// A kernel with every kind of argument, for the spec tests.
#include "helpers.cuh"

template <int TILE>
__global__ void scale(float* out, const float* in, const double* weights, const float* table, const int* noise,
                      float factor, long long n) {
  const long long first = ((long long)blockIdx.x * BLOCK_X + threadIdx.x) * TILE;
  for (int t = 0; t < TILE; ++t) {
    const long long i = first + t;
    if (i >= n) return;
    const float mode_weight = MODE == 'A' ? (float)weights[0] : (float)weights[1];
    out[i] = twice(in[i]) * factor * mode_weight + table[i % 2] + 0.0f * noise[i];
  }
}
