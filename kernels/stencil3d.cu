// 3D star stencil of radius R over an nx x ny x nz grid (x fastest):
//   out = c[0]*in + sum_{r=1..R} c[r] * (the six neighbours at distance r)
// on interior points; points within R of a face are left untouched.
//
// The codings of seed 000 (Nasciutti and Panetta) and what came after, chosen by defines:
//   STRATEGY  how a plane is read: BASE plain global loads; CSL the read-only path
//             (__ldg, const __restrict__); COMP an xy tile with halo in shared memory.
//   ZLOOP     NONE one plane per thread; INTZ a z loop inside the thread; REG the z
//             loop with the thread's column kept in a register queue (the "pioneer"
//             2.5D scheme: one new load per plane for the z neighbours).
//   Z_CHUNK   planes per thread, so that a z loop still fills the GPU.
//   VX        contiguous points per thread in x, read with vector loads (nx % VX == 0).
//   BLOCK_X, BLOCK_Y, BLOCK_Z, REAL.
#ifndef REAL
#define REAL float
#endif
#define BASE 0
#define CSL 1
#define COMP 2
#define NONE 0
#define INTZ 1
#define REG 2

#if STRATEGY == CSL
#define INPUT const REAL* __restrict__
#define LOAD(p) __ldg(p)
#else
#define INPUT const REAL*
#define LOAD(p) (*(p))
#endif

// N contiguous values starting at p, which is aligned to N elements.
template <int N>
__device__ __forceinline__ void load_row(const REAL* p, REAL (&v)[N]) {
  if constexpr (N == 4 && sizeof(REAL) == 4) {
    const float4 t = LOAD(reinterpret_cast<const float4*>(p));
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else if constexpr (N == 2 && sizeof(REAL) == 4) {
    const float2 t = LOAD(reinterpret_cast<const float2*>(p));
    v[0] = t.x, v[1] = t.y;
  } else if constexpr (N == 2 && sizeof(REAL) == 8) {
    const double2 t = LOAD(reinterpret_cast<const double2*>(p));
    v[0] = t.x, v[1] = t.y;
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = LOAD(p + i);
  }
}

// N contiguous values to p, which is aligned to N elements.
template <int N>
__device__ __forceinline__ void store_row(REAL* p, const REAL (&v)[N]) {
  if constexpr (N == 4 && sizeof(REAL) == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else if constexpr (N == 2 && sizeof(REAL) == 4) {
    *reinterpret_cast<float2*>(p) = make_float2(v[0], v[1]);
  } else if constexpr (N == 2 && sizeof(REAL) == 8) {
    *reinterpret_cast<double2*>(p) = make_double2(v[0], v[1]);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) p[i] = v[i];
  }
}

template <int R>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y * BLOCK_Z)
stencil3d(INPUT in, REAL* out, const REAL* coefficients, int nx, int ny, int nz) {
  REAL c[R + 1];
#pragma unroll
  for (int r = 0; r <= R; ++r) c[r] = coefficients[r];

  const int x0 = (blockIdx.x * BLOCK_X + threadIdx.x) * VX;  // this thread's first point in x
  const int j = blockIdx.y * BLOCK_Y + threadIdx.y + R;
  const int k_first = (blockIdx.z * BLOCK_Z + threadIdx.z) * Z_CHUNK + R;
  const bool row_inside = j < ny - R && x0 < nx;
  const long long sy = nx;
  const long long sz = (long long)nx * ny;

#if STRATEGY == COMP
  constexpr int TW = BLOCK_X * VX + 2 * R;  // tile width, halo included
  constexpr int TH = BLOCK_Y + 2 * R;
  __shared__ REAL tile[BLOCK_Z][TH][TW];
  const int tile_x0 = blockIdx.x * BLOCK_X * VX - R;  // grid x of tile column 0
  const int tile_y0 = blockIdx.y * BLOCK_Y;           // grid y of tile row 0
#endif

#if ZLOOP == REG
  // q[R + d][v]: the value at plane k + d of this thread's column v. The
  // leading plane of the next step is loaded one step ahead, so two loads
  // are in flight while a plane is computed.
  REAL q[2 * R + 1][VX];
  if (row_inside && k_first < nz - R) {
#pragma unroll
    for (int d = -R; d <= R; ++d) load_row<VX>(in + (k_first + d) * sz + j * sy + x0, q[R + d]);
  }
#endif

  // Every thread runs every iteration: COMP's barriers need the whole block.
#pragma unroll 1
  for (int z = 0; z < Z_CHUNK; ++z) {
    const int k = k_first + z;
    const bool active = row_inside && k < nz - R;
    const long long at = k * sz + j * sy + x0;

#if ZLOOP == REG
    REAL next[VX];
    if (active && k + 1 < nz - R) load_row<VX>(in + at + (R + 1) * sz, next);
#endif

#if STRATEGY == COMP
    __syncthreads();  // the previous plane's tile is no longer read
    const REAL* plane = in + min(k, nz - 1) * sz;
    for (int ty = threadIdx.y; ty < TH; ty += BLOCK_Y) {
      const REAL* source_row = plane + (long long)min(tile_y0 + ty, ny - 1) * sy;
      for (int tx = threadIdx.x; tx < TW; tx += BLOCK_X) tile[threadIdx.z][ty][tx] = LOAD(source_row + min(max(tile_x0 + tx, 0), nx - 1));
    }
    __syncthreads();
#else
    // This plane's row around the thread's points, read as aligned vectors:
    // HALO vectors either side cover the R neighbours in x.
    constexpr int HALO = (R + VX - 1) / VX;
    REAL row[(2 * HALO + 1) * VX];
    if (active) {
#pragma unroll
      for (int h = -HALO; h <= HALO; ++h) {
        REAL(&part)[VX] = *reinterpret_cast<REAL(*)[VX]>(&row[(HALO + h) * VX]);
        const int start = x0 + h * VX;
        if (start >= 0 && start < nx) {
          load_row<VX>(in + at + h * VX, part);
        } else {
#pragma unroll
          for (int v = 0; v < VX; ++v) part[v] = REAL(0);  // beyond a face: never used by interior points
        }
      }
    }
#endif

    if (active) {
#if ZLOOP != REG
      REAL below[R][VX], above[R][VX];  // planes k - r and k + r
#pragma unroll
      for (int r = 1; r <= R; ++r) {
        load_row<VX>(in + at - r * sz, below[r - 1]);
        load_row<VX>(in + at + r * sz, above[r - 1]);
      }
#endif
#if STRATEGY != COMP
      REAL south[R][VX], north[R][VX];  // rows j - r and j + r
#pragma unroll
      for (int r = 1; r <= R; ++r) {
        load_row<VX>(in + at - r * sy, south[r - 1]);
        load_row<VX>(in + at + r * sy, north[r - 1]);
      }
#endif
      REAL result[VX];
#pragma unroll
      for (int v = 0; v < VX; ++v) {
#if STRATEGY == COMP
        const REAL* t = &tile[threadIdx.z][threadIdx.y + R][threadIdx.x * VX + v + R];
        REAL sum = c[0] * t[0];
#else
        REAL sum = c[0] * row[HALO * VX + v];
#endif
#pragma unroll
        for (int r = 1; r <= R; ++r) {
#if STRATEGY == COMP
          const REAL xy = t[-r] + t[r] + t[-r * TW] + t[r * TW];
#else
          const REAL xy = row[HALO * VX + v - r] + row[HALO * VX + v + r] + south[r - 1][v] + north[r - 1][v];
#endif
#if ZLOOP == REG
          const REAL zz = q[R - r][v] + q[R + r][v];
#else
          const REAL zz = below[r - 1][v] + above[r - 1][v];
#endif
          sum += c[r] * (xy + zz);
        }
        result[v] = sum;
      }
      // One vector store where all of the thread's points are interior.
      if (x0 >= R && x0 + VX <= nx - R) {
        store_row<VX>(out + at, result);
      } else {
#pragma unroll
        for (int v = 0; v < VX; ++v)
          if (x0 + v >= R && x0 + v < nx - R) out[at + v] = result[v];
      }
    }

#if ZLOOP == REG
#pragma unroll
    for (int d = 0; d < 2 * R; ++d)
#pragma unroll
      for (int v = 0; v < VX; ++v) q[d][v] = q[d + 1][v];
#pragma unroll
    for (int v = 0; v < VX; ++v) q[2 * R][v] = next[v];
#endif
  }
}
