// The sum of the squares of n FP32 values (the squared norm), added to
// out[0], which starts at zero. Squares keep every term positive, so the
// rounding of different summation orders stays near FP32's precision.
//
// A grid-stride loop in which each thread loads ITEMS_PER_THREAD values per
// step (independent loads in flight), then a block reduction of the threads'
// sums, by warp shuffles (SHUFFLE) or a shared-memory tree (TREE), and one
// atomic add per block. The number of blocks is a launch setting.
// Tuned through defines: BLOCK_SIZE (a power of two, 32 to 1024), ITEMS_PER_THREAD, REDUCE.
#define SHUFFLE 0
#define TREE 1

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
sum_of_squares(const float* __restrict__ in, float* out, long long n) {
  const long long step = (long long)gridDim.x * BLOCK_SIZE * ITEMS_PER_THREAD;
  float sum = 0.0f;
  for (long long base = (long long)blockIdx.x * BLOCK_SIZE * ITEMS_PER_THREAD + threadIdx.x; base < n; base += step) {
    float values[ITEMS_PER_THREAD];
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      const long long at = base + (long long)i * BLOCK_SIZE;
      values[i] = at < n ? in[at] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) sum += values[i] * values[i];
  }
#if REDUCE == SHUFFLE
  __shared__ float warp_sums[BLOCK_SIZE / 32];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < BLOCK_SIZE / 32 ? warp_sums[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x == 0) atomicAdd(out, sum);
  }
#else
  __shared__ float partial[BLOCK_SIZE];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = BLOCK_SIZE / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
#endif
}

// The reference: one block of 1024 threads summing in double precision.
extern "C" __global__ void __launch_bounds__(1024) sum_of_squares_reference(const float* in, float* out, long long n) {
  __shared__ double partial[1024];
  double sum = 0.0;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) sum += (double)in[i] * in[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = (float)partial[0];
}
