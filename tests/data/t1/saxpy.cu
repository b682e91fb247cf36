// A kernel written for Kernel Tuner, for the T1 tests: its tuned macros are
// lower-case and it keeps its own defaults unless kernel_tuner is defined.
#ifndef kernel_tuner
#define block_size_x 64
#define work_per_thread 1
#endif
extern "C" __global__ void saxpy(float* y, const float* x, const float a, const int n) {
  const int first = (blockIdx.x * block_size_x * block_size_y + threadIdx.x) * work_per_thread;
  for (int i = first; i < first + work_per_thread && i < n; ++i) y[i] += a * x[i];
}
