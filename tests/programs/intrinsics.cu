// The device language beyond the basics: bit and conversion intrinsics, min/max, cache-hinted
// loads and stores, warp reductions and matches, clock64, vector types, half and bfloat16,
// kernels with default arguments and two template arguments, and __CUDA_ARCH__.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "check.h"

struct Out {
  int clz, ffs, popc, min_i, max_u;
  unsigned brev, perm, funnel, reduce_add, reduce_max, match, match_all;
  int f2i_rn, f2i_rz, f2i_ru, f2i_rd, has_arch, ticks;
  float half_back, bf16_back, vec_sum, halves;
  double d4;
};

template <typename T, int Scale>
__global__ void scaled(const T* in, T* out, int n, T bias = T(1)) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __stcs(&out[i], __ldcs(&in[i]) * Scale + bias);
}

__global__ void language(Out* o, const uchar4* bytes, const double4* d) {
  int lane = threadIdx.x;
  unsigned sum = __reduce_add_sync(0xffffffff, lane);
  unsigned top = __reduce_max_sync(0xffffffff, (unsigned)lane);
  unsigned same = __match_any_sync(0xffffffff, lane / 8);
  int pred = 0;
  unsigned all = __match_all_sync(0xffffffff, 5, &pred);
  long long t0 = clock64();
  if (lane == 9) {
    o->clz = __clz(1 << 20);
    o->ffs = __ffs(0x50);
    o->popc = __popc(0xF0F0u);
    o->brev = __brev(1u);
    o->perm = __byte_perm(0x33221100u, 0x77665544u, 0x5140);
    o->funnel = __funnelshift_l(0x80000000u, 0x1u, 1);
    o->min_i = min(-3, 4);
    o->max_u = max(3u, 7u);
    o->reduce_add = sum;
    o->reduce_max = top;
    o->match = same;
    o->match_all = pred ? all : 0;
    o->f2i_rn = __float2int_rn(2.5f);
    o->f2i_rz = __float2int_rz(-2.7f);
    o->f2i_ru = __float2int_ru(2.1f);
    o->f2i_rd = __float2int_rd(-2.1f);
#ifdef __CUDA_ARCH__
    o->has_arch = __CUDA_ARCH__ >= 700;
#endif
    o->ticks = clock64() >= t0;
    __half h = __float2half(1.0f / 3.0f);
    o->half_back = __half2float(h);
    o->bf16_back = __bfloat162float(__float2bfloat16(1.0f / 3.0f));
    o->halves = __half2float(__hadd(__float2half(1.5f), __float2half(2.25f)));
    uchar4 b = __ldg(bytes);
    o->vec_sum = b.x + b.y + b.z + b.w;
    o->d4 = d->x + d->y + d->z + d->w;
  }
}

int main() {
  Out* o;
  uchar4* bytes;
  double4* d;
  CHECK(cudaMallocManaged(&o, sizeof(Out)));
  CHECK(cudaMallocManaged(&bytes, sizeof(uchar4)));
  CHECK(cudaMallocManaged(&d, sizeof(double4)));
  *bytes = make_uchar4(1, 2, 3, 250);
  *d = make_double4(0.5, 0.25, 0.125, 0.0625);
  language<<<1, 32>>>(o, bytes, d);
  CHECK(cudaDeviceSynchronize());
  std::printf("clz %d ffs %d popc %d brev %08x perm %08x funnel %08x min %d max %d\n", o->clz, o->ffs, o->popc, o->brev,
              o->perm, o->funnel, o->min_i, o->max_u);
  std::printf("reduce add %u max %u match %08x match_all %08x\n", o->reduce_add, o->reduce_max, o->match, o->match_all);
  std::printf("float2int rn %d rz %d ru %d rd %d; __CUDA_ARCH__ %d; clock64 runs %d\n", o->f2i_rn, o->f2i_rz, o->f2i_ru,
              o->f2i_rd, o->has_arch, o->ticks);
  std::printf("half %.8f bfloat16 %.8f half add %.3f uchar4 %.0f double4 %.4f\n", o->half_back, o->bf16_back, o->halves,
              o->vec_sum, o->d4);

  const int n = 5;
  float *in, *out;
  CHECK(cudaMallocManaged(&in, n * sizeof(float)));
  CHECK(cudaMallocManaged(&out, n * sizeof(float)));
  for (int i = 0; i < n; ++i) in[i] = i;
  scaled<float, 3><<<1, 32>>>(in, out, n);  // the default bias, 1
  CHECK(cudaDeviceSynchronize());
  std::printf("scaled:");
  for (int i = 0; i < n; ++i) std::printf(" %.0f", out[i]);
  scaled<float, 2><<<1, 32>>>(in, out, n, 0.5f);
  CHECK(cudaDeviceSynchronize());
  std::printf(" |");
  for (int i = 0; i < n; ++i) std::printf(" %.1f", out[i]);
  std::printf("\n");
  cudaFree(o);
  cudaFree(bytes);
  cudaFree(d);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
