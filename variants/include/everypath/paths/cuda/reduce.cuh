// The cuda path of full sums: each block folds a grid-stride slice with a
// shared-memory tree, block partials are summed on the host in block order, so
// the result is deterministic for a given grid.
#pragma once

#include <vector>

#include "runtime.cuh"

namespace ep::cuda {

template <class R, class T, unsigned Threads>
__global__ void sum_kernel(const T* __restrict__ in, index_t n, R* __restrict__ partial) {
  __shared__ R s[Threads];
  R acc = R(0);
  for (index_t i = blockIdx.x * static_cast<index_t>(Threads) + threadIdx.x; i < n;
       i += static_cast<index_t>(Threads) * gridDim.x)
    acc += static_cast<R>(in[i]);
  s[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned w = Threads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

template <class R, class T>
R sum_contiguous(const T* in, index_t n) {
  if (n == 0) return R(0);
  constexpr unsigned threads = 256;
  const unsigned blocks = blocks_for(n, threads) < 1024 ? blocks_for(n, threads) : 1024;
  DeviceBuffer<T> d_in(in, n);
  DeviceBuffer<R> d_part(blocks);
  sum_kernel<R, T, threads><<<blocks, threads>>>(d_in.ptr, n, d_part.ptr);
  check(cudaGetLastError(), "sum kernel launch");
  std::vector<R> part(blocks);
  d_part.to_host(part.data());
  R total = R(0);
  for (R p : part) total += p;
  return total;
}

}  // namespace ep::cuda
