// The metal path of matmul / dot / inner: MPSMatrixMultiplication on float32 operands
// (Metal has no double: the lowering declines float64 and every other dtype, which then
// run on another path). Operands arrive contiguous and row-major (ep::matmul packs them);
// they are copied into shared-storage buffers, multiplied on the GPU, copied back.
// Objective-C++ (see runtime.hpp for the flags); empty on other hosts.
#pragma once

#if defined(__APPLE__) && defined(__OBJC__)

#include "../../ops/linalg.hpp"

#import <MetalPerformanceShaders/MetalPerformanceShaders.h>

#include <cstring>

#include "runtime.hpp"

namespace ep::la {

template <>
struct Gemm<float, path::metal> {
  static void run(const float* A, const float* B, float* C, index_t n, index_t k, index_t m) {
    if (n == 0 || m == 0 || k == 0) return;  // C is zero-initialised by the caller
    if (n * k > metal::kMaxElements || k * m > metal::kMaxElements || n * m > metal::kMaxElements) {
      gemm<float>(A, B, C, n, k, m);  // beyond one buffer's indexing: the loops GEMM
      return;
    }
    @autoreleasepool {
      metal::Runtime& rt = metal::runtime();
      id<MTLBuffer> ba = metal::buffer_from(A, n * k);
      id<MTLBuffer> bb = metal::buffer_from(B, k * m);
      id<MTLBuffer> bc = metal::buffer_of<float>(n * m);
      MPSMatrixDescriptor* da = [MPSMatrixDescriptor matrixDescriptorWithRows:NSUInteger(n) columns:NSUInteger(k)
                                                                     rowBytes:NSUInteger(k) * sizeof(float)
                                                                     dataType:MPSDataTypeFloat32];
      MPSMatrixDescriptor* db = [MPSMatrixDescriptor matrixDescriptorWithRows:NSUInteger(k) columns:NSUInteger(m)
                                                                     rowBytes:NSUInteger(m) * sizeof(float)
                                                                     dataType:MPSDataTypeFloat32];
      MPSMatrixDescriptor* dc = [MPSMatrixDescriptor matrixDescriptorWithRows:NSUInteger(n) columns:NSUInteger(m)
                                                                     rowBytes:NSUInteger(m) * sizeof(float)
                                                                     dataType:MPSDataTypeFloat32];
      MPSMatrix* ma = [[MPSMatrix alloc] initWithBuffer:ba descriptor:da];
      MPSMatrix* mb = [[MPSMatrix alloc] initWithBuffer:bb descriptor:db];
      MPSMatrix* mc = [[MPSMatrix alloc] initWithBuffer:bc descriptor:dc];
      MPSMatrixMultiplication* mm = [[MPSMatrixMultiplication alloc] initWithDevice:rt.device
                                                                      transposeLeft:NO
                                                                     transposeRight:NO
                                                                         resultRows:NSUInteger(n)
                                                                      resultColumns:NSUInteger(m)
                                                                    interiorColumns:NSUInteger(k)
                                                                              alpha:1.0
                                                                               beta:0.0];
      id<MTLCommandBuffer> cb = [rt.queue commandBuffer];
      [mm encodeToCommandBuffer:cb leftMatrix:ma rightMatrix:mb resultMatrix:mc];
      metal::run(cb);
      std::memcpy(C, [bc contents], size_t(n * m) * sizeof(float));
    }
  }
};

}  // namespace ep::la

#endif
