// The metal path's element-wise maps: one MSL kernel per float op of the table in
// variants/metal_msl.py (ep_map_<name>), over contiguous float32 arrays in shared
// storage. Strided operands are packed first; the result is a fresh C-order array.
// Objective-C++ (see runtime.hpp for the flags); empty on other hosts.
//
// Not wired into the fused element-wise emitter: fused trees become one C++ loop body
// there, and the metal kernels are per-op. Callers: ep::metal::map_unary / map_binary.
#pragma once

#if defined(__APPLE__) && defined(__OBJC__)

#include <cstring>
#include <string>

#include "runtime.hpp"

namespace ep::metal {

template <int N>
Array<float, N> map_unary(const char* op, const Array<float, N>& x) {
  const Array<float, N> xs = x.contiguous() ? x : copy(x);
  Array<float, N> out = empty<float, N>(x.shape);
  const index_t n = xs.size();
  if (n == 0) return out;
  if (n > kMaxElements) raise("ValueError", "metal: arrays above 2**31 elements are not supported");
  @autoreleasepool {
    id<MTLComputePipelineState> p = pipeline(std::string("ep_map_") + op);
    id<MTLBuffer> bx = buffer_from(xs.data, n);
    id<MTLBuffer> bo = buffer_of<float>(n);
    const uint32_t n32 = uint32_t(n);
    id<MTLCommandBuffer> cb = [runtime().queue commandBuffer];
    id<MTLComputeCommandEncoder> enc = [cb computeCommandEncoder];
    [enc setComputePipelineState:p];
    [enc setBuffer:bx offset:0 atIndex:0];
    [enc setBuffer:bo offset:0 atIndex:1];
    [enc setBytes:&n32 length:sizeof(n32) atIndex:2];
    dispatch_1d(enc, p, n);
    [enc endEncoding];
    run(cb);
    std::memcpy(out.data, [bo contents], size_t(n) * sizeof(float));
  }
  return out;
}

// x op y for same-shape arrays, or y a single element broadcast over x (ys_step 0)
template <int N, int M>
Array<float, N> map_binary(const char* op, const Array<float, N>& x, const Array<float, M>& y) {
  const bool scalar_y = y.size() == 1;
  bool same = false;
  if constexpr (M == N) same = y.shape == x.shape;
  if (!scalar_y && !same)
    raise("ValueError", "metal: map_binary takes same-shape operands or a 1-element second operand");
  const Array<float, N> xs = x.contiguous() ? x : copy(x);
  const Array<float, M> ys = y.contiguous() ? y : copy(y);
  Array<float, N> out = empty<float, N>(x.shape);
  const index_t n = xs.size();
  if (n == 0) return out;
  if (n > kMaxElements) raise("ValueError", "metal: arrays above 2**31 elements are not supported");
  @autoreleasepool {
    id<MTLComputePipelineState> p = pipeline(std::string("ep_map_") + op);
    id<MTLBuffer> bx = buffer_from(xs.data, n);
    id<MTLBuffer> by = buffer_from(ys.data, ys.size());
    id<MTLBuffer> bo = buffer_of<float>(n);
    const uint32_t n32 = uint32_t(n), step = scalar_y ? 0u : 1u;
    id<MTLCommandBuffer> cb = [runtime().queue commandBuffer];
    id<MTLComputeCommandEncoder> enc = [cb computeCommandEncoder];
    [enc setComputePipelineState:p];
    [enc setBuffer:bx offset:0 atIndex:0];
    [enc setBuffer:by offset:0 atIndex:1];
    [enc setBuffer:bo offset:0 atIndex:2];
    [enc setBytes:&n32 length:sizeof(n32) atIndex:3];
    [enc setBytes:&step length:sizeof(step) atIndex:4];
    dispatch_1d(enc, p, n);
    [enc endEncoding];
    run(cb);
    std::memcpy(out.data, [bo contents], size_t(n) * sizeof(float));
  }
  return out;
}

}  // namespace ep::metal

#endif
