template <int TILE>
__global__ void scale(float* out, const float* in, float factor, int n) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
#pragma unroll UNROLL
  for (int t = 0; t < TILE; ++t)
    if (i + t < n) out[i + t] = in[i + t] * factor;
}
