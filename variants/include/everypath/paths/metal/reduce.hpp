// The metal path of full reductions: sum / max / min / mean of a contiguous float32
// array on the GPU (ep_reduce_* in variants/metal_msl.py: a grid-stride fold per
// thread, a threadgroup tree, one partial per threadgroup; the partials are combined
// here). max/min propagate NaN like np.max. Everything else (float64: Metal has no
// double; other dtypes; strided views; empty arrays, whose errors the loops kernel
// raises) runs the loops kernel. Objective-C++ (see runtime.hpp); empty on other hosts.
#pragma once

#if defined(__APPLE__) && defined(__OBJC__)

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "../../ops/reduce.hpp"
#include "runtime.hpp"

namespace ep::metal {

// partials of one ep_reduce_<kind> pass over n floats (n > 0)
inline std::vector<float> reduce_partials(const char* kind, const float* data, index_t n) {
  std::vector<float> out;
  @autoreleasepool {
    id<MTLComputePipelineState> p = pipeline(std::string("ep_reduce_") + kind);
    const index_t per_group = index_t(kReduceThreads) * 16;  // ~16 elements per thread before the tree
    NSUInteger groups = NSUInteger((n + per_group - 1) / per_group);
    if (groups > 4096) groups = 4096;
    id<MTLBuffer> bx = buffer_from(data, n);
    id<MTLBuffer> bp = buffer_of<float>(index_t(groups));
    const uint32_t n32 = uint32_t(n);
    id<MTLCommandBuffer> cb = [runtime().queue commandBuffer];
    id<MTLComputeCommandEncoder> enc = [cb computeCommandEncoder];
    [enc setComputePipelineState:p];
    [enc setBuffer:bx offset:0 atIndex:0];
    [enc setBuffer:bp offset:0 atIndex:1];
    [enc setBytes:&n32 length:sizeof(n32) atIndex:2];
    // the kernel's threadgroup array has kReduceThreads slots: dispatch exactly that many
    [enc dispatchThreadgroups:MTLSizeMake(groups, 1, 1) threadsPerThreadgroup:MTLSizeMake(kReduceThreads, 1, 1)];
    [enc endEncoding];
    run(cb);
    const float* ps = static_cast<const float*>([bp contents]);
    out.assign(ps, ps + groups);
  }
  return out;
}

template <class T, int N>
bool on_gpu(const Array<T, N>& a) {
  return std::is_same_v<T, float> && a.contiguous() && a.size() > 0 && a.size() <= kMaxElements;
}

template <class R, class T, int N>
R sum_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, float> && std::is_same_v<T, float>) {
    if (on_gpu(a)) {
      float s = 0.0f;
      for (float v : reduce_partials("sum", a.data, a.size())) s += v;
      return s;
    }
  }
  return red::reduce_all<red::Sum<R>>(a);
}

template <class R, class T, int N>
R max_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, float> && std::is_same_v<T, float>) {
    if (on_gpu(a)) {
      const auto ps = reduce_partials("max", a.data, a.size());
      float m = ps[0];
      for (float v : ps) m = (std::isnan(m) || m > v) ? m : v;
      return m;
    }
  }
  return red::reduce_all<red::Max<R>>(a);
}

template <class R, class T, int N>
R min_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, float> && std::is_same_v<T, float>) {
    if (on_gpu(a)) {
      const auto ps = reduce_partials("min", a.data, a.size());
      float m = ps[0];
      for (float v : ps) m = (std::isnan(m) || m < v) ? m : v;
      return m;
    }
  }
  return red::reduce_all<red::Min<R>>(a);
}

template <class R, class A, class T, int N>
R mean_all(const Array<T, N>& a) {
  A s = metal::sum_all<A>(a);
  return elem_cast<R>(red::div_count<A>(s, static_cast<double>(a.size())));
}

}  // namespace ep::metal

#endif
