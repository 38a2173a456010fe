// The metal path's runtime: one Metal device, command queue and library per process,
// compute pipelines cached by kernel name, and shared-storage buffers.
// Objective-C++ with ARC: a translation unit that defines EP_HAVE_METAL is compiled with
//   -x objective-c++ -fobjc-arc -framework Metal -framework Foundation -framework MetalPerformanceShaders
// (variants.paths.build_flags adds these on macOS). On other hosts, and in plain C++ TUs,
// this file is empty: the path is reported as not buildable there, never emulated.
#pragma once

#if defined(__APPLE__) && defined(__OBJC__)

#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "../../array.hpp"
#include "kernels_msl.hpp"

namespace ep {
namespace path {
struct metal {};  // template tag of the metal path (ep::matmul<float, ep::path::metal>)
}  // namespace path

namespace metal {

// Metal buffers hold at most 2**32 threads per dispatch here (uint indices in the kernels)
inline constexpr index_t kMaxElements = index_t(1) << 31;

[[noreturn]] inline void fail(const char* what, NSError* err) {
  std::string m = std::string("metal: ") + what;
  if (err != nil) m += std::string(": ") + [[err localizedDescription] UTF8String];
  raise("RuntimeError", m);
}

struct Runtime {
  id<MTLDevice> device = nil;
  id<MTLCommandQueue> queue = nil;
  id<MTLLibrary> library = nil;
  std::unordered_map<std::string, id<MTLComputePipelineState>> pipelines;
  std::mutex mu;
};

// Built on first use; the MSL library is compiled once per process from kMslSource.
inline Runtime& runtime() {
  static Runtime* rt = [] {
    auto* r = new Runtime();
    r->device = MTLCreateSystemDefaultDevice();
    if (r->device == nil) fail("no Metal device on this Mac", nil);
    r->queue = [r->device newCommandQueue];
    NSError* err = nil;
    MTLCompileOptions* opts = [[MTLCompileOptions alloc] init];
    r->library = [r->device newLibraryWithSource:[NSString stringWithUTF8String:kMslSource] options:opts error:&err];
    if (r->library == nil) fail("compiling the MSL kernels failed", err);
    return r;
  }();
  return *rt;
}

inline id<MTLComputePipelineState> pipeline(const std::string& kernel) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  auto it = rt.pipelines.find(kernel);
  if (it != rt.pipelines.end()) return it->second;
  id<MTLFunction> fn = [rt.library newFunctionWithName:[NSString stringWithUTF8String:kernel.c_str()]];
  if (fn == nil) fail(("no kernel " + kernel + " in the MSL library").c_str(), nil);
  NSError* err = nil;
  id<MTLComputePipelineState> p = [rt.device newComputePipelineStateWithFunction:fn error:&err];
  if (p == nil) fail(("pipeline for " + kernel).c_str(), err);
  rt.pipelines.emplace(kernel, p);
  return p;
}

// A shared-storage (CPU/GPU unified memory) copy of n elements
template <class T>
id<MTLBuffer> buffer_from(const T* data, index_t n) {
  const NSUInteger bytes = NSUInteger(n > 0 ? n : 1) * sizeof(T);
  id<MTLBuffer> b = n > 0 ? [runtime().device newBufferWithBytes:data length:bytes options:MTLResourceStorageModeShared]
                          : [runtime().device newBufferWithLength:bytes options:MTLResourceStorageModeShared];
  if (b == nil) fail("newBufferWithBytes failed (out of GPU memory?)", nil);
  return b;
}

template <class T>
id<MTLBuffer> buffer_of(index_t n) {
  id<MTLBuffer> b = [runtime().device newBufferWithLength:NSUInteger(n > 0 ? n : 1) * sizeof(T)
                                                  options:MTLResourceStorageModeShared];
  if (b == nil) fail("newBufferWithLength failed (out of GPU memory?)", nil);
  return b;
}

// Commit and wait; a GPU-side error becomes a RuntimeError
inline void run(id<MTLCommandBuffer> cb) {
  [cb commit];
  [cb waitUntilCompleted];
  if ([cb status] == MTLCommandBufferStatusError) fail("command buffer failed", [cb error]);
}

// One element per thread over n elements: dispatchThreads (non-uniform threadgroups)
inline void dispatch_1d(id<MTLComputeCommandEncoder> enc, id<MTLComputePipelineState> p, index_t n) {
  NSUInteger tg = [p maxTotalThreadsPerThreadgroup];
  if (tg > 256) tg = 256;
  [enc dispatchThreads:MTLSizeMake(NSUInteger(n), 1, 1) threadsPerThreadgroup:MTLSizeMake(tg, 1, 1)];
}

}  // namespace metal
}  // namespace ep

#endif
