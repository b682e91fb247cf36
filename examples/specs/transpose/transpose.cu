// out = transpose(in) in FP32: `in` has ny rows of nx elements, `out` has nx
// rows of ny elements, any sizes.
//
// Each block moves a TILE x TILE tile through shared memory so that both the
// reads of `in` and the writes of `out` are along rows (coalesced); its
// TILE x BLOCK_ROWS threads each move TILE / BLOCK_ROWS elements. PAD = 1 adds
// a column to the shared tile so that reading it by columns hits 32 banks.
// Tuned through defines: TILE, BLOCK_ROWS, PAD.
extern "C" __global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  __shared__ float tile[TILE][TILE + PAD];
  const int x = blockIdx.x * TILE + threadIdx.x;
  const int y0 = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int r = 0; r < TILE; r += BLOCK_ROWS)
    if (x < nx && y0 + r < ny) tile[threadIdx.y + r][threadIdx.x] = in[(long long)(y0 + r) * nx + x];
  __syncthreads();
  // The block's tile seen from `out`: its columns become rows.
  const int out_x = blockIdx.y * TILE + threadIdx.x;
  const int out_y0 = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int r = 0; r < TILE; r += BLOCK_ROWS)
    if (out_x < ny && out_y0 + r < nx) out[(long long)(out_y0 + r) * ny + out_x] = tile[threadIdx.x][threadIdx.y + r];
}
