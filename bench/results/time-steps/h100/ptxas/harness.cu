// Runs one STREAM configuration of stencil3d.cu on the GPU and reports where it differs from the host reference.
#include <cstdio>
#include <cmath>
#include <vector>
#include <random>
#include KERNEL
int main(int argc, char** argv) {
  const int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]);
  const int gx = atoi(argv[4]), gy = atoi(argv[5]), gz = atoi(argv[6]), smem = atoi(argv[7]);
  const long n = (long)nx * ny * nz;
  std::vector<REAL> in(n), out(n, REAL(-99));
  std::mt19937 rng(1); std::uniform_real_distribution<double> d(0.5, 1.5);
  for (auto& v : in) v = d(rng);
  REAL c[RR + 1]; c[0] = -0.5; for (int r = 1; r <= RR; ++r) c[r] = 0.25 / (r * r * 3);
  REAL *din, *dout, *dc;
  cudaMalloc(&din, n * sizeof(REAL)); cudaMalloc(&dout, n * sizeof(REAL)); cudaMalloc(&dc, sizeof c);
  cudaMemcpy(din, in.data(), n * sizeof(REAL), cudaMemcpyHostToDevice);
  cudaMemcpy(dout, out.data(), n * sizeof(REAL), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(stencil3d<RR>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  stencil3d<RR><<<dim3(gx, gy, gz), dim3(BLOCK_X, BLOCK_Y), smem>>>(din, dout, dc, nx, ny, nz);
  cudaError_t e = cudaDeviceSynchronize();
  printf("launch: %s\n", cudaGetErrorString(e));
  cudaMemcpy(out.data(), dout, n * sizeof(REAL), cudaMemcpyDeviceToHost);
  std::vector<REAL> in_after(n);
  cudaMemcpy(in_after.data(), din, n * sizeof(REAL), cudaMemcpyDeviceToHost);
  long in_changed = 0; for (long i = 0; i < n; ++i) in_changed += in_after[i] != in[i];
  std::vector<double> a(in.begin(), in.end()), b = a;
  for (int s = 0; s < FUSED_STEPS; ++s) {
    b = a;
    for (int z = RR; z < nz - RR; ++z) for (int y = RR; y < ny - RR; ++y) for (int x = RR; x < nx - RR; ++x) {
      long at = ((long)z * ny + y) * nx + x; double sum = c[0] * a[at];
      for (int r = 1; r <= RR; ++r) sum += c[r] * (a[at - r] + a[at + r] + a[at - r * nx] + a[at + r * nx] + a[at - (long)r * nx * ny] + a[at + (long)r * nx * ny]);
      b[at] = sum;
    }
    std::swap(a, b);
  }
  long bad = 0, unwritten = 0, face = 0; int shown = 0;
  std::vector<long> bad_x(nx), bad_y(ny), bad_z(nz);
  for (int z = 0; z < nz; ++z) for (int y = 0; y < ny; ++y) for (int x = 0; x < nx; ++x) {
    long at = ((long)z * ny + y) * nx + x;
    bool interior = x >= RR && x < nx - RR && y >= RR && y < ny - RR && z >= RR && z < nz - RR;
    if (!interior) { face += out[at] != REAL(-99); continue; }
    if (out[at] == REAL(-99)) { ++unwritten; ++bad_x[x]; ++bad_y[y]; ++bad_z[z]; if (shown++ < 8) printf("unwritten %d %d %d\n", x, y, z); continue; }
    if (std::fabs(out[at] - a[at]) > 1e-5 * (1 + std::fabs(a[at]))) { ++bad; ++bad_x[x]; ++bad_y[y]; ++bad_z[z]; if (shown++ < 8) printf("bad %d %d %d: %g vs %g\n", x, y, z, (double)out[at], a[at]); }
  }
  printf("bad %ld unwritten %ld face-written %ld input-changed %ld\n", bad, unwritten, face, in_changed);
  printf("bad by x:"); for (int x = 0; x < nx; ++x) if (bad_x[x]) printf(" %d:%ld", x, bad_x[x]); printf("\n");
  printf("bad by y:"); for (int y = 0; y < ny; ++y) if (bad_y[y]) printf(" %d:%ld", y, bad_y[y]); printf("\n");
  printf("bad by z:"); for (int z = 0; z < nz; ++z) if (bad_z[z]) printf(" %d:%ld", z, bad_z[z]); printf("\n");
}
