// out[i] = 2 * in[i], and variants that fail in every way a tuned kernel can,
// chosen by MODE. blocktune must record each failure and go on.
#define GOOD 0         // correct
#define SLOW 1         // correct, with wasted work
#define OOB_WRITE 2    // writes far outside the output: illegal address
#define MISALIGNED 3   // a 16-byte load from a 4-byte-aligned address (the H100 returns wrong data, no fault)
#define TRAP 4         // __trap(): an illegal instruction
#define SPIN 5         // never finishes
#define WRONG 6        // a wrong result
#define NO_COMPILE 7   // does not compile
#define BIG_SMEM 8     // correct, but launched with more shared memory than any GPU has

#if MODE == NO_COMPILE
#error "this variant deliberately fails to compile"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_X) faults(const float* in, float* out, int n) {
  const int i = blockIdx.x * BLOCK_X + threadIdx.x;
  if (i >= n) return;
#if MODE == OOB_WRITE
  out[i + (1 << 30)] = in[i];
#elif MODE == MISALIGNED
  // Inline PTX, so the compiler cannot split the 16-byte load into aligned parts.
  float4 v;
  asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(in + 1 + 4 * (i / 4)));
  out[i] = 2.0f * v.x;
#elif MODE == TRAP
  if (i == n / 2) __trap();
  out[i] = 2.0f * in[i];
#elif MODE == SPIN
  for (;;) __nanosleep(1000);
#elif MODE == WRONG
  out[i] = 2.0f * in[i] + 1.0f;
#elif MODE == SLOW
  float x = in[i];
  for (int k = 0; k < 64; ++k) x = x * 1.0000001f;
  out[i] = 2.0f * (x > 1e30f ? 0.0f : in[i]);
#else
  out[i] = 2.0f * in[i];
#endif
}
