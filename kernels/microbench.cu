// Microbenchmarks for `blocktune characterize` (the method of seed 004:
// pointer chasing for latencies, with the cost of reading the clock measured
// and removed; saturating kernels for throughputs), compiled with NVRTC.
// Every kernel writes something that depends on its work, so none is optimised away.

// Cycles two back-to-back clock reads take: subtracted from every timed chase.
extern "C" __global__ void clock_overhead(long long* cycles) {
  const long long start = clock64();
  const long long stop = clock64();
  cycles[0] = stop - start;
}

// One thread follows `steps` links of `next` from 0, once to warm the caches
// and once timed. `bypass_l1` reads through L2 only (ld.global.cg).
extern "C" __global__ void chase_global(const unsigned* next, int steps, int bypass_l1, unsigned* sink, long long* cycles) {
  unsigned j = 0;
  for (int i = 0; i < steps; ++i) j = bypass_l1 ? __ldcg(next + j) : next[j];
  const long long start = clock64();
  for (int i = 0; i < steps; ++i) j = bypass_l1 ? __ldcg(next + j) : next[j];
  const long long stop = clock64();
  sink[0] = j;
  cycles[0] = stop - start;
}

// The same in shared memory: links i -> (i + stride) mod count.
extern "C" __global__ void chase_shared(int count, int stride, int steps, unsigned* sink, long long* cycles) {
  __shared__ unsigned next[4096];
  for (int i = threadIdx.x; i < count; i += blockDim.x) next[i] = (i + stride) % count;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned j = 0;
  const long long start = clock64();
  for (int i = 0; i < steps; ++i) j = next[j];
  const long long stop = clock64();
  sink[0] = j;
  cycles[0] = stop - start;
}

// A dependent chain: latency per operation (one thread); or, with many
// threads and 8 independent chains each, throughput.
extern "C" __global__ void fma_chain(int steps, float a, float b, float* sink, long long* cycles) {
  float x[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) x[c] = threadIdx.x + c;
  const long long start = clock64();
  for (int i = 0; i < steps; ++i) {
#pragma unroll
    for (int c = 0; c < 8; ++c) x[c] = fmaf(x[c], a, b);
  }
  const long long stop = clock64();
  float sum = 0;
#pragma unroll
  for (int c = 0; c < 8; ++c) sum += x[c];
  if (sum == 12345.0f) sink[0] = sum;
  if (blockIdx.x == 0 && threadIdx.x == 0) cycles[0] = stop - start;
}

// One dependent chain of FMAs in one thread: FMA latency.
extern "C" __global__ void fma_latency(int steps, float a, float b, float* sink, long long* cycles) {
  float x = threadIdx.x;
  const long long start = clock64();
  for (int i = 0; i < steps; ++i) x = fmaf(x, a, b);
  const long long stop = clock64();
  sink[0] = x;
  cycles[0] = stop - start;
}

// Special-function unit (MUFU): __sinf chains, one (latency) or 8 independent per thread (throughput).
extern "C" __global__ void sfu_chain(int steps, int chains, float* sink, long long* cycles) {
  float x[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) x[c] = 0.001f * (threadIdx.x + c);
  const long long start = clock64();
  if (chains == 1) {
    for (int i = 0; i < steps; ++i) x[0] = __sinf(x[0]);
  } else {
    for (int i = 0; i < steps; ++i) {
#pragma unroll
      for (int c = 0; c < 8; ++c) x[c] = __sinf(x[c]);
    }
  }
  const long long stop = clock64();
  float sum = 0;
#pragma unroll
  for (int c = 0; c < 8; ++c) sum += x[c];
  if (sum == 12345.0f || (chains == 1 && blockIdx.x == 0 && threadIdx.x == 0)) sink[0] = sum;
  if (blockIdx.x == 0 && threadIdx.x == 0) cycles[0] = stop - start;
}

// Each block reads its own slice of `count` float4 `passes` times with
// 16-byte loads that skip L1; the slices together fit in L2, so after the
// first pass this is the L2-to-SM bandwidth for data spread over both L2
// partitions, as a kernel's working set is.
extern "C" __global__ void read_l2(const float4* data, int count, int passes, float* sink) {
  const float4* slice = data + static_cast<long long>(blockIdx.x) * count;
  float4 sum = make_float4(0, 0, 0, 0);
  for (int p = 0; p < passes; ++p)
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      const float4 v = __ldcg(slice + i);
      sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
  if (sum.x + sum.y + sum.z + sum.w == 12345.0f) sink[0] = sum.x;
}

// Each thread reads shared memory words that sit in distinct banks, `steps` times.
extern "C" __global__ void read_shared(int steps, float* sink) {
  __shared__ float4 tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) tile[i] = make_float4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  float4 sum = make_float4(0, 0, 0, 0);
  unsigned at = threadIdx.x;
  for (int i = 0; i < steps; ++i) {
    const float4 v = tile[at % 1024];
    sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    at += 32;
  }
  if (sum.x + sum.y + sum.z + sum.w == 12345.0f) sink[0] = sum.x;
}

// Nothing: its launches measure the launch overhead.
extern "C" __global__ void empty_kernel() {}
