// The cuda path's runtime: device buffers and error handling. Kernels take plain
// pointers; host wrappers copy contiguous operands to the device and the result back.
// Built with nvcc only (the host .so of a CPU build never includes this directory);
// `everypath cuda check` compiles every header here, tests/variants/cuda/ runs them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ep::cuda {

using index_t = std::int64_t;

// 35 (cudaErrorInsufficientDriver) and 100 (cudaErrorNoDevice) mean "no GPU here"
inline bool no_gpu(cudaError_t e) { return e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice; }

struct Error : std::runtime_error {
  cudaError_t code;
  Error(cudaError_t c, const char* what)
      : std::runtime_error(std::string(what) + ": " + cudaGetErrorString(c)), code(c) {}
};

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(e, what);
}

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  index_t n = 0;
  explicit DeviceBuffer(index_t count) : n(count) {
    if (n > 0) check(cudaMalloc(&ptr, sizeof(T) * static_cast<size_t>(n)), "cudaMalloc");
  }
  DeviceBuffer(const T* host, index_t count) : DeviceBuffer(count) {
    if (n > 0) check(cudaMemcpy(ptr, host, sizeof(T) * static_cast<size_t>(n), cudaMemcpyHostToDevice), "to device");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
  void to_host(T* host) const {
    if (n > 0) check(cudaMemcpy(host, ptr, sizeof(T) * static_cast<size_t>(n), cudaMemcpyDeviceToHost), "to host");
  }
};

inline unsigned blocks_for(index_t n, unsigned threads) {
  index_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 65535 * 32 ? (b > 0 ? b : 1) : 65535 * 32);
}

}  // namespace ep::cuda
