// The cuda path of matrix products: a 16 x 16 shared-memory tiled GEMM,
// C[n, m] = A[n, k] @ B[k, m], row-major, float or double.
#pragma once

#include "runtime.cuh"

namespace ep::cuda {

template <class R, int Tile>
__global__ void gemm_kernel(const R* __restrict__ A, const R* __restrict__ B, R* __restrict__ C, index_t n,
                            index_t k, index_t m) {
  __shared__ R a[Tile][Tile];
  __shared__ R b[Tile][Tile];
  const index_t row = blockIdx.y * static_cast<index_t>(Tile) + threadIdx.y;
  const index_t col = blockIdx.x * static_cast<index_t>(Tile) + threadIdx.x;
  R acc = R(0);
  for (index_t t = 0; t < k; t += Tile) {
    a[threadIdx.y][threadIdx.x] = (row < n && t + threadIdx.x < k) ? A[row * k + t + threadIdx.x] : R(0);
    b[threadIdx.y][threadIdx.x] = (col < m && t + threadIdx.y < k) ? B[(t + threadIdx.y) * m + col] : R(0);
    __syncthreads();
    for (int q = 0; q < Tile; ++q) acc += a[threadIdx.y][q] * b[q][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < m) C[row * m + col] = acc;
}

template <class R>
void gemm_contiguous(const R* A, const R* B, R* C, index_t n, index_t k, index_t m) {
  if (n == 0 || m == 0) return;
  constexpr int tile = 16;
  DeviceBuffer<R> dA(A, n * k), dB(B, k * m), dC(n * m);
  dim3 threads(tile, tile);
  dim3 grid(static_cast<unsigned>((m + tile - 1) / tile), static_cast<unsigned>((n + tile - 1) / tile));
  gemm_kernel<R, tile><<<grid, threads>>>(dA.ptr, dB.ptr, dC.ptr, n, k, m);
  check(cudaGetLastError(), "gemm kernel launch");
  check(cudaDeviceSynchronize(), "gemm kernel");
  dC.to_host(C);
}

}  // namespace ep::cuda
