// A small kernel for the spec fuzzer's inputs to name: specs that get past
// the file checks reach the deeper validation.
template <int TILE>
__global__ void scale(float* out, const float* in, float factor, int n) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
  for (int t = 0; t < TILE && i + t < n; ++t) out[i + t] = in[i + t] * factor;
}

extern "C" __global__ void scale_reference(float* out, const float* in, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor;
}
