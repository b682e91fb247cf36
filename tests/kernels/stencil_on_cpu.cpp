// PLANE's kernel (kernels/stencil3d.cu) run on the CPU, no GPU needed: each
// block's threads are std::threads meeting at a std::barrier for
// __syncthreads(), shared memory is one buffer (blocks run one after the
// other), and cp.async falls back to the plain copies the kernel has for
// architectures without it. Built once per configuration (tests/kernels/CMakeLists.txt
// passes its defines); checks fused_steps steps of the kernel against as many
// steps of a double-precision reference, that no face point is written, and
// that both of the kernel's walks (tiles near a face and tiles away from every
// face) ran. It checks the coding's logic, not the compiler: ptxas has
// miscompiled a correct coding of it (bench/results/time-steps/h100/README.md).
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {
struct dim3 {
  unsigned x = 0, y = 0, z = 0;
};
thread_local dim3 threadIdx;
dim3 blockIdx;
std::barrier<>* block_barrier = nullptr;
void __syncthreads() { block_barrier->arrive_and_wait(); }
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) double2 { double x, y; };
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
inline float2 make_float2(float a, float b) { return {a, b}; }
inline double2 make_double2(double a, double b) { return {a, b}; }
using std::max;
using std::min;
}  // namespace

alignas(16) unsigned char shared_bytes[232448];  // an H100's shared memory per block

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(...)
#define __shared__
#define __align__(n)
#include "stencil3d.cu"

int main() {
  using T = PlaneTile<RADIUS>;
  const int nx = NX, ny = NY, nz = NZ;
  const long n = long(nx) * ny * nz;
  std::vector<REAL> in(n), out(n, REAL(-99));
  std::mt19937 random(7);
  std::uniform_real_distribution<double> value(0.5, 1.5);
  for (REAL& v : in) v = REAL(value(random));
  REAL c[RADIUS + 1];
  c[0] = REAL(-0.5);
  for (int r = 1; r <= RADIUS; ++r) c[r] = REAL(0.25 / (r * r * 3));

  // The grid stencil3d.cpp launches for PLANE.
  const auto tiles = [](int points, int tile, int step) { return 1 + unsigned(std::max(0, points - tile) + step - 1) / step; };
  const unsigned grid_x = tiles(nx, T::TW, T::OW), grid_y = tiles(ny, T::TH, T::OH);
  const unsigned grid_z = (nz - 2 * RADIUS + Z_CHUNK - 1) / Z_CHUNK;
  int near_face_blocks = 0, inner_blocks = 0;
  for (unsigned bz = 0; bz < grid_z; ++bz)
    for (unsigned by = 0; by < grid_y; ++by)
      for (unsigned bx = 0; bx < grid_x; ++bx) {
        const int x_tile = int(bx) * T::OW, y_tile = int(by) * T::OH;
        const bool near_face = x_tile < RADIUS || x_tile + T::TW > nx - RADIUS || y_tile < RADIUS || y_tile + T::TH > ny - RADIUS;
        ++(near_face ? near_face_blocks : inner_blocks);
        blockIdx = {bx, by, bz};
        std::memset(shared_bytes, 0xff, sizeof shared_bytes);  // NaN: a read of what nothing wrote shows
        std::barrier<> barrier(BLOCK_X * BLOCK_Y);
        block_barrier = &barrier;
        std::vector<std::jthread> threads;
        for (unsigned ty = 0; ty < BLOCK_Y; ++ty)
          for (unsigned tx = 0; tx < BLOCK_X; ++tx)
            threads.emplace_back([&, tx, ty] {
              threadIdx = {tx, ty, 0};
              stencil3d<RADIUS>(in.data(), out.data(), c, nx, ny, nz);
            });
      }

  std::vector<double> now(in.begin(), in.end()), next = now;
  for (int step = 0; step < FUSED_STEPS; ++step) {
    for (int z = RADIUS; z < nz - RADIUS; ++z)
      for (int y = RADIUS; y < ny - RADIUS; ++y)
        for (int x = RADIUS; x < nx - RADIUS; ++x) {
          const long at = (long(z) * ny + y) * nx + x;
          double sum = c[0] * now[at];
          for (long r = 1; r <= RADIUS; ++r)
            sum += c[r] * (now[at - r] + now[at + r] + now[at - r * nx] + now[at + r * nx] + now[at - r * nx * ny] + now[at + r * nx * ny]);
          next[at] = sum;
        }
    std::swap(now, next);
  }
  double error = 0, norm = 0;
  long face_written = 0;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const long at = (long(z) * ny + y) * nx + x;
        if (x < RADIUS || x >= nx - RADIUS || y < RADIUS || y >= ny - RADIUS || z < RADIUS || z >= nz - RADIUS) {
          face_written += out[at] != REAL(-99);
          continue;
        }
        error += (out[at] - now[at]) * (out[at] - now[at]);
        norm += now[at] * now[at];
      }
  const double relative = std::sqrt(error / norm), tolerance = sizeof(REAL) == 8 ? 1e-12 : 1e-5;
  std::printf("%s: %u x %u x %u blocks (%d near a face, %d not), relative error %.3g (tolerance %g), %ld face points written\n", CONFIG_NAME,
              grid_x, grid_y, grid_z, near_face_blocks, inner_blocks, relative, tolerance, face_written);
  const bool ok = relative <= tolerance && face_written == 0 && near_face_blocks > 0 && inner_blocks > 0;
  if (!ok) std::printf("FAILED\n");
  return ok ? 0 : 1;
}
