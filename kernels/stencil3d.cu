// 3D star stencil of radius R over an nx x ny x nz grid (x fastest):
//   out = c[0]*in + sum_{r=1..R} c[r] * (the six neighbours at distance r)
// on interior points; points within R of a face are left untouched.
//
// The codings of seed 000 (Nasciutti and Panetta) and what came after, chosen by defines:
//   STRATEGY  how a plane is read: BASE plain global loads; CSL the read-only path
//             (__ldg, const __restrict__); COMP an xy tile with halo in shared memory;
//             STREAM temporal blocking (seed 001), FUSED_STEPS time steps per pass, see below;
//             RING COMP's tile with REG's queue, their loads started RING_DEPTH planes
//             ahead into shared memory (the 2.5D scheme with a deep prefetch), see below;
//             PLANE STREAM's temporal blocking with every level's plane in shared memory.
//   ZLOOP     NONE one plane per thread; INTZ a z loop inside the thread; REG the z
//             loop with the thread's column kept in a register queue (the "pioneer"
//             2.5D scheme: one new load per plane for the z neighbours).
//   Z_CHUNK   planes per thread, so that a z loop still fills the GPU.
//   VX        contiguous points per thread in x, read with vector loads (nx % VX == 0).
//   FUSED_STEPS  time steps per pass (STREAM and PLANE; 1 elsewhere).
//   PY        rows per thread, which share their y neighbours.
//   BLOCK_X, BLOCK_Y, BLOCK_Z, REAL.
#ifndef REAL
#define REAL float
#endif
#define BASE 0
#define CSL 1
#define COMP 2
#define STREAM 3
#define RING 4
#define PLANE 5
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

// The star at a thread's VX points of its row i, then their store where they
// are interior: x neighbours from `row` (Halo vectors either side of the
// points), y neighbours from `column` (the thread's Rows rows with R more above
// and below), z neighbours as zz[r - 1], the sum of the planes r below and above.
template <int R, int Halo, int Rows>
__device__ __forceinline__ void finish_points(const REAL (&c)[R + 1], const REAL (&row)[(2 * Halo + 1) * VX],
                                              const REAL (&column)[Rows + 2 * R][VX], int i, const REAL (&zz)[R][VX],
                                              REAL* out, long long at, int x0, int nx) {
  REAL result[VX];
#pragma unroll
  for (int v = 0; v < VX; ++v) {
    REAL sum = c[0] * row[Halo * VX + v];
#pragma unroll
    for (int r = 1; r <= R; ++r) {
      const REAL xy = row[Halo * VX + v - r] + row[Halo * VX + v + r] + column[R + i - r][v] + column[R + i + r][v];
      sum += c[r] * (xy + zz[r - 1][v]);
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

#if STRATEGY == COMP || STRATEGY == RING || STRATEGY == STREAM || STRATEGY == PLANE
// `N` elements (N * sizeof(REAL) is 4, 8 or 16 bytes) from global to shared memory
// without holding registers (cp.async, sm_80 on), or zeros where `inside` is false;
// wait_copies() waits for the thread's copies.
template <int N>
__device__ __forceinline__ void copy_async(REAL* shared, const REAL* global, bool inside) {
#if __CUDA_ARCH__ >= 800
  constexpr int bytes = N * sizeof(REAL);
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  if constexpr (bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(global), "r"(inside ? 16 : 0) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(to), "l"(global), "n"(bytes), "r"(inside ? bytes : 0) : "memory");
#else
#pragma unroll
  for (int i = 0; i < N; ++i) shared[i] = inside ? global[i] : REAL(0);
#endif
}

__device__ __forceinline__ void wait_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// Closes the thread's current group of copies; wait_copies_but<N>() waits until
// at most its N most recent groups are still in flight.
__device__ __forceinline__ void commit_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void wait_copies_but() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

#endif

#if STRATEGY == STREAM
// STREAM: temporal blocking with redundant halo work (seed 001), as 2.5D streaming
// along z (the AN5D / EBISU scheme). A block owns an xy tile of 32 * VX by
// BLOCK_Y * PY points (a warp per row of threads, PY rows per thread) and walks
// its z chunk plane by plane. Step level l = 1..FUSED_STEPS computes one plane
// from level l - 1, R planes behind it: the thread's own columns of level l - 1
// (their last 2R + 1 planes) are in registers, x neighbours come from the next
// lanes by shuffles, and y neighbours beyond the thread's rows from level l - 1's
// centre plane in shared memory. Each level loses R valid points at the tile's
// edge, so tiles overlap by FUSED_STEPS * R and only the inner part is written.
// Points within R of a face keep their value at every level, exactly as in
// FUSED_STEPS separate launches. The input planes are copied with cp.async
// into a ring of shared-memory slots DEPTH planes ahead, each thread its
// own points: one 8-16 KB plane per barrier left too few bytes in flight to
// keep DRAM busy (about 1.1 TB/s of reads at 3 fused steps on an H200,
// bench/results/time-steps/), and the slots hold them without registers.
// DEPTH puts about 32 KB of a block's input in flight (stencil3d.cpp's shared
// memory uses the same).
template <int R>
__global__ void __launch_bounds__(32 * BLOCK_Y)
stencil3d(const REAL* __restrict__ in, REAL* out, const REAL* coefficients, int nx, int ny, int nz) {
  static_assert(BLOCK_X == 32, "a warp spans the tile's width");
  constexpr int K = FUSED_STEPS;
  constexpr int HALO = K * R;                     // tile overlap on each side
  constexpr int TW = 32 * VX, TH = BLOCK_Y * PY;  // tile, in points
  // Columns before the first written one beyond the R boundary columns, rounded up
  // to a vector so that tiles start aligned; written columns per tile, a multiple
  // of VX for the same reason; written rows. stencil3d.cpp's grid uses the same.
  constexpr int LEAD = (HALO - R + VX - 1) / VX * VX;
  constexpr int OW = (TW - HALO - R - LEAD) / VX * VX;
  constexpr int OH = TH - 2 * HALO;
  static_assert(OW > 0 && OH > 0, "the tile is too small for its halo");

  constexpr int FIT = 32768 / int(TH * TW * sizeof(REAL));
  constexpr int DEPTH = FIT < 2 ? 2 : FIT > 8 ? 8 : FIT;
  constexpr int SLOTS = DEPTH + 1;
  constexpr int PIECE = VX * sizeof(REAL) <= 16 ? VX : 16 / sizeof(REAL);  // elements per copy of a row vector

  extern __shared__ __align__(16) unsigned char shared_bytes[];
  // plane[l][b]: level l's centre plane, double-buffered so that one barrier per plane suffices.
  auto plane = reinterpret_cast<REAL(*)[2][TH][TW]>(shared_bytes);
  // fronts[s]: an input plane on its way, the thread's own points only (no barrier guards them).
  auto fronts = reinterpret_cast<REAL(*)[TH][TW]>(shared_bytes + sizeof(REAL) * K * 2 * TH * TW);

  REAL c[R + 1];
#pragma unroll
  for (int r = 0; r <= R; ++r) c[r] = coefficients[r];

  const int tx = threadIdx.x * VX, ty = threadIdx.y * PY;  // tile coordinates of the thread's first point
  const int x0 = blockIdx.x * OW - LEAD + tx;              // a multiple of VX
  const int y0 = blockIdx.y * OH - (HALO - R) + ty;
  const bool x_in_grid = x0 >= 0 && x0 < nx;  // all VX points or none: nx % VX == 0
  const long long sy = nx;
  const long long sz = (long long)nx * ny;
  const int k_begin = blockIdx.z * Z_CHUNK + R;  // the planes this block writes
  const int k_end = min(k_begin + Z_CHUNK, nz - R);
  const int p_begin = k_begin - HALO, p_end = k_end + HALO;

  // What does not change along the walk is worked out once (in one variant's
  // SASS this halved the compares). Bit i: the thread's row i is in
  // the grid (loaded), its points are updated (not on a face or the tile's
  // edge); bit v: its point v is.
  unsigned rows_loaded = 0, rows_updated = 0, points_updated = 0;
#pragma unroll
  for (int i = 0; i < PY; ++i) {
    const int y = y0 + i;
    if (x_in_grid && y >= 0 && y < ny) rows_loaded |= 1u << i;
    if (y >= R && y < ny - R && ty + i >= R && ty + i + R < TH) rows_updated |= 1u << i;
  }
#pragma unroll
  for (int v = 0; v < VX; ++v)
    if (x0 + v >= R && x0 + v < nx - R && tx + v >= R && tx + v + R < TW) points_updated |= 1u << v;
  const long long first_point = y0 * sy + x0;  // in plane 0

  // The thread's points of input plane p into slot `slot`, zeros beyond the grid;
  // one group per plane, empty past the end, so that the groups count planes.
  const auto request = [&](int p, int slot) {
    if (p < p_end) {
      const bool plane_inside = p >= 0 && p < nz;
#pragma unroll
      for (int i = 0; i < PY; ++i) {
        const bool inside = plane_inside && (rows_loaded >> i & 1);
        const REAL* from = inside ? in + p * sz + first_point + i * sy : in;
#pragma unroll
        for (int e = 0; e < VX; e += PIECE) copy_async<PIECE>(&fronts[slot][ty + i][tx + e], inside ? from + e : in, inside);
      }
    }
    commit_copies();
  };
#pragma unroll
  for (int d = 0; d < DEPTH; ++d) request(p_begin + d, d);

  // ring[l][s][i]: level l's last 2R + 1 planes of the thread's row i, rotating:
  // at the n-th plane of the walk, once each level has taken its new plane,
  // plane d (0 the oldest, 2R the newest) is in slot (n + 1 + d) % PERIOD, and
  // the newest replaced the oldest in slot n % PERIOD. The walk is unrolled
  // PERIOD times, so that slots are known at compile time and no plane moves
  // between registers (the moves were a fifth of a fused step's instructions).
  constexpr int PERIOD = 2 * R + 1;
  REAL ring[K][PERIOD][PY][VX];
#pragma unroll
  for (int l = 0; l < K; ++l)
#pragma unroll
    for (int d = 0; d < PERIOD; ++d)
#pragma unroll
      for (int i = 0; i < PY; ++i)
#pragma unroll
        for (int v = 0; v < VX; ++v) ring[l][d][i][v] = REAL(0);

  // The bounds are the same for the whole block: every thread reaches every barrier.
  int slot = 0;
#pragma unroll 1
  for (int n0 = 0; n0 < p_end - p_begin; n0 += PERIOD) {
#pragma unroll
    for (int phase = 0; phase < PERIOD; ++phase) {
      const int p = p_begin + n0 + phase;
      if (p >= p_end) break;
      const auto slot_of = [phase](int d) { return (phase + 1 + d) % PERIOD; };  // plane d's slot
      // Plane p has arrived (zeros beyond a face: never used by interior points);
      // the slot it replaces was read by this thread only, an iteration ago.
      wait_copies_but<DEPTH - 1>();
#pragma unroll
      for (int i = 0; i < PY; ++i) load_row<VX>(&fronts[slot][ty + i][tx], ring[0][phase][i]);
      request(p + DEPTH, slot == 0 ? SLOTS - 1 : slot - 1);
      slot = slot + 1 == SLOTS ? 0 : slot + 1;

      // Each level's centre rows that other threads read (the first and last R).
      // Levels >= 1 take their new plane when they are computed below; their
      // centre is already in slot slot_of(R) (their plane R + 1 before that).
      const int b = p & 1;
#pragma unroll
      for (int l = 0; l < K; ++l)
#pragma unroll
        for (int i = 0; i < PY; ++i)
          if (i < R || i >= PY - R) store_row<VX>(&plane[l][b][ty + i][tx], ring[l][slot_of(R)][i]);
      __syncthreads();

#pragma unroll
      for (int l = 1; l <= K; ++l) {
        const int q = p - l * R;  // the plane level l computes now
        const REAL(&below)[PERIOD][PY][VX] = ring[l - 1];
        const bool plane_interior = q >= R && q < nz - R;
        REAL value[PY][VX];  // points that are not updated keep level l - 1's value
#pragma unroll
        for (int i = 0; i < PY; ++i) {
          // x neighbours from the lanes either side (all lanes shuffle): left[r - 1]
          // at x0 - r, right[r - 1] at x0 + VX - 1 + r.
          REAL left[R], right[R];
#pragma unroll
          for (int r = 1; r <= R; ++r) {
            const int h = (r + VX - 1) / VX;
            left[r - 1] = __shfl_up_sync(0xffffffffu, below[slot_of(R)][i][h * VX - r], h);
            right[r - 1] = __shfl_down_sync(0xffffffffu, below[slot_of(R)][i][VX - 1 + r - h * VX], h);
          }
#pragma unroll
          for (int v = 0; v < VX; ++v) value[i][v] = below[slot_of(R)][i][v];
          if (!(plane_interior && (rows_updated >> i & 1))) continue;
          REAL south[R][VX], north[R][VX];  // rows i - r and i + r: the thread's own, or its neighbours' in shared memory
#pragma unroll
          for (int r = 1; r <= R; ++r) {
            if (i - r >= 0) {
#pragma unroll
              for (int v = 0; v < VX; ++v) south[r - 1][v] = below[slot_of(R)][i - r][v];
            } else {
              load_row<VX>(&plane[l - 1][b][ty + i - r][tx], south[r - 1]);
            }
            if (i + r < PY) {
#pragma unroll
              for (int v = 0; v < VX; ++v) north[r - 1][v] = below[slot_of(R)][i + r][v];
            } else {
              load_row<VX>(&plane[l - 1][b][ty + i + r][tx], north[r - 1]);
            }
          }
#pragma unroll
          for (int v = 0; v < VX; ++v) {
            // Per point, not per thread: with one fused step the written columns
            // start R into the tile, inside the first thread's vector. A select,
            // not a branch: the lanes at the tile's edges would diverge.
            REAL sum = c[0] * below[slot_of(R)][i][v];
#pragma unroll
            for (int r = 1; r <= R; ++r) {
              const REAL west = v - r >= 0 ? below[slot_of(R)][i][v - r] : left[r - v - 1];
              const REAL east = v + r < VX ? below[slot_of(R)][i][v + r] : right[v + r - VX];
              sum += c[r] * (west + east + south[r - 1][v] + north[r - 1][v] + below[slot_of(R - r)][i][v] + below[slot_of(R + r)][i][v]);
            }
            if (points_updated >> v & 1) value[i][v] = sum;
          }
        }
        if (l < K) {
#pragma unroll
          for (int i = 0; i < PY; ++i)
#pragma unroll
            for (int v = 0; v < VX; ++v) ring[l][phase][i][v] = value[i][v];
        } else if (q >= k_begin && q < k_end) {
          // The written columns [R + LEAD, R + LEAD + OW) start R after a vector
          // boundary: a thread may write part of its points. x0 + v >= R follows.
#pragma unroll
          for (int i = 0; i < PY; ++i) {
            const int y = y0 + i;
            if (ty + i < HALO || ty + i >= HALO + OH || y >= ny - R) continue;
            const long long at = q * sz + y * sy + x0;
            if (tx >= R + LEAD && tx + VX <= R + LEAD + OW && x0 + VX <= nx - R) {
              store_row<VX>(out + at, value[i]);
            } else {
#pragma unroll
              for (int v = 0; v < VX; ++v)
                if (tx + v >= R + LEAD && tx + v < R + LEAD + OW && x0 + v < nx - R) out[at + v] = value[i][v];
            }
          }
        }
      }
    }
  }
}

#elif STRATEGY == PLANE
// PLANE: STREAM's temporal blocking, every level's plane in shared memory. A
// block of BLOCK_X x BLOCK_Y threads owns an xy tile of BLOCK_X * VX by
// BLOCK_Y * PY points (VX contiguous points in each of PY rows per thread) and
// walks its z chunk plane by plane. Step level l = 1..FUSED_STEPS computes one
// plane from level l - 1, R planes behind it: the thread's own columns of level
// l - 1 (their last 2R + 1 planes) are in registers; its x and y neighbours come
// from level l - 1's centre plane, which every level stores whole into shared
// memory, padded so that the tile's edge reads its padding. Each level loses R
// valid points at the tile's edge: tiles overlap by FUSED_STEPS * R and only the
// inner part is written; what the edge computes from the padding is never read
// by a valid point, so it needs no mask. A tile that reaches an x or y face
// loses nothing on that side (the face's points are known at every level), so
// the first tile starts at the face and writes from R, and the last one ends at
// or beyond the far face and writes up to it: at 512 points, radius 2 and 2
// steps, 9 x 21 tiles of 64 x 32 points where tiles with a halo on every side
// took 10 x 22. Points within R of a face keep their
// value at every level, exactly as in FUSED_STEPS separate launches: a z face is
// the same for the whole block (a uniform branch), and only blocks whose tile
// reaches within R of an x or y face or beyond the grid walk with masks (the
// same walk, instantiated twice). Points beyond the grid load whatever lies at
// the nearest point inside: no point inside reads them. The input planes are
// copied with cp.async into a ring of shared-memory slots DEPTH planes ahead, as
// STREAM's.
//
// Against STREAM, which takes x neighbours from the next lanes (shuffles: a warp
// spans the tile's width), stores only the rows other threads read, masks every
// point of every level and writes columns that begin R points into a vector:
// 20 instructions per point update at radius 2 (13 of them arithmetic) in the
// sm_90 SASS of the 16 x 32 x (4 x 2) tile, against STREAM's 35 at 32 x 16 x (2 x 4);
// blocks 16 to 64 threads wide, 16 x 16 threads of 4-point vectors among them. On
// an H100 the fastest per step at radii 1 and 2: bench/results/time-steps/h100/.
template <int R>
struct PlaneTile {
  static constexpr int K = FUSED_STEPS;
  static constexpr int HALO = K * R;                         // tile overlap on each side
  static constexpr int TW = BLOCK_X * VX, TH = BLOCK_Y * PY;  // tile, in points
  // Columns before the first written one (a whole vector, so that every store
  // inside the grid is a vector store); written columns and rows per tile, and
  // the stride of the tiles. stencil3d.cpp's grid and constraints use the same.
  static constexpr int LEAD = (HALO + VX - 1) / VX * VX;
  static constexpr int OW = (TW - HALO - LEAD) / VX * VX;
  static constexpr int OH = TH - 2 * HALO;
  static_assert(OW > 0 && OH > 0, "the tile is too small for its halo");
  static constexpr int FIT = 32768 / int(TH * TW * sizeof(REAL));
  static constexpr int DEPTH = FIT < 2 ? 2 : FIT > 8 ? 8 : FIT;
  static constexpr int SLOTS = DEPTH + 1;
  static constexpr int PIECE = VX * sizeof(REAL) <= 16 ? VX : 16 / sizeof(REAL);  // elements per copy of a row vector
  // A level's plane in shared memory: the tile with R rows above and below and
  // PAD columns either side (a multiple of the vector and of 16 bytes), so that
  // every neighbour read stays inside it and aligned.
  static constexpr int ALIGN = VX > 16 / int(sizeof(REAL)) ? VX : 16 / int(sizeof(REAL));
  static constexpr int PAD = (R + ALIGN - 1) / ALIGN * ALIGN;
  static constexpr int SW = TW + 2 * PAD, SH = TH + 2 * R;
  // x neighbours on each side as PIECES pieces of W contiguous values (W | VX: aligned).
  static constexpr int W = R >= VX ? VX : R <= 1 ? 1 : R <= 2 ? 2 : 4;
  static constexpr int PIECES = (R + W - 1) / W;
  static constexpr int PERIOD = 2 * R + 1;
};

// The walk of one block along its z chunk; NEAR_FACE: the tile reaches within
// R of an x or y face (or beyond the grid), whose points keep their value.
template <int R, bool NEAR_FACE>
__device__ __forceinline__ void plane_walk(const REAL* __restrict__ in, REAL* out, const REAL (&c)[R + 1], int nx, int ny, int nz,
                                            int x_tile, int y_tile, unsigned char* shared) {
  using T = PlaneTile<R>;
  constexpr int K = T::K, HALO = T::HALO, TW = T::TW, TH = T::TH, SW = T::SW, SH = T::SH, PAD = T::PAD;
  constexpr int W = T::W, PIECES = T::PIECES, PERIOD = T::PERIOD, DEPTH = T::DEPTH, SLOTS = T::SLOTS, PIECE = T::PIECE;
  // plane[l][b]: level l's centre plane, double-buffered so that one barrier per plane suffices.
  auto plane = reinterpret_cast<REAL(*)[2][SH][SW]>(shared);
  // fronts[s]: an input plane on its way, the thread's own points only (no barrier guards them).
  auto fronts = reinterpret_cast<REAL(*)[TH][TW]>(shared + sizeof(REAL) * K * 2 * SH * SW);

  const int tx = threadIdx.x * VX, ty = threadIdx.y * PY;  // tile coordinates of the thread's first point
  const int x0 = x_tile + tx, y0 = y_tile + ty;           // x0 is a multiple of VX
  const long long sy = nx;
  const long long sz = (long long)nx * ny;
  const int k_begin = blockIdx.z * Z_CHUNK + R;  // the planes this block writes
  const int k_end = min(k_begin + Z_CHUNK, nz - R);
  const int p_begin = k_begin - HALO, p_end = k_end + HALO;

  // What does not change along the walk is worked out once. Where the thread's
  // rows are read from: the nearest point inside the grid. Bit i: row i is on
  // no y face (updated), is written by the last level; bit v: point v is on no
  // x face, is written. A tile at a face writes up to it (see above).
  const bool first_x = x_tile == 0, last_x = x_tile + TW >= nx, first_y = y_tile == 0, last_y = y_tile + TH >= ny;
  const int x_read = min(x0, nx - VX);
  unsigned rows_updated = 0, rows_written = 0, points_updated = 0, points_written = 0;
  long long row_read[PY];
#pragma unroll
  for (int i = 0; i < PY; ++i) {
    const int y = y0 + i;
    row_read[i] = min(y, ny - 1) * sy + x_read;
    if (y >= R && y < ny - R) {
      rows_updated |= 1u << i;
      if ((first_y || ty + i >= HALO) && (last_y || ty + i < HALO + T::OH)) rows_written |= 1u << i;
    }
  }
#pragma unroll
  for (int v = 0; v < VX; ++v) {
    if (x0 + v >= R && x0 + v < nx - R) {
      points_updated |= 1u << v;
      if ((first_x || tx + v >= T::LEAD) && (last_x || tx + v < T::LEAD + T::OW)) points_written |= 1u << v;
    }
  }
  const bool vector_written = points_written == (1u << VX) - 1;
  const long long first_point = y0 * sy + x0;  // in plane 0

  // The thread's points of input plane p into slot `slot`; one group per plane,
  // empty past the end, so that the groups count planes.
  const auto request = [&](int p, int slot) {
    if (p < p_end) {
      const REAL* from = in + min(max(p, 0), nz - 1) * sz;
#pragma unroll
      for (int i = 0; i < PY; ++i)
#pragma unroll
        for (int e = 0; e < VX; e += PIECE) copy_async<PIECE>(&fronts[slot][ty + i][tx + e], from + row_read[i] + e, true);
    }
    commit_copies();
  };
#pragma unroll
  for (int d = 0; d < DEPTH; ++d) request(p_begin + d, d);

  // ring[l][s][i]: level l's last 2R + 1 planes of the thread's row i, rotating:
  // at the n-th plane of the walk, once each level has taken its new plane,
  // plane d (0 the oldest, 2R the newest) is in slot (n + 1 + d) % PERIOD, and
  // the newest replaced the oldest in slot n % PERIOD. The walk is unrolled
  // PERIOD times, so that slots are known at compile time and no plane moves
  // between registers.
  REAL ring[K][PERIOD][PY][VX];
#pragma unroll
  for (int l = 0; l < K; ++l)
#pragma unroll
    for (int d = 0; d < PERIOD; ++d)
#pragma unroll
      for (int i = 0; i < PY; ++i)
#pragma unroll
        for (int v = 0; v < VX; ++v) ring[l][d][i][v] = REAL(0);

  // The bounds are the same for the whole block: every thread reaches every barrier.
  int slot = 0;
#pragma unroll 1
  for (int n0 = 0; n0 < p_end - p_begin; n0 += PERIOD) {
#pragma unroll
    for (int phase = 0; phase < PERIOD; ++phase) {
      const int p = p_begin + n0 + phase;
      if (p >= p_end) break;
      const auto slot_of = [phase](int d) { return (phase + 1 + d) % PERIOD; };  // plane d's slot
      // Plane p has arrived; the slot it replaces was read by this thread only, an iteration ago.
      wait_copies_but<DEPTH - 1>();
#pragma unroll
      for (int i = 0; i < PY; ++i) load_row<VX>(&fronts[slot][ty + i][tx], ring[0][phase][i]);
      request(p + DEPTH, slot == 0 ? SLOTS - 1 : slot - 1);
      slot = slot + 1 == SLOTS ? 0 : slot + 1;

      // Each level's centre plane, which the next level reads around the
      // thread's points. Levels >= 1 take their new plane when they are
      // computed below; their centre is already in slot slot_of(R).
      const int b = p & 1;
#pragma unroll
      for (int l = 0; l < K; ++l)
#pragma unroll
        for (int i = 0; i < PY; ++i) store_row<VX>(&plane[l][b][R + ty + i][PAD + tx], ring[l][slot_of(R)][i]);
      __syncthreads();

#pragma unroll
      for (int l = 1; l <= K; ++l) {
        // Level l's first 2lR planes are below the first one a written point
        // needs (k_begin - HALO + lR): not computed, their slots keep what they held.
        if (n0 + phase < 2 * l * R) continue;
        const int q = p - l * R;  // the plane level l computes now
        const REAL(&below)[PERIOD][PY][VX] = ring[l - 1];
        const REAL(&centre)[PY][VX] = below[slot_of(R)];
        const REAL(&around)[SH][SW] = plane[l - 1][b];
        // Rows R above and below the thread's own: the y neighbours they lack.
        REAL south[R][VX], north[R][VX];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          load_row<VX>(&around[ty + r][PAD + tx], south[r]);           // row -R + r of the thread's
          load_row<VX>(&around[R + ty + PY + r][PAD + tx], north[r]);  // row PY + r
        }
        REAL value[PY][VX];
#pragma unroll
        for (int i = 0; i < PY; ++i) {
          // x neighbours: left[e] at x0 - PIECES * W + e, right[e] at x0 + VX + e.
          REAL left[PIECES * W], right[PIECES * W];
#pragma unroll
          for (int h = 0; h < PIECES; ++h) {
            load_row<W>(&around[R + ty + i][PAD + tx - (PIECES - h) * W], *reinterpret_cast<REAL(*)[W]>(&left[h * W]));
            load_row<W>(&around[R + ty + i][PAD + tx + VX + h * W], *reinterpret_cast<REAL(*)[W]>(&right[h * W]));
          }
#pragma unroll
          for (int v = 0; v < VX; ++v) {
            REAL sum = c[0] * centre[i][v];
#pragma unroll
            for (int r = 1; r <= R; ++r) {
              const REAL west = v - r >= 0 ? centre[i][v - r] : left[PIECES * W + v - r];
              const REAL east = v + r < VX ? centre[i][v + r] : right[v + r - VX];
              const REAL south_r = i - r >= 0 ? centre[i - r][v] : south[R + i - r][v];
              const REAL north_r = i + r < PY ? centre[i + r][v] : north[i + r - PY][v];
              sum += c[r] * (((west + east) + (south_r + north_r)) + (below[slot_of(R - r)][i][v] + below[slot_of(R + r)][i][v]));
            }
            value[i][v] = sum;
            if (NEAR_FACE && !((rows_updated >> i & 1) && (points_updated >> v & 1))) value[i][v] = centre[i][v];
          }
        }
        if (!(q >= R && q < nz - R)) {  // a z face: the whole plane keeps its value
#pragma unroll
          for (int i = 0; i < PY; ++i)
#pragma unroll
            for (int v = 0; v < VX; ++v) value[i][v] = centre[i][v];
        }
        if (l < K) {
#pragma unroll
          for (int i = 0; i < PY; ++i)
#pragma unroll
            for (int v = 0; v < VX; ++v) ring[l][phase][i][v] = value[i][v];
        } else if (q >= k_begin && q < k_end) {
          REAL* to = out + q * sz + first_point;
#pragma unroll
          for (int i = 0; i < PY; ++i) {
            if (!(rows_written >> i & 1)) continue;
            // Away from the x faces a thread writes all of its points or none.
            if (vector_written) {
              store_row<VX>(to + i * sy, value[i]);
            } else if (NEAR_FACE) {
#pragma unroll
              for (int v = 0; v < VX; ++v)
                if (points_written >> v & 1) to[i * sy + v] = value[i][v];
            }
          }
        }
      }
    }
  }
}

// Blocks of fewer than 512 threads are held to 128 registers as the larger ones
// are, so that two or more share an SM and one's barrier waits while another computes.
template <int R>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y, BLOCK_X * BLOCK_Y >= 512 ? 1 : 512 / (BLOCK_X * BLOCK_Y))
stencil3d(const REAL* __restrict__ in, REAL* out, const REAL* coefficients, int nx, int ny, int nz) {
  using T = PlaneTile<R>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  REAL c[R + 1];
#pragma unroll
  for (int r = 0; r <= R; ++r) c[r] = coefficients[r];
  const int x_tile = blockIdx.x * T::OW, y_tile = blockIdx.y * T::OH;  // grid coordinates of the tile's first point
  const bool near_face = x_tile < R || x_tile + T::TW > nx - R || y_tile < R || y_tile + T::TH > ny - R;
  if (near_face)
    plane_walk<R, true>(in, out, c, nx, ny, nz, x_tile, y_tile, shared_bytes);
  else
    plane_walk<R, false>(in, out, c, nx, ny, nz, x_tile, y_tile, shared_bytes);
}

#else

#if STRATEGY == COMP || STRATEGY == RING
// Rows y0 .. y0 + TH - 1, columns x0 .. x0 + TW - 1 of `plane` into `tile`, zeros
// beyond the grid, the copies spread over the THREADS threads of a tile. x0 and TW
// are multiples of N, so that with nx % N == 0 every N-element copy is aligned
// and wholly inside the grid or wholly outside.
template <int N, int TH, int TW, int THREADS>
__device__ __forceinline__ void fill_tile(REAL (&tile)[TH][TW], const REAL* plane, int x0, int y0, int nx, int ny, int thread) {
  constexpr int PER_ROW = TW / N;
#pragma unroll 4
  for (int c = thread; c < TH * PER_ROW; c += THREADS) {
    const int row = c / PER_ROW, column = c % PER_ROW * N;
    const int x = x0 + column, y = y0 + row;
    const bool inside = y < ny && x >= 0 && x < nx;
    copy_async<N>(&tile[row][column], inside ? plane + (long long)y * nx + x : plane, inside);
  }
}
#endif

#if STRATEGY == RING
// RING: the 2.5D scheme (Micikevicius; NVIDIA's FDTD3d) with its global loads
// started RING_DEPTH planes ahead. A block owns an xy tile of BLOCK_X * VX by
// BLOCK_Y * PY points and walks its z chunk; a thread keeps its points' last
// 2R + 1 planes in a register queue (the z neighbours, as REG) and writes the
// centre plane into the block's tile in shared memory, whose halo (R rows
// above and below, LEAD columns either side) the block copies from global
// memory; x and y neighbours come from the tile (as COMP). The queue's new
// plane -- the load that goes to DRAM -- and the tile's halo are copied with
// cp.async into a ring of RING_DEPTH + 1 slots, RING_DEPTH planes ahead, so
// that many bytes are in flight without registers to hold them: at radius 4
// a deeper queue (REG) or more rows per thread leave too few warps to keep
// DRAM busy with register loads. One barrier per plane. On an H100 at
// radius 4 this took 512^3 FP32 from 78% to 94% of the device-to-device copy
// (bench/results/stencil-r4/). Short z chunks (8 planes) ran best there: a
// block's halo and queue warm-up then come from its neighbours' loads in L2.
#ifndef RING_DEPTH
#define RING_DEPTH 3
#endif
template <int R>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
stencil3d(const REAL* __restrict__ in, REAL* out, const REAL* coefficients, int nx, int ny, int nz) {
  static_assert(BLOCK_Z == 1 && ZLOOP == REG, "RING walks z with a register queue, one z slice per block");
  constexpr int SLOTS = RING_DEPTH + 1;
  constexpr int CHUNK = 16 / sizeof(REAL);  // elements per 16-byte copy
  constexpr int ALIGN = VX > CHUNK ? VX : CHUNK;
  constexpr int LEAD = (R + ALIGN - 1) / ALIGN * ALIGN;  // halo columns either side, as COMP's
  constexpr int HALO = (R + VX - 1) / VX;                 // vectors either side that cover the x neighbours
  constexpr int TW = BLOCK_X * VX, TH = BLOCK_Y * PY;     // the block's points
  constexpr int SW = TW + 2 * LEAD, SH = TH + 2 * R;      // its tile
  constexpr int THREADS = BLOCK_X * BLOCK_Y;
  constexpr int PIECE = VX < CHUNK ? VX : CHUNK;  // elements per copy of the thread's own vector
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  // tiles[s]: a centre plane with its halo; fronts[s]: the queue's new plane, the block's points only.
  auto tiles = reinterpret_cast<REAL(*)[SH][SW]>(shared_bytes);
  auto fronts = reinterpret_cast<REAL(*)[TH][TW]>(shared_bytes + sizeof(REAL) * SLOTS * SH * SW);

  REAL c[R + 1];
#pragma unroll
  for (int r = 0; r <= R; ++r) c[r] = coefficients[r];

  const int tx = threadIdx.x * VX, ty = threadIdx.y * PY;  // tile coordinates of the thread's first point, past the halo
  const int x0 = blockIdx.x * TW + tx;                      // its first point in x
  const int y_tile = blockIdx.y * TH;                        // grid row of the tile's first (halo) row
  const int x_tile = blockIdx.x * TW - LEAD;                 // grid column of the tile's first column
  const int j0 = y_tile + R + ty;                            // the thread's first row
  const int k_first = blockIdx.z * Z_CHUNK + R;
  const int k_end = min(k_first + Z_CHUNK, nz - R);
  const bool columns_inside = x0 < nx;  // all VX points or none: nx % VX == 0
  const long long sy = nx;
  const long long sz = (long long)nx * ny;
  const int thread = threadIdx.y * BLOCK_X + threadIdx.x;
  const bool aligned = nx % CHUNK == 0;  // rows start on 16 bytes: the halo in 16-byte copies

  // The halo in 16-byte copies: 2R full rows of the tile, then LEAD columns
  // either side of its TH middle rows. Each thread's share is the same for
  // every plane: where a copy lands in a tile and where it starts in a plane
  // (-1 beyond the grid: zeros). A plane offset fits an int: nx * ny < 2^31.
  constexpr int ROW_COPIES = SW / CHUNK, TOP_BOTTOM = 2 * R * ROW_COPIES, SIDE = LEAD / CHUNK;
  constexpr int COPIES = TOP_BOTTOM + TH * 2 * SIDE;
  constexpr int PER_THREAD = (COPIES + THREADS - 1) / THREADS;
  int to[PER_THREAD], from[PER_THREAD];
#pragma unroll
  for (int n = 0; n < PER_THREAD; ++n) {
    const int copy = thread + n * THREADS;
    int row, column;
    if (copy < TOP_BOTTOM) {
      row = copy / ROW_COPIES, column = copy % ROW_COPIES * CHUNK;
      if (row >= R) row += TH;
    } else {
      const int side = (copy - TOP_BOTTOM) % (2 * SIDE);
      row = R + (copy - TOP_BOTTOM) / (2 * SIDE);
      column = side < SIDE ? side * CHUNK : TW + side * CHUNK;
    }
    const int x = x_tile + column, y = y_tile + row;
    to[n] = row * SW + column;
    from[n] = copy < COPIES && y < ny && x >= 0 && x < nx ? y * nx + x : -1;
  }

  // The copies due at step z (slot z % SLOTS): the thread's own points of the
  // queue's new plane k + R, and the block's halo of plane k (k = k_first + z).
  // Every step commits one group, empty past the chunk, so that the groups count steps.
  const auto request = [&](int z, int slot) {
    const int k = k_first + z;
    if (k < k_end) {
#pragma unroll
      for (int i = 0; i < PY; ++i) {
        const bool inside = columns_inside && j0 + i < ny;  // rows beyond ny - R are y neighbours
        const REAL* from_row = in + (k + R) * sz + (j0 + i) * sy + x0;
#pragma unroll
        for (int p = 0; p < VX; p += PIECE) copy_async<PIECE>(&fronts[slot][ty + i][tx + p], inside ? from_row + p : in, inside);
      }
      const REAL* plane = in + k * sz;
      REAL* tile = &tiles[slot][0][0];
      if (aligned) {
#pragma unroll
        for (int n = 0; n < PER_THREAD; ++n)
          if (n + 1 < PER_THREAD || thread + n * THREADS < COPIES) copy_async<CHUNK>(tile + to[n], from[n] >= 0 ? plane + from[n] : in, from[n] >= 0);
      } else {  // element by element
#pragma unroll 1
        for (int e = thread; e < 2 * R * SW + TH * 2 * LEAD; e += THREADS) {
          int row, column;
          if (e < 2 * R * SW) {
            row = e / SW, column = e % SW;
            if (row >= R) row += TH;
          } else {
            const int side = (e - 2 * R * SW) % (2 * LEAD);
            row = R + (e - 2 * R * SW) / (2 * LEAD);
            column = side < LEAD ? side : TW + side;
          }
          const int x = x_tile + column, y = y_tile + row;
          const bool inside = y < ny && x >= 0 && x < nx;
          copy_async<1>(tile + row * SW + column, inside ? plane + y * sy + x : in, inside);
        }
      }
    }
    commit_copies();
  };

  // q[d][i]: plane k - R + d of the thread's row i; planes k_first - R .. k_first + R - 1 first.
  REAL q[2 * R + 1][PY][VX];
  if (k_first < k_end) {
#pragma unroll
    for (int d = 0; d < 2 * R; ++d)
#pragma unroll
      for (int i = 0; i < PY; ++i) {
        if (columns_inside && j0 + i < ny) {
          load_row<VX>(in + (k_first - R + d) * sz + (j0 + i) * sy + x0, q[d][i]);
        } else {
#pragma unroll
          for (int v = 0; v < VX; ++v) q[d][i][v] = REAL(0);
        }
      }
  }
#pragma unroll
  for (int z = 0; z < RING_DEPTH; ++z) request(z, z);

  // Every thread runs every step: the barrier needs the whole block.
  int slot = 0;
#pragma unroll 1
  for (int z = 0; k_first + z < k_end; ++z) {
    const int k = k_first + z;
    // Step z's copies have arrived; the queue takes its new plane, the tile its centre.
    wait_copies_but<RING_DEPTH - 1>();
#pragma unroll
    for (int i = 0; i < PY; ++i) load_row<VX>(&fronts[slot][ty + i][tx], q[2 * R][i]);
#pragma unroll
    for (int i = 0; i < PY; ++i) store_row<VX>(&tiles[slot][R + ty + i][LEAD + tx], q[R][i]);
    // Every thread's centre and halo copies are in; every thread is done with step z - 1's slot.
    __syncthreads();
    request(z + RING_DEPTH, slot == 0 ? SLOTS - 1 : slot - 1);

    const REAL(&tile)[SH][SW] = tiles[slot];
    if (columns_inside && j0 < ny - R) {
      // Rows j0 - R .. j0 + PY - 1 + R of the thread's columns: the y neighbours of all its rows.
      REAL column[PY + 2 * R][VX];
#pragma unroll
      for (int d = 0; d < PY + 2 * R; ++d) {
        if (d >= R && d < R + PY) {
#pragma unroll
          for (int v = 0; v < VX; ++v) column[d][v] = q[R][d - R][v];
        } else {
          load_row<VX>(&tile[ty + d][LEAD + tx], column[d]);
        }
      }
#pragma unroll
      for (int i = 0; i < PY; ++i) {
        const int j = j0 + i;
        if (j >= ny - R) continue;
        // The row around the thread's points: HALO vectors either side.
        REAL row[(2 * HALO + 1) * VX];
#pragma unroll
        for (int h = -HALO; h <= HALO; ++h) {
          REAL(&part)[VX] = *reinterpret_cast<REAL(*)[VX]>(&row[(HALO + h) * VX]);
          if (h == 0) {
#pragma unroll
            for (int v = 0; v < VX; ++v) part[v] = q[R][i][v];
          } else {
            load_row<VX>(&tile[R + ty + i][LEAD + tx + h * VX], part);
          }
        }
        REAL zz[R][VX];
#pragma unroll
        for (int r = 1; r <= R; ++r)
#pragma unroll
          for (int v = 0; v < VX; ++v) zz[r - 1][v] = q[R - r][i][v] + q[R + r][i][v];
        finish_points<R, HALO, PY>(c, row, column, i, zz, out, k * sz + j * sy + x0, x0, nx);
      }
    }

#pragma unroll
    for (int d = 0; d < 2 * R; ++d)
#pragma unroll
      for (int i = 0; i < PY; ++i)
#pragma unroll
        for (int v = 0; v < VX; ++v) q[d][i][v] = q[d + 1][i][v];
    slot = slot + 1 == SLOTS ? 0 : slot + 1;
  }
  wait_copies();  // none in flight at exit (the groups past the chunk are empty)
}
#else

// BASE, CSL and COMP: a thread computes VX points in x (vectors) in each of PY
// rows, for one plane (NONE) or Z_CHUNK planes (INTZ, REG). Its PY rows share one
// column of PY + 2R vectors for their y neighbours (read once per plane), and
// each row reads HALO vectors either side for its x neighbours. BASE and CSL read
// them from global memory (the L1 serves the reuse); COMP from the block's xy
// tile of the plane in shared memory.
template <int R>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y * BLOCK_Z)
stencil3d(INPUT in, REAL* out, const REAL* coefficients, int nx, int ny, int nz) {
  REAL c[R + 1];
#pragma unroll
  for (int r = 0; r <= R; ++r) c[r] = coefficients[r];

  constexpr int HALO = (R + VX - 1) / VX;  // vectors either side that cover the x neighbours
  const int x0 = (blockIdx.x * BLOCK_X + threadIdx.x) * VX;  // this thread's first point in x
  const int j0 = (blockIdx.y * BLOCK_Y + threadIdx.y) * PY + R;  // and its first row
  const int k_first = (blockIdx.z * BLOCK_Z + threadIdx.z) * Z_CHUNK + R;
  const bool columns_inside = x0 < nx;  // all VX points or none: nx % VX == 0
  const long long sy = nx;
  const long long sz = (long long)nx * ny;
  const auto row_inside = [&](int i) { return j0 + i < ny - R; };

#if STRATEGY == COMP
  // The tile of a plane: the block's rows with R rows either side, its columns
  // with LEAD >= R columns either side, LEAD a multiple of the vector and of a
  // 16-byte copy so that both stay aligned. With a z loop two tiles alternate:
  // the next plane's arrives while this one's is read, one barrier per plane.
  constexpr int CHUNK = 16 / sizeof(REAL);
  constexpr int ALIGN = VX > CHUNK ? VX : CHUNK;
  constexpr int LEAD = (R + ALIGN - 1) / ALIGN * ALIGN;
  constexpr int TW = BLOCK_X * VX + 2 * LEAD, TH = BLOCK_Y * PY + 2 * R;
  constexpr int BUFFERS = Z_CHUNK > 1 ? 2 : 1;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  REAL(&tiles)[BUFFERS][TH][TW] = reinterpret_cast<REAL(*)[BUFFERS][TH][TW]>(shared_bytes)[threadIdx.z];
  const int tile_x0 = blockIdx.x * BLOCK_X * VX - LEAD;  // grid coordinates of the tile's first point
  const int tile_y0 = blockIdx.y * BLOCK_Y * PY;
  const int tx = LEAD + threadIdx.x * VX, ty = R + threadIdx.y * PY;  // tile coordinates of the thread's first point
  const auto fill = [&](REAL(&tile)[TH][TW], int k) {
    const int thread = threadIdx.y * BLOCK_X + threadIdx.x;
    if (nx % CHUNK == 0)
      fill_tile<CHUNK, TH, TW, BLOCK_X * BLOCK_Y>(tile, in + k * sz, tile_x0, tile_y0, nx, ny, thread);
    else  // rows that are not 16-byte aligned: element by element
      fill_tile<1, TH, TW, BLOCK_X * BLOCK_Y>(tile, in + k * sz, tile_x0, tile_y0, nx, ny, thread);
  };
  if (k_first < nz - R) fill(tiles[0], k_first);
#endif

#if ZLOOP == REG
  // q[R + d][i]: the value at plane k + d of this thread's row i. The leading
  // plane of the next step is loaded one step ahead, so two loads are in
  // flight while a plane is computed.
  REAL q[2 * R + 1][PY][VX];
  if (columns_inside && k_first < nz - R) {
#pragma unroll
    for (int i = 0; i < PY; ++i)
      if (row_inside(i))
#pragma unroll
        for (int d = -R; d <= R; ++d) load_row<VX>(in + (k_first + d) * sz + (j0 + i) * sy + x0, q[R + d][i]);
  }
#endif

  // Every thread runs every iteration: COMP's barriers need the whole block.
#pragma unroll 1
  for (int z = 0; z < Z_CHUNK; ++z) {
    const int k = k_first + z;
    const bool plane_inside = k < nz - R;
    const long long at0 = k * sz + j0 * sy + x0;

#if ZLOOP == REG
    REAL next[PY][VX];
#pragma unroll
    for (int i = 0; i < PY; ++i)
      if (columns_inside && row_inside(i) && k + 1 < nz - R) load_row<VX>(in + at0 + i * sy + (R + 1) * sz, next[i]);
#endif

#if STRATEGY == COMP
    // This plane's tile has arrived, and every thread is done with the other buffer.
    wait_copies();
    __syncthreads();
    if (z + 1 < Z_CHUNK && k + 1 < nz - R) fill(tiles[(z + 1) % BUFFERS], k + 1);
    const REAL(&tile)[TH][TW] = tiles[z % BUFFERS];
    // dy rows and dx points from the thread's first point: zeros beyond the grid are in the tile.
    const auto read_xy = [&](int dy, int dx, REAL(&v)[VX]) { load_row<VX>(&tile[ty + dy][tx + dx], v); };
#else
    // Rows up to j0 + R and the thread's own columns are inside the grid where
    // row 0 is (dy and dx are known at compile time: no test for those).
    const auto read_xy = [&](int dy, int dx, REAL(&v)[VX]) {
      if ((dy <= R || j0 + dy < ny) && (dx == 0 || x0 + dx >= 0 && x0 + dx < nx)) {
        load_row<VX>(in + at0 + dy * sy + dx, v);
      } else {
#pragma unroll
        for (int u = 0; u < VX; ++u) v[u] = REAL(0);  // beyond a face: never used by interior points
      }
    };
#endif

    if (plane_inside && columns_inside && row_inside(0)) {
      // Rows j0 - R .. j0 + PY - 1 + R of the thread's columns: the y neighbours of all its rows.
      REAL column[PY + 2 * R][VX];
#pragma unroll
      for (int d = 0; d < PY + 2 * R; ++d) read_xy(d - R, 0, column[d]);

#pragma unroll
      for (int i = 0; i < PY; ++i) {
        if (!row_inside(i)) continue;
        const long long at = at0 + i * sy;
        // The row around the thread's points: HALO vectors either side.
        REAL row[(2 * HALO + 1) * VX];
#pragma unroll
        for (int h = -HALO; h <= HALO; ++h) {
          REAL(&part)[VX] = *reinterpret_cast<REAL(*)[VX]>(&row[(HALO + h) * VX]);
          if (h == 0) {
#pragma unroll
            for (int u = 0; u < VX; ++u) part[u] = column[R + i][u];
          } else {
            read_xy(i, h * VX, part);
          }
        }
        REAL zz[R][VX];  // planes k - r and k + r
#pragma unroll
        for (int r = 1; r <= R; ++r) {
#if ZLOOP == REG
#pragma unroll
          for (int v = 0; v < VX; ++v) zz[r - 1][v] = q[R - r][i][v] + q[R + r][i][v];
#else
          REAL below[VX], above[VX];
          load_row<VX>(in + at - r * sz, below);
          load_row<VX>(in + at + r * sz, above);
#pragma unroll
          for (int v = 0; v < VX; ++v) zz[r - 1][v] = below[v] + above[v];
#endif
        }
        finish_points<R, HALO, PY>(c, row, column, i, zz, out, at, x0, nx);
      }
    }

#if ZLOOP == REG
#pragma unroll
    for (int d = 0; d < 2 * R; ++d)
#pragma unroll
      for (int i = 0; i < PY; ++i)
#pragma unroll
        for (int v = 0; v < VX; ++v) q[d][i][v] = q[d + 1][i][v];
#pragma unroll
    for (int i = 0; i < PY; ++i)
#pragma unroll
      for (int v = 0; v < VX; ++v) q[2 * R][i][v] = next[i][v];
#endif
  }
}

#endif  // STRATEGY == RING
#endif  // STRATEGY
