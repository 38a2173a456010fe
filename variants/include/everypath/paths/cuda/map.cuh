// The cuda path of element-wise expressions: one grid-stride kernel per fused
// expression. The functor is the same generic lambda body the loops path uses,
// compiled for the device (nvcc --extended-lambda), so semantics match per element.
#pragma once

#include "runtime.cuh"

namespace ep::cuda {

template <class Out, class F, class... T>
__global__ void map_kernel(Out* __restrict__ out, index_t n, F f, const T* __restrict__... in) {
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<index_t>(blockDim.x) * gridDim.x)
    out[i] = static_cast<Out>(f(in[i]...));
}

// out[i] = f(in[i]...) for contiguous host arrays of n elements each
template <class Out, class F, class... T>
void map_contiguous(Out* out, index_t n, F f, const T*... in) {
  if (n == 0) return;
  DeviceBuffer<Out> d_out(n);
  // one device copy per operand, alive until the kernel has finished
  auto run = [&](const DeviceBuffer<T>&... d_in) {
    constexpr unsigned threads = 256;
    map_kernel<Out><<<blocks_for(n, threads), threads>>>(d_out.ptr, n, f, d_in.ptr...);
    check(cudaGetLastError(), "map kernel launch");
    check(cudaDeviceSynchronize(), "map kernel");
  };
  run(DeviceBuffer<T>(in, n)...);
  d_out.to_host(out);
}

}  // namespace ep::cuda
