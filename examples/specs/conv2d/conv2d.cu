// 2D convolution of a width x height FP32 image with a fixed (2 RADIUS + 1)^2
// filter, zero outside the image:
//   out[y][x] = sum over i, j of filter[i][j] * in[y + i - RADIUS][x + j - RADIUS]
// RADIUS comes from the spec's options.
//
// Each block computes TILE_X x (TILE_Y * PER_THREAD) outputs, each thread
// PER_THREAD of them, TILE_Y rows apart. With SHARED = 1 the block first
// stages its input tile and halo in shared memory; with SHARED = 0 every
// thread reads its inputs from global memory (through L1). The filter is read
// from constant memory (FILTER = CONSTANT: one broadcast per warp) or from
// global memory (FILTER = GLOBAL).
// Tuned through defines: TILE_X, TILE_Y, PER_THREAD, SHARED, FILTER.
#define CONSTANT 0
#define GLOBAL 1
#define WIDTH (2 * RADIUS + 1)
#define OUT_Y (TILE_Y * PER_THREAD)

struct Filter {
  float w[WIDTH * WIDTH];
};

// Deterministic, not symmetric (a flipped filter gives another image), sums to 1.
__host__ __device__ constexpr Filter make_filter() {
  Filter f{};
  float total = 0.0f;
  for (int i = 0; i < WIDTH * WIDTH; ++i) {
    f.w[i] = 1.0f + (i * 7 % 11);
    total += f.w[i];
  }
  for (int i = 0; i < WIDTH * WIDTH; ++i) f.w[i] /= total;
  return f;
}

// The same values in both memories.
__constant__ Filter constant_filter = make_filter();
__device__ Filter global_filter = make_filter();

#if FILTER == CONSTANT
#define WEIGHT(i) constant_filter.w[i]
#else
#define WEIGHT(i) global_filter.w[i]
#endif

extern "C" __global__ void __launch_bounds__(TILE_X * TILE_Y)
conv2d(const float* __restrict__ in, float* __restrict__ out, int width, int height) {
  const int x = blockIdx.x * TILE_X + threadIdx.x;
#if SHARED
  __shared__ float tile[OUT_Y + 2 * RADIUS][TILE_X + 2 * RADIUS];
  const int left = blockIdx.x * TILE_X - RADIUS, top = blockIdx.y * OUT_Y - RADIUS;
  for (int ty = threadIdx.y; ty < OUT_Y + 2 * RADIUS; ty += TILE_Y)
    for (int tx = threadIdx.x; tx < TILE_X + 2 * RADIUS; tx += TILE_X) {
      const int gx = left + tx, gy = top + ty;
      tile[ty][tx] = gx >= 0 && gx < width && gy >= 0 && gy < height ? in[(long long)gy * width + gx] : 0.0f;
    }
  __syncthreads();
#endif
#pragma unroll
  for (int p = 0; p < PER_THREAD; ++p) {
    const int local_y = threadIdx.y + p * TILE_Y, y = blockIdx.y * OUT_Y + local_y;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < WIDTH; ++i)
#pragma unroll
      for (int j = 0; j < WIDTH; ++j) {
#if SHARED
        const float value = tile[local_y + i][threadIdx.x + j];
#else
        const int gx = x + j - RADIUS, gy = y + i - RADIUS;
        const float value = gx >= 0 && gx < width && gy >= 0 && gy < height ? in[(long long)gy * width + gx] : 0.0f;
#endif
        sum += WEIGHT(i * WIDTH + j) * value;
      }
    if (x < width && y < height) out[(long long)y * width + x] = sum;
  }
}

// The reference: one thread per output, the filter from global memory.
extern "C" __global__ void conv2d_reference(const float* in, float* out, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int i = 0; i < WIDTH; ++i)
    for (int j = 0; j < WIDTH; ++j) {
      const int gx = x + j - RADIUS, gy = y + i - RADIUS;
      if (gx >= 0 && gx < width && gy >= 0 && gy < height) sum += global_filter.w[i * WIDTH + j] * in[(long long)gy * width + gx];
    }
  out[(long long)y * width + x] = sum;
}
