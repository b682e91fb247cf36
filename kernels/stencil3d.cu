// 3D star stencil of radius R over an nx x ny x nz grid (x fastest):
//   out = c[0]*in + sum_{r=1..R} c[r] * (the six neighbours at distance r)
// on interior points; points within R of a face are left untouched.
// Tuned through defines: BLOCK_X, BLOCK_Y, BLOCK_Z, STRATEGY, Z_PER_THREAD, REAL.
#ifndef REAL
#define REAL float
#endif
#define BASE 0  // one global load per neighbour, plain pointers (seed 000's BASE)
#define CSL 1   // the same through the read-only data path (__ldg, const __restrict__)

#if STRATEGY == CSL
#define INPUT const REAL* __restrict__
#define LOAD(p) __ldg(p)
#else
#define INPUT const REAL*
#define LOAD(p) (*(p))
#endif

template <int R>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y * BLOCK_Z)
stencil3d(INPUT in, REAL* out, const REAL* coefficients, int nx, int ny, int nz) {
  const int i = blockIdx.x * BLOCK_X + threadIdx.x + R;
  const int j = blockIdx.y * BLOCK_Y + threadIdx.y + R;
  // Each thread walks Z_PER_THREAD consecutive planes (the z loop of INTZ).
  const int k_first = (blockIdx.z * BLOCK_Z + threadIdx.z) * Z_PER_THREAD + R;
  if (i >= nx - R || j >= ny - R) return;

  REAL c[R + 1];
#pragma unroll
  for (int r = 0; r <= R; ++r) c[r] = coefficients[r];

  const long long sy = nx;
  const long long sz = (long long)nx * ny;
#pragma unroll 1
  for (int z = 0; z < Z_PER_THREAD; ++z) {
    const int k = k_first + z;
    if (k >= nz - R) return;
    const long long at = k * sz + j * sy + i;
    REAL sum = c[0] * LOAD(in + at);
#pragma unroll
    for (int r = 1; r <= R; ++r) {
      sum += c[r] * (LOAD(in + at - r) + LOAD(in + at + r) + LOAD(in + at - r * sy) + LOAD(in + at + r * sy) +
                     LOAD(in + at - r * sz) + LOAD(in + at + r * sz));
    }
    out[at] = sum;
  }
}
