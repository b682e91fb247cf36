// A 1D blur written the way Kernel Tuner users write kernels: the tuned macros
// are lower-case, tested with #ifndef, and the weights live in constant memory.
// blocktune tunes it from its T1 file (blur-t1.json) and the spec that extends
// that file with what T1 cannot say (spec.json). The radius is tuned too: it
// changes the weights' and the input's sizes and the result.
#ifndef kernel_tuner
#define block_size_x 128
#define items_per_thread 1
#define use_ldg 0
#endif

#ifndef radius
#define radius 4
#endif

__constant__ float weights[2 * radius + 1];

#if use_ldg
#define load(p) __ldg(p)
#else
#define load(p) (*(p))
#endif

// out[i] = scale * sum_k weights[k] * in[i + k] for the n outputs; `in` holds n + 2 * radius values.
extern "C" __global__ void blur(float* out, const float* in, const float scale, const int n) {
  const int first = (blockIdx.x * block_size_x) * items_per_thread + threadIdx.x;
#pragma unroll
  for (int item = 0; item < items_per_thread; ++item) {
    const int i = first + item * block_size_x;
    if (i < n) {
      float sum = 0.0f;
#pragma unroll
      for (int k = 0; k <= 2 * radius; ++k) sum += weights[k] * load(in + i + k);
      out[i] = scale * sum;
    }
  }
}

// The reference: one output per thread, the weights passed as they are written down.
extern "C" __global__ void blur_reference(float* out, const float* in, const float scale, const int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sum = 0.0f;
    for (int k = 0; k <= 2 * radius; ++k) sum += weights[k] * in[i + k];
    out[i] = scale * sum;
  }
}
