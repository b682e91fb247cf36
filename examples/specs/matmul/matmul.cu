// C = A * B in FP32 for row-major A (m x k), B (k x n) and C (m x n), any sizes.
//
// Each block computes a TILE_M x TILE_N tile of C, stepping through k in
// slices of TILE_K that it stages in shared memory; each thread accumulates
// WPT_M x WPT_N results in registers, strided so that neighbouring threads
// read neighbouring shared-memory words and write neighbouring elements of C.
// Tuned through defines: TILE_M, TILE_N, TILE_K, WPT_M, WPT_N.
#define THREADS_X (TILE_N / WPT_N)
#define THREADS_Y (TILE_M / WPT_M)
#define THREADS (THREADS_X * THREADS_Y)

extern "C" __global__ void __launch_bounds__(THREADS)
matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n, int k) {
  // A's slice is stored transposed, padded against bank conflicts on the store.
  __shared__ float a_tile[TILE_K][TILE_M + 1];
  __shared__ float b_tile[TILE_K][TILE_N];
  const int tx = threadIdx.x, ty = threadIdx.y, thread = ty * THREADS_X + tx;
  const int row0 = blockIdx.y * TILE_M, col0 = blockIdx.x * TILE_N;

  float acc[WPT_M][WPT_N];
#pragma unroll
  for (int i = 0; i < WPT_M; ++i)
#pragma unroll
    for (int j = 0; j < WPT_N; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += TILE_K) {
    for (int e = thread; e < TILE_M * TILE_K; e += THREADS) {
      const int i = e / TILE_K, kk = e % TILE_K;  // consecutive threads read along a row of A
      const int row = row0 + i, col = k0 + kk;
      a_tile[kk][i] = row < m && col < k ? a[(long long)row * k + col] : 0.0f;
    }
    for (int e = thread; e < TILE_K * TILE_N; e += THREADS) {
      const int kk = e / TILE_N, j = e % TILE_N;
      const int row = k0 + kk, col = col0 + j;
      b_tile[kk][j] = row < k && col < n ? b[(long long)row * n + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE_K; ++kk) {
      float a_reg[WPT_M], b_reg[WPT_N];
#pragma unroll
      for (int i = 0; i < WPT_M; ++i) a_reg[i] = a_tile[kk][ty + i * THREADS_Y];
#pragma unroll
      for (int j = 0; j < WPT_N; ++j) b_reg[j] = b_tile[kk][tx + j * THREADS_X];
#pragma unroll
      for (int i = 0; i < WPT_M; ++i)
#pragma unroll
        for (int j = 0; j < WPT_N; ++j) acc[i][j] += a_reg[i] * b_reg[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < WPT_M; ++i)
#pragma unroll
    for (int j = 0; j < WPT_N; ++j) {
      const int row = row0 + ty + i * THREADS_Y, col = col0 + tx + j * THREADS_X;
      if (row < m && col < n) c[(long long)row * n + col] = acc[i][j];
    }
}

// The reference: one thread per element of C, the textbook loop.
extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int kk = 0; kk < k; ++kk) sum += a[(long long)row * k + kk] * b[(long long)kk * n + col];
  c[(long long)row * n + col] = sum;
}
