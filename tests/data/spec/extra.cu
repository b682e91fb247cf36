// The reference kernel of the spec tests, in a second source file.
extern "C" __global__ void scale_reference(float* out, const float* in, const double* weights, const float* table,
                                           const int* noise, float factor, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i] * factor * (float)weights[1] + table[i % 2] + 0.0f * noise[i];
}
