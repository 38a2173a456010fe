// torch.float16 element-wise functions: ATen computes a Half tensor's composite functions (sigmoid, silu,
// gelu, softplus, ...) in float (its "opmath" type) and rounds the result to half once, so these run the
// float32 formula of torch_ops.hpp and round at the end, where rounding each step in half would differ.
#pragma once

#include "../half.hpp"
#include "torch_ops.hpp"

namespace ep::sc {

template <> inline half torch_sigmoid<half>(half a) { return half(torch_sigmoid<float>(float(a))); }
template <> inline half torch_silu<half>(half a) { return half(torch_silu<float>(float(a))); }
template <> inline half torch_gelu<half>(half a) { return half(torch_gelu<float>(float(a))); }
template <> inline half torch_gelu_tanh<half>(half a) { return half(torch_gelu_tanh<float>(float(a))); }
template <> inline half torch_hardswish<half>(half a) { return half(torch_hardswish<float>(float(a))); }
template <> inline half torch_leaky_relu<half>(half a, half s) { return half(torch_leaky_relu<float>(float(a), float(s))); }
template <> inline half torch_elu<half>(half a, half al) { return half(torch_elu<float>(float(a), float(al))); }
template <>
inline half torch_softplus<half>(half a, half beta, half threshold) {
  return half(torch_softplus<float>(float(a), float(beta), float(threshold)));
}
template <> inline half torch_pow<half>(half a, half b) { return half(torch_pow<float>(float(a), float(b))); }

}  // namespace ep::sc
