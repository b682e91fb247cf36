// Standalone experiments for issue 4: the radius-4 3D star stencil at 512^3 FP32,
// one time step, against the same run's device-to-device copy (cudaMemcpy,
// bytes read + written, as the tuner measures it). Effective bandwidth is
// 8 bytes per cell / time; every case is checked against a one-point-per-thread
// reference kernel (NaN-poisoned output, every interior point compared) and
// timed as the median of 25 launches after 3 warm-ups, with CUDA events.
//
// Cases:
//   proj BASE+INTZ  kernels/stencil3d.cu, BASE+INTZ 64x8 vx4 py1 z_chunk 8, the best
//                   coding before RING (78.2% of copy through `blocktune bench stencil`):
//                   calibrates this harness against the tuner's numbers.
//   ring            the prototype of RING: z neighbours from a register queue of
//                   2R+1 planes per point, x and y neighbours from the block's xy tile
//                   of the centre plane in shared memory; the queue's new plane (own
//                   points, the DRAM-bound load) and the tile's halo requested with
//                   cp.async D planes ahead into a ring of D+1 slots; one barrier
//                   per plane. Template: block, vx, py, D, a minimum of blocks per SM
//                   for __launch_bounds__ (0: none); z chunk at run time.
//   proj RING       kernels/stencil3d.cu's RING (RING_DEPTH 3), as stencil3d.cpp launches it.
// Each list runs twice (#1, #2) to show the run-to-run spread.
//
// Build (no GPU needed) and run on an H100; an argument runs only the cases whose
// name contains it (the copy and the reference always run):
//   nvcc -O3 -std=c++17 -arch=sm_90 -o stencil_r4 bench/experiments/stencil_r4.cu
//   ./stencil_r4 ["16x8 vx4 py1 D3 zc16"]
// bench/results/stencil-r4/README.md has the runs and what changed between them.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

// ---------------------------------------------------------------- project kernel
namespace proj {
#define STRATEGY 0
#define ZLOOP 1
#define Z_CHUNK 8
#define VX 4
#define PY 1
#define BLOCK_X 64
#define BLOCK_Y 8
#define BLOCK_Z 1
#define FUSED_STEPS 1
#include "../../kernels/stencil3d.cu"
#undef STRATEGY
#undef ZLOOP
#undef Z_CHUNK
#undef VX
#undef PY
#undef BLOCK_X
#undef BLOCK_Y
#undef BLOCK_Z
#undef FUSED_STEPS
#undef BASE
#undef CSL
#undef COMP
#undef STREAM
#undef NONE
#undef INTZ
#undef REG
#undef INPUT
#undef LOAD
#undef REAL
}  // namespace proj

// ---------------------------------------------------------------- the project's RING kernel
#define PR_NS pr1
#define PR_BX 32
#define PR_BY 4
#define PR_VX 4
#define PR_PY 2
#define PR_ZC 16
#include "stencil_r4_project_ring.inc"
#define PR_NS pr2
#define PR_BX 32
#define PR_BY 8
#define PR_VX 4
#define PR_PY 1
#define PR_ZC 16
#include "stencil_r4_project_ring.inc"
#define PR_NS pr3
#define PR_BX 32
#define PR_BY 4
#define PR_VX 2
#define PR_PY 2
#define PR_ZC 16
#include "stencil_r4_project_ring.inc"
#define PR_NS pr4
#define PR_BX 32
#define PR_BY 4
#define PR_VX 4
#define PR_PY 2
#define PR_ZC 8
#include "stencil_r4_project_ring.inc"

// ---------------------------------------------------------------- reference
template <int R>
__global__ void reference(const float* in, float* out, const float* c, int nx, int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
  if (x < R || x >= nx - R || y < R || y >= ny - R || z < R || z >= nz - R) return;
  const long long sy = nx, sz = (long long)nx * ny, at = z * sz + y * sy + x;
  float sum = c[0] * in[at];
  for (int r = 1; r <= R; ++r) sum += c[r] * (in[at - r] + in[at + r] + in[at - r * sy] + in[at + r * sy] + in[at - r * sz] + in[at + r * sz]);
  out[at] = sum;
}

// ---------------------------------------------------------------- ring kernel
template <int N>
__device__ __forceinline__ void cp_async(float* shared, const float* global, bool inside) {
  constexpr int bytes = N * 4;
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  if constexpr (bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(global), "r"(inside ? 16 : 0) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(to), "l"(global), "n"(bytes), "r"(inside ? bytes : 0) : "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_to(unsigned to, const float* global, bool inside) {
  constexpr int bytes = N * 4;
  if constexpr (bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(global), "r"(inside ? 16 : 0) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(to), "l"(global), "n"(bytes), "r"(inside ? bytes : 0) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

template <int N>
__device__ __forceinline__ void ld(const float* p, float (&v)[N]) {
  if constexpr (N == 4) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else if constexpr (N == 2) {
    const float2 t = *reinterpret_cast<const float2*>(p);
    v[0] = t.x, v[1] = t.y;
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = p[i];
  }
}
template <int N>
__device__ __forceinline__ void st(float* p, const float (&v)[N]) {
  if constexpr (N == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else if constexpr (N == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(v[0], v[1]);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) p[i] = v[i];
  }
}

template <int R, int BX, int BY, int VXT, int PYT, int D>
struct Ring {
  static constexpr int CH = 4, ALIGN = VXT > CH ? VXT : CH;
  static constexpr int LEAD = (R + ALIGN - 1) / ALIGN * ALIGN;
  static constexpr int TW = BX * VXT, TH = BY * PYT, SW = TW + 2 * LEAD, SH = TH + 2 * R, S = D + 1;
  static constexpr size_t smem = sizeof(float) * S * (SH * SW + TH * TW);
};

template <int R, int BX, int BY, int VXT, int PYT, int D, int MINB>
__global__ void __launch_bounds__(BX* BY, MINB)
    ring(const float* __restrict__ in, float* __restrict__ out, const float* __restrict__ coef, int nx, int ny, int nz, int zchunk) {
  using G = Ring<R, BX, BY, VXT, PYT, D>;
  constexpr int CH = G::CH, LEAD = G::LEAD, TW = G::TW, TH = G::TH, SW = G::SW, SH = G::SH, S = G::S;
  constexpr int HALO = (R + VXT - 1) / VXT, THREADS = BX * BY;
  extern __shared__ __align__(16) unsigned char smem[];
  auto tiles = reinterpret_cast<float(*)[SH][SW]>(smem);                                 // [S]: centre planes with halo
  auto fronts = reinterpret_cast<float(*)[TH][TW]>(smem + sizeof(float) * S * SH * SW);  // [S]: the queue's new planes

  float c[R + 1];
#pragma unroll
  for (int r = 0; r <= R; ++r) c[r] = coef[r];
  const int tx = threadIdx.x * VXT, ty = threadIdx.y * PYT;
  const int x0 = blockIdx.x * TW + tx;
  const int gy0 = blockIdx.y * TH;  // grid row of tile row 0
  const int j0 = gy0 + R + ty;
  const int gx0 = blockIdx.x * TW - LEAD;  // grid column of tile column 0
  const int k_first = blockIdx.z * zchunk + R;
  const int k_end = min(k_first + zchunk, nz - R);
  const bool cols = x0 < nx;
  const long long sy = nx, sz = (long long)nx * ny;
  const int thread = threadIdx.y * BX + threadIdx.x;

  // The halo chunks (16 bytes) this thread copies, the same for every plane:
  // where they go in a tile (bytes) and where they come from in a plane
  // (elements; -1 beyond the grid, which copies zeros).
  constexpr int ROWC = SW / CH, NTB = 2 * R * ROWC, SIDEC = LEAD / CH, NS = TH * 2 * SIDEC;
  constexpr int NC = (NTB + NS + THREADS - 1) / THREADS;
  unsigned to[NC];
  int from[NC];
#pragma unroll
  for (int n = 0; n < NC; ++n) {
    const int ci = thread + n * THREADS;
    int row = 0, col = 0;
    if (ci < NTB) {
      row = ci / ROWC, col = ci % ROWC * CH;
      if (row >= R) row += TH;
    } else {
      const int c2 = ci - NTB, s = c2 % (2 * SIDEC);
      row = R + c2 / (2 * SIDEC);
      col = s < SIDEC ? s * CH : TW + s * CH;
    }
    const int gx = gx0 + col, gy = gy0 + row;
    to[n] = static_cast<unsigned>(__cvta_generic_to_shared(&tiles[0][row][col]));
    from[n] = ci < NTB + NS && gy < ny && gx >= 0 && gx < nx ? gy * nx + gx : -1;
  }
  const unsigned fronts0 = static_cast<unsigned>(__cvta_generic_to_shared(&fronts[0][ty][tx]));
  const float* const own = in + (long long)j0 * nx + x0;  // the thread's first point in plane 0

  // The copies due at local step z (into slot z % S): the queue's new plane
  // k + R of the thread's own points, and the halo of plane k (k = k_first + z).
  auto issue = [&](int z, int slot) {
    const int k = k_first + z;
    if (k < k_end) {
#pragma unroll
      for (int i = 0; i < PYT; ++i) {
        const bool inside = cols && j0 + i < ny;
        cp_async_to<VXT>(fronts0 + (slot * TH * TW + i * TW) * 4, inside ? own + (k + R) * sz + i * sy : in, inside);
      }
      const float* plane = in + k * sz;
#pragma unroll
      for (int n = 0; n < NC; ++n)
        if (n + 1 < NC || thread + n * THREADS < NTB + NS)
          cp_async_to<CH>(to[n] + slot * SH * SW * 4, from[n] >= 0 ? plane + from[n] : in, from[n] >= 0);
    }
    cp_commit();
  };

  float q[2 * R + 1][PYT][VXT];
  if (k_first < k_end) {
#pragma unroll
    for (int d = 0; d < 2 * R; ++d)
#pragma unroll
      for (int i = 0; i < PYT; ++i) {
        const int j = j0 + i;
        if (cols && j < ny)
          ld<VXT>(in + (k_first - R + d) * sz + j * sy + x0, q[d][i]);
        else
#pragma unroll
          for (int v = 0; v < VXT; ++v) q[d][i][v] = 0.f;
      }
  }
#pragma unroll
  for (int z = 0; z < D; ++z) issue(z, z);

  int slot = 0;
#pragma unroll 1
  for (int z = 0; k_first + z < k_end; ++z) {
    const int k = k_first + z;
    cp_wait<D - 1>();
#pragma unroll
    for (int i = 0; i < PYT; ++i) ld<VXT>(&fronts[slot][ty + i][tx], q[2 * R][i]);
#pragma unroll
    for (int i = 0; i < PYT; ++i) st<VXT>(&tiles[slot][R + ty + i][LEAD + tx], q[R][i]);
    __syncthreads();
    issue(z + D, slot == 0 ? S - 1 : slot - 1);

    const float(&tile)[SH][SW] = tiles[slot];
    if (cols) {
      float column[PYT + 2 * R][VXT];  // rows j0 - R .. j0 + PY - 1 + R
#pragma unroll
      for (int d = 0; d < PYT + 2 * R; ++d) {
        const int dy = d - R;
        if (dy >= 0 && dy < PYT) {
#pragma unroll
          for (int v = 0; v < VXT; ++v) column[d][v] = q[R][dy][v];
        } else {
          ld<VXT>(&tile[R + ty + dy][LEAD + tx], column[d]);
        }
      }
#pragma unroll
      for (int i = 0; i < PYT; ++i) {
        const int j = j0 + i;
        if (j >= ny - R) continue;
        float row[(2 * HALO + 1) * VXT];
#pragma unroll
        for (int h = -HALO; h <= HALO; ++h) {
          float(&part)[VXT] = *reinterpret_cast<float(*)[VXT]>(&row[(HALO + h) * VXT]);
          if (h == 0) {
#pragma unroll
            for (int v = 0; v < VXT; ++v) part[v] = q[R][i][v];
          } else {
            ld<VXT>(&tile[R + ty + i][LEAD + tx + h * VXT], part);
          }
        }
        float result[VXT];
#pragma unroll
        for (int v = 0; v < VXT; ++v) {
          float sum = c[0] * row[HALO * VXT + v];
#pragma unroll
          for (int r = 1; r <= R; ++r)
            sum += c[r] * (row[HALO * VXT + v - r] + row[HALO * VXT + v + r] + column[R + i - r][v] + column[R + i + r][v] + q[R - r][i][v] +
                           q[R + r][i][v]);
          result[v] = sum;
        }
        const long long at = k * sz + j * sy + x0;
        if (x0 >= R && x0 + VXT <= nx - R) {
          st<VXT>(out + at, result);
        } else {
#pragma unroll
          for (int v = 0; v < VXT; ++v)
            if (x0 + v >= R && x0 + v < nx - R) out[at + v] = result[v];
        }
      }
    }
#pragma unroll
    for (int d = 0; d < 2 * R; ++d)
#pragma unroll
      for (int i = 0; i < PYT; ++i)
#pragma unroll
        for (int v = 0; v < VXT; ++v) q[d][i][v] = q[d + 1][i][v];
    slot = slot + 1 == S ? 0 : slot + 1;
  }
  cp_wait<0>();
}

// ---------------------------------------------------------------- harness
constexpr int RADIUS = 4;
static int N = 512;
static float *d_in, *d_out, *d_ref, *d_c;
static double copy_gbs = 0;
static int pass = 1;
static std::string only;  // run only the cases whose name contains this

struct Result {
  std::string name;
  double ms;
  double pct;
  double err;
};
static std::vector<Result> results;

template <typename F>
double time_ms(F launch, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

__global__ void compare(const float* a, const float* b, int nx, int ny, int nz, int R, unsigned long long* bad, float* maxerr) {
  const long long count = (long long)nx * ny * nz;
  float m = 0;
  unsigned long long nbad = 0;
  for (long long at = blockIdx.x * (long long)blockDim.x + threadIdx.x; at < count; at += (long long)gridDim.x * blockDim.x) {
    const int x = at % nx, y = at / nx % ny, z = at / ((long long)nx * ny);
    if (x < R || x >= nx - R || y < R || y >= ny - R || z < R || z >= nz - R) continue;
    const float e = fabsf(a[at] - b[at]) / (fabsf(b[at]) + 1e-3f);
    if (!(e <= 1e-4f)) ++nbad;
    if (!(e <= m)) m = e != e ? 1e30f : e;
  }
  atomicAdd(bad, nbad);
  atomicMax(reinterpret_cast<int*>(maxerr), __float_as_int(m));  // non-negative floats order as ints
}

static double check() {
  unsigned long long* bad;
  float* maxerr;
  CK(cudaMalloc(&bad, 8));
  CK(cudaMalloc(&maxerr, 4));
  CK(cudaMemset(bad, 0, 8));
  CK(cudaMemset(maxerr, 0, 4));
  compare<<<1024, 256>>>(d_out, d_ref, N, N, N, RADIUS, bad, maxerr);
  CK(cudaGetLastError());
  unsigned long long nb;
  float me;
  CK(cudaMemcpy(&nb, bad, 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&me, maxerr, 4, cudaMemcpyDeviceToHost));
  CK(cudaFree(bad));
  CK(cudaFree(maxerr));
  return nb ? 1e30 : me;
}

template <typename F>
static void run(const std::string& name, F launch) {
  if (!only.empty() && name.find(only) == std::string::npos) return;
  CK(cudaMemset(d_out, 0xff, sizeof(float) * (size_t)N * N * N));  // NaN: every interior point must be written
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const double err = check();
  const double ms = time_ms(launch, 25);
  const double gbs = 8.0 * N * N * (double)N / (ms * 1e-3) / 1e9;
  const double pct = 100 * gbs / copy_gbs;
  results.push_back({name, ms, pct, err});
  std::printf("%-48s %8.4f ms %7.0f GB/s %6.1f%% err %.2e%s\n", name.c_str(), ms, gbs, pct, err, err > 1e-4 ? "  WRONG" : "");
  std::fflush(stdout);
}

template <int BX, int BY, int VXT, int PYT, int D, int MINB>
static void ring_case(int zchunk) {
  using G = Ring<RADIUS, BX, BY, VXT, PYT, D>;
  auto k = ring<RADIUS, BX, BY, VXT, PYT, D, MINB>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::smem));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, k));
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, BX * BY, G::smem));
  const dim3 grid((N + G::TW - 1) / G::TW, (N - 2 * RADIUS + G::TH - 1) / G::TH, (N - 2 * RADIUS + zchunk - 1) / zchunk);
  char name[200];
  std::snprintf(name, sizeof name, "ring %dx%d vx%d py%d D%d zc%d mb%d [r%d s%zuK b%d g%u] #%d", BX, BY, VXT, PYT, D, zchunk, MINB, fa.numRegs,
                G::smem / 1024, blocks, grid.x * grid.y * grid.z, pass);
  run(name, [&] { k<<<grid, dim3(BX, BY), G::smem>>>(d_in, d_out, d_c, N, N, N, zchunk); });
}

// The project's RING kernel (stencil3d.cu, RING_DEPTH 3), launched as stencil3d.cpp launches it.
template <int BX, int BY, int VXT, int PYT, int ZC>
static void proj_ring_case(void (*k)(const float*, float*, const float*, int, int, int)) {
  constexpr int CH = 4, ALIGN = VXT > CH ? VXT : CH, LEAD = (RADIUS + ALIGN - 1) / ALIGN * ALIGN;
  constexpr int TW = BX * VXT, TH = BY * PYT;
  constexpr size_t smem = 4 * ((TH + 2 * RADIUS) * (TW + 2 * LEAD) + TH * TW) * sizeof(float);
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, k));
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, BX * BY, smem));
  const dim3 grid((N + TW - 1) / TW, (N - 2 * RADIUS + TH - 1) / TH, (N - 2 * RADIUS + ZC - 1) / ZC);
  char name[200];
  std::snprintf(name, sizeof name, "proj RING %dx%d vx%d py%d zc%d [r%d s%zuK b%d g%u] #%d", BX, BY, VXT, PYT, ZC, fa.numRegs, smem / 1024, blocks,
                grid.x * grid.y * grid.z, pass);
  run(name, [&] { k<<<grid, dim3(BX, BY), smem>>>(d_in, d_out, d_c, N, N, N); });
}

int main(int argc, char** argv) {
  only = argc > 1 ? argv[1] : "";
  const size_t count = (size_t)N * N * N, bytes = count * sizeof(float);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  CK(cudaMalloc(&d_in, bytes));
  CK(cudaMalloc(&d_out, bytes));
  CK(cudaMalloc(&d_ref, bytes));
  CK(cudaMalloc(&d_c, sizeof(float) * (RADIUS + 1)));
  {
    std::vector<float> h(count);
    unsigned s = 12345;
    for (auto& v : h) s = s * 1664525u + 1013904223u, v = (s >> 8) * (1.0f / 16777216.0f) * 2 - 1;
    CK(cudaMemcpy(d_in, h.data(), bytes, cudaMemcpyHostToDevice));
    float c[RADIUS + 1];
    c[0] = -0.5f;
    for (int r = 1; r <= RADIUS; ++r) c[r] = 0.25f / (r * r * 3);
    CK(cudaMemcpy(d_c, c, sizeof c, cudaMemcpyHostToDevice));
  }
  {  // device-to-device copy, as the tuner measures it (bytes read + written)
    const double ms = time_ms([&] { CK(cudaMemcpyAsync(d_ref, d_in, bytes, cudaMemcpyDeviceToDevice)); }, 25);
    copy_gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    std::printf("copy %.4f ms %.0f GB/s\n", ms, copy_gbs);
  }
  CK(cudaMemset(d_ref, 0xff, bytes));
  reference<RADIUS><<<dim3(N / 32, N / 8, N), dim3(32, 8)>>>(d_in, d_ref, d_c, N, N, N);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  run("proj BASE+INTZ 64x8 vx4 py1 zc8", [&] {
    proj::stencil3d<RADIUS><<<dim3(N / 256, (N - 8 + 7) / 8, (N - 8 + 7) / 8), dim3(64, 8)>>>(d_in, d_out, d_c, N, N, N);
  });

  for (pass = 1; pass <= 2; ++pass) {
    proj_ring_case<pr1::bx, pr1::by, pr1::vx, pr1::py, pr1::zc>(pr1::stencil3d<RADIUS>);
    proj_ring_case<pr2::bx, pr2::by, pr2::vx, pr2::py, pr2::zc>(pr2::stencil3d<RADIUS>);
    proj_ring_case<pr3::bx, pr3::by, pr3::vx, pr3::py, pr3::zc>(pr3::stencil3d<RADIUS>);
    proj_ring_case<pr4::bx, pr4::by, pr4::vx, pr4::py, pr4::zc>(pr4::stencil3d<RADIUS>);
#include "stencil_r4_cases.inc"
  }

  std::sort(results.begin(), results.end(), [](const Result& a, const Result& b) { return a.ms < b.ms; });
  std::printf("\nbest (copy %.0f GB/s):\n", copy_gbs);
  for (size_t i = 0; i < results.size() && i < 30; ++i)
    std::printf("%-48s %8.4f ms %6.1f%% err %.2e\n", results[i].name.c_str(), results[i].ms, results[i].pct, results[i].err);
  return 0;
}
