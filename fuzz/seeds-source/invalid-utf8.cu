// ÿ
template <int TILE>
__global__ void scale(float* out, const float* in, float factor, int n) { out[0] = UNROLL; }
