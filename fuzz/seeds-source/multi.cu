#line 7 "other.cu"
namespace ns {
template <int TILE> __device__ float load(const float* p) { return p[TILE]; }
}
template <int TILE>
__global__ void __launch_bounds__(1024) scale(float* out, const float* in, float factor, int n) {
  __shared__ float tile[64 * TILE];
  tile[threadIdx.x % 64] = ns::load<TILE>(in) * UNROLL;
  __syncthreads();
  if (threadIdx.x < n) out[threadIdx.x] = tile[(threadIdx.x + 1) % 64] * factor;
}
// caf\xc3\xa9 comment
