// Asks the tuning database for the best configuration of "stencil3d" on this
// GPU at start-up, then launches a 7-point 3D stencil with it and checks the
// result against the CPU. Runs on a GPU that was never tuned too: the answer
// then comes from a fallback level, or from the built-in default below.
//
//   stencil_app [DATABASE [N]]    (default database: $BLOCKTUNE_DB or ~/.local/share/blocktune/tuning.db)
#include <blocktune/runtime.hpp>

#include "stencil7.cuh"  // the kernel, shared with its tuning spec (stencil7.json)

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "stencil_app: %s failed: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

void stencil_on_cpu(const std::vector<float>& in, std::vector<float>& out, int nx, int ny, int nz) {
  const long long sy = nx, sz = static_cast<long long>(nx) * ny;
  for (int k = 1; k < nz - 1; ++k)
    for (int j = 1; j < ny - 1; ++j)
      for (int i = 1; i < nx - 1; ++i) {
        const long long at = k * sz + j * sy + i;
        out[at] = center * in[at] +
                  neighbour * (in[at - 1] + in[at + 1] + in[at - sy] + in[at + sy] + in[at - sz] + in[at + sz]);
      }
}

unsigned blocks_for(int extent, int per_block) { return static_cast<unsigned>((extent + per_block - 1) / per_block); }

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path database = argc > 1 ? std::filesystem::path(argv[1]) : blocktune::default_database_path();
  const int n = argc > 2 ? std::atoi(argv[2]) : 128;
  if (n < 3) {
    std::fprintf(stderr, "stencil_app: N must be at least 3\n");
    return 1;
  }

  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  const blocktune::DeviceKey key{blocktune::format_gpu_uuid(properties.uuid.bytes), properties.name,
                                 properties.major, properties.minor, properties.multiProcessorCount};
  std::printf("device: %s (sm_%d%d, %d SMs, %s)\n", key.name.c_str(), key.cc_major, key.cc_minor, key.sm_count,
              key.uuid.c_str());

  // Built-in default, for when the database has nothing to say.
  blocktune::LaunchShape shape{{32, 4, 2}, -1};
  int z_per_thread = 1;
  try {
    const auto db = blocktune::TuningDatabase::open(database);
    const blocktune::BestConfig& best = db.best("stencil3d", key, blocktune::ProblemSize{{n, n, n}});
    std::printf("%s\n", blocktune::format_best(best).c_str());
    const auto& block = best.shape.block;
    const bool fits = best.shape.threads() <= properties.maxThreadsPerBlock &&
                      block[0] <= properties.maxThreadsDim[0] && block[1] <= properties.maxThreadsDim[1] &&
                      block[2] <= properties.maxThreadsDim[2];
    if (best.found() && fits) {
      shape = best.shape;
      z_per_thread = std::max(1, best.get_int("z_per_thread", 1));
    } else if (best.found()) {
      std::printf("that block does not fit this GPU: using the built-in default\n");
    } else {
      std::printf("using the built-in default\n");
    }
  } catch (const blocktune::StoreError& error) {
    std::printf("no tuning results (%s): using the built-in default\n", error.what());
  }
  std::printf("launch: block %dx%dx%d, z_per_thread %d, carveout %d, grid %d^3\n", shape.block[0], shape.block[1],
              shape.block[2], z_per_thread, shape.carveout, n);

  const std::size_t count = static_cast<std::size_t>(n) * n * n;
  std::vector<float> in(count), expected(count), got(count);
  for (std::size_t i = 0; i < count; ++i) in[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f;
  expected = in;  // faces stay as they are
  stencil_on_cpu(in, expected, n, n, n);

  float *in_gpu = nullptr, *out_gpu = nullptr;
  check(cudaMalloc(&in_gpu, count * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&out_gpu, count * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(in_gpu, in.data(), count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy to the GPU");
  check(cudaMemcpy(out_gpu, in.data(), count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy to the GPU");
  if (shape.carveout >= 0)
    check(cudaFuncSetAttribute(stencil7, cudaFuncAttributePreferredSharedMemoryCarveout, shape.carveout),
          "setting the shared memory carveout");

  const dim3 block(shape.block[0], shape.block[1], shape.block[2]);
  const dim3 grid(blocks_for(n - 2, shape.block[0]), blocks_for(n - 2, shape.block[1]),
                  blocks_for(blocks_for(n - 2, z_per_thread), shape.block[2]));
  stencil7<<<grid, block>>>(in_gpu, out_gpu, n, n, n, z_per_thread);
  check(cudaGetLastError(), "launching stencil7");
  check(cudaDeviceSynchronize(), "running stencil7");
  check(cudaMemcpy(got.data(), out_gpu, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy from the GPU");
  check(cudaFree(in_gpu), "cudaFree");
  check(cudaFree(out_gpu), "cudaFree");

  double worst = 0;
  for (std::size_t i = 0; i < count; ++i) worst = std::max(worst, std::abs(double(got[i]) - double(expected[i])));
  std::printf("max difference to the CPU: %.3g -> %s\n", worst, worst < 1e-5 ? "ok" : "WRONG");
  return worst < 1e-5 ? 0 : 1;
}
