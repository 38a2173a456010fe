// Tensor-level torch operations with torch's checks and messages (included by torch_ops.hpp):
// reductions, views (view/reshape/flatten/squeeze), cat/stack, matmul/mm/bmm and the factories.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace ep {
namespace tch {

// ---- reductions (Mask: reduced dims; every dim reduced gives a 0-d tensor) -------------------
// amax/amin have no identity: an empty reduced dim is torch's IndexError, and an empty tensor
// reduced without naming dims its RuntimeError
template <bool DimGiven, class T, int N>
void check_nonempty(const Array<T, N>& a, uint32_t mask, const char* name) {
  if (a.size() != 0) return;
  if (!DimGiven)
    raise("RuntimeError", std::string(name) + "(): Expected reduction dim to be specified for input.numel() == 0. "
                                              "Specify the reduction dim with the 'dim' argument.");
  for (int k = 0; k < N; ++k)
    if (((mask >> k) & 1u) && a.shape[k] == 0)
      raise("IndexError", std::string(name) + "(): Expected reduction dim " + std::to_string(k) +
                              " to have non-zero size.");
}

template <class R, uint32_t Mask, bool Keep, bool DimGiven, class T, int N>
auto sum(const Array<T, N>& a) { return sum_axes<R, Mask, Keep>(a); }
template <class R, uint32_t Mask, bool Keep, bool DimGiven, class T, int N>
auto mean(const Array<T, N>& a) { return mean_axes<R, R, Mask, Keep>(a); }
template <class R, uint32_t Mask, bool Keep, bool DimGiven, class T, int N>
auto amax(const Array<T, N>& a) {
  check_nonempty<DimGiven>(a, Mask, "amax");
  return max_axes<R, Mask, Keep>(a);
}
template <class R, uint32_t Mask, bool Keep, bool DimGiven, class T, int N>
auto amin(const Array<T, N>& a) {
  check_nonempty<DimGiven>(a, Mask, "amin");
  return min_axes<R, Mask, Keep>(a);
}

// ---- views: torch's infer_size and computeStride (view fails where reshape copies) ----------
template <int M>
std::array<index_t, M> infer_size(const std::array<index_t, M>& shape, index_t numel) {
  std::array<index_t, M> out = shape;
  index_t newsize = 1;
  int infer = -1;
  for (int k = 0; k < M; ++k) {
    if (shape[k] == -1) {
      if (infer >= 0) raise("RuntimeError", "only one dimension can be inferred");
      infer = k;
    } else if (shape[k] >= 0) {
      newsize *= shape[k];
    } else {
      raise("RuntimeError", "invalid shape dimension " + std::to_string(shape[k]) + " at index " + std::to_string(k) +
                                " of shape " + sizes(shape, M));
    }
  }
  if (numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0)) {
    if (infer >= 0) {
      if (newsize == 0)
        raise("RuntimeError", "cannot reshape tensor of 0 elements into shape " + sizes(shape, M) +
                                  " because the unspecified dimension size -1 can be any value and is ambiguous");
      out[infer] = numel / newsize;
    }
    return out;
  }
  raise("RuntimeError", "shape '" + sizes(shape, M) + "' is invalid for input of size " + std::to_string(numel));
}

// ATen's computeStride: strides viewing a's memory with shape ns, or false
template <int N, int M>
bool view_strides(const std::array<index_t, N>& os, const std::array<index_t, N>& ost,
                  const std::array<index_t, M>& ns, std::array<index_t, M>& nst) {
  if constexpr (N == 0) {
    nst.fill(1);
    return true;
  } else {
    index_t numel = 1;
    for (int k = 0; k < N; ++k) numel *= os[k];
    if (numel == 0) {  // any strides do; contiguous ones, as torch gives
      index_t acc = 1;
      for (int k = M - 1; k >= 0; --k) nst[k] = acc, acc *= std::max<index_t>(ns[k], 1);
      return true;
    }
    int vd = M - 1;
    index_t chunk = ost[N - 1], tn = 1, vn = 1;
    for (int td = N - 1; td >= 0; --td) {
      tn *= os[td];
      if (td == 0 || (os[td - 1] != 1 && ost[td - 1] != tn * chunk)) {
        while (vd >= 0 && (vn < tn || ns[vd] == 1)) {
          nst[vd] = vn * chunk;
          vn *= ns[vd];
          --vd;
        }
        if (vn != tn) return false;
        if (td > 0) chunk = ost[td - 1], tn = 1, vn = 1;
      }
    }
    return vd == -1;
  }
}

// x.view(shape) (Copy=false: RuntimeError where no view exists) and x.reshape(shape) (a copy there)
template <int M, bool Copy, class T, int N>
Array<T, M> view(const Array<T, N>& a, const std::array<index_t, M>& shape_in) {
  Array<T, M> out;
  out.shape = infer_size<M>(shape_in, a.size());
  if (view_strides<N, M>(a.shape, a.strides, out.shape, out.strides)) {
    out.data = a.data;
    out.owner = a.owner;
    return out;
  }
  if constexpr (!Copy) {
    raise("RuntimeError", "view size is not compatible with input tensor's size and stride (at least one dimension "
                          "spans across two contiguous subspaces). Use .reshape(...) instead.");
  }
  Array<T, N> c = copy(a);
  out.data = c.data;
  out.owner = c.owner;
  out.strides = c_strides<M>(out.shape);
  return out;
}

// x.flatten(S, E): dims S..E merged (a view when possible)
template <int M, int S, int E, class T, int N>
Array<T, M> flatten(const Array<T, N>& a) {
  std::array<index_t, M> shape{};
  if constexpr (N == 0) {
    shape[0] = 1;
  } else {
    index_t merged = 1;
    for (int k = S; k <= E; ++k) merged *= a.shape[k];
    for (int k = 0; k < S; ++k) shape[k] = a.shape[k];
    shape[S] = merged;
    for (int k = E + 1; k < N; ++k) shape[k - (E - S)] = a.shape[k];
  }
  return view<M, true>(a, shape);
}

// x.squeeze(dims): the rank must be known when compiling, so each dim must have size 1
template <int M, uint32_t Mask, class T, int N>
Array<T, M> squeeze(const Array<T, N>& a) {
  for (int k = 0; k < N; ++k)
    if (((Mask >> k) & 1u) && a.shape[k] != 1)
      raise("RuntimeError", "squeeze(): dimension " + std::to_string(k) + " has size " + std::to_string(a.shape[k]) +
                                ", not 1; compiled code needs the result's rank when compiling, so it cannot keep "
                                "the dimension as torch does");
  return ep::squeeze<M, Mask>(a);
}

// x.contiguous(), x.to(dtype), x.float(): the tensor itself when nothing changes
template <class T, int N>
Array<T, N> contiguous(const Array<T, N>& a) {
  return a.contiguous() ? a : copy(a);
}
template <class R, class T, int N>
Array<R, N> to(const Array<T, N>& a) {
  return as_dtype<R>(a);
}

// x.item()
template <class P, class T, int N>
P item(const Array<T, N>& a) {
  if (a.size() != 1)
    raise("RuntimeError", "a Tensor with " + std::to_string(a.size()) + " elements cannot be converted to Scalar");
  index_t off = 0;
  for_each_offset(a, [&](index_t o) { off = o; });
  return elem_cast<P>(a.data[off]);
}

// ---- joins ----------------------------------------------------------------------------------
template <class R, int N, class Seq>
Array<R, N> cat(const Seq& seq, int dim) {
  static_assert(N >= 1, "cat of 0-d tensors is refused when compiling");
  auto v = to_vector<R>(seq);
  if (v.empty()) raise("ValueError", "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 1; i < v.size(); ++i)
    for (int k = 0; k < N; ++k)
      if (k != dim && v[i].shape[k] != v[0].shape[k])
        raise("RuntimeError", "Sizes of tensors must match except in dimension " + std::to_string(dim) +
                                  ". Expected size " + std::to_string(v[0].shape[k]) + " but got size " +
                                  std::to_string(v[i].shape[k]) + " for tensor number " + std::to_string(i) +
                                  " in the list.");
  return concat_vec<R, N>(v, dim);
}

template <class R, int N, int Dim, class Seq>
Array<R, N + 1> stack(const Seq& seq) {
  auto v = to_vector<R>(seq);
  if (v.empty()) raise("RuntimeError", "stack expects a non-empty TensorList");
  std::vector<Array<R, N + 1>> w;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].shape != v[0].shape)
      raise("RuntimeError", "stack expects each tensor to be equal size, but got " + sizes(v[0]) + " at entry 0 and " +
                                sizes(v[i]) + " at entry " + std::to_string(i));
    w.push_back(expand_dims<N + 1, (1u << Dim)>(v[i]));
  }
  return concat_vec<R, N + 1>(w, Dim);
}

// ---- products -------------------------------------------------------------------------------
inline std::string mat(index_t r, index_t c) { return std::to_string(r) + "x" + std::to_string(c); }

// P: the product's path (ep::path::loops, threads, blas: variants/ops/torch_nn.py PRODUCTS)
template <class R, class P = path::loops, class TA, int NA, class TB, int NB>
auto matmul(const Array<TA, NA>& a, const Array<TB, NB>& b) {
  const index_t ka = a.shape[NA - 1], kb = NB == 1 ? b.shape[0] : b.shape[NB - 2];
  if constexpr (NA == 1 && NB == 1) {
    if (ka != kb)
      raise("RuntimeError", "inconsistent tensor size, expected tensor [" + std::to_string(ka) + "] and src [" +
                                std::to_string(kb) + "] to have the same number of elements, but got " +
                                std::to_string(ka) + " and " + std::to_string(kb) + " elements respectively");
    return scalar_array(ep::matmul<R, P>(a, b));
  } else {
    if constexpr (NA >= 2 && NB <= 2) {  // torch folds a into a matrix
      index_t rows = 1;
      for (int k = 0; k < NA - 1; ++k) rows *= a.shape[k];
      if (ka != kb) {
        if constexpr (NB == 1)
          raise("RuntimeError", "size mismatch, got input (" + std::to_string(rows) + "), mat (" + mat(rows, ka) +
                                    "), vec (" + std::to_string(kb) + ")");
        else
          raise("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (" + mat(rows, ka) + " and " +
                                    mat(b.shape[0], b.shape[1]) + ")");
      }
    } else if constexpr (NA == 1 && NB == 2) {
      if (ka != kb)
        raise("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (" + mat(1, ka) + " and " +
                                  mat(b.shape[0], b.shape[1]) + ")");
    } else {  // batched: the batch dims broadcast, then bmm's check
      constexpr int BA = NA > 2 ? NA - 2 : 0, BB = NB - 2;
      Array<char, BA> ba;  // the batch shapes, for infer_size
      Array<char, BB> bb;
      for (int k = 0; k < BA; ++k) ba.shape[k] = a.shape[k];
      for (int k = 0; k < BB; ++k) bb.shape[k] = b.shape[k];
      constexpr int NBATCH = BA > BB ? BA : BB;
      check_broadcast<NBATCH>(ba, bb);
      index_t batch = 1;
      for (int k = 0; k < NBATCH; ++k) {
        const index_t x = k - (NBATCH - BA) >= 0 ? a.shape[k - (NBATCH - BA)] : 1;
        const index_t y = k - (NBATCH - BB) >= 0 ? b.shape[k - (NBATCH - BB)] : 1;
        batch *= x == 1 ? y : x;
      }
      if (ka != kb)
        raise("RuntimeError", "Expected size for first two dimensions of batch2 tensor to be: [" +
                                  std::to_string(batch) + ", " + std::to_string(ka) + "] but got: [" +
                                  std::to_string(batch) + ", " + std::to_string(kb) + "].");
    }
    return ep::matmul<R, P>(a, b);
  }
}

template <class R, class P = path::loops, class TA, class TB>
Array<R, 2> mm(const Array<TA, 2>& a, const Array<TB, 2>& b) {
  return tch::matmul<R, P>(a, b);
}

template <class R, class P = path::loops, class TA, class TB>
Array<R, 3> bmm(const Array<TA, 3>& a, const Array<TB, 3>& b) {
  if (a.shape[0] != b.shape[0] || a.shape[2] != b.shape[1])
    raise("RuntimeError", "Expected size for first two dimensions of batch2 tensor to be: [" +
                              std::to_string(a.shape[0]) + ", " + std::to_string(a.shape[2]) + "] but got: [" +
                              std::to_string(b.shape[0]) + ", " + std::to_string(b.shape[1]) + "].");
  return ep::matmul<R, P>(a, b);
}

// ---- factories ------------------------------------------------------------------------------
template <int N>
const std::array<index_t, N>& checked_size(const std::array<index_t, N>& shape, const char* name) {
  for (int k = 0; k < N; ++k)
    if (shape[k] < 0) {
      if (std::string(name) == "zeros") raise("RuntimeError", "zeros: Dimension size must be non-negative.");
      raise("RuntimeError", "Trying to create tensor with negative dimension " + std::to_string(shape[k]) + ": " +
                                sizes(shape, N));
    }
  return shape;
}
template <class R, int N>
Array<R, N> full(const std::array<index_t, N>& shape, R value, const char* name) {
  return ep::full<R, N>(checked_size<N>(shape, name), value);
}
template <class R, int N>
Array<R, N> empty(const std::array<index_t, N>& shape) {
  return ep::empty<R, N>(checked_size<N>(shape, "empty"));
}

inline std::string scalar_text(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (std::isnan(v)) return "nan";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  std::string s = std::to_string(v);
  while (s.back() == '0') s.pop_back();
  return s;
}

// torch.arange: the size as ATen computes it, element i = start + i * step in the accumulation type
template <class R, class S0, class S1, class S2>
Array<R, 1> arange(S0 start_, S1 end_, S2 step_) {
  const double ds = static_cast<double>(start_), de = static_cast<double>(end_), dst = static_cast<double>(step_);
  if (dst == 0) raise("RuntimeError", "step must be nonzero");
  if (!std::isfinite(ds) || !std::isfinite(de))
    raise("RuntimeError", "unsupported range: " + scalar_text(ds) + " -> " + scalar_text(de));
  if (!((dst > 0 && de >= ds) || (dst < 0 && de <= ds)))
    raise("RuntimeError", "upper bound and lower bound inconsistent with step sign");
  using A = std::conditional_t<std::is_floating_point_v<R> || is_complex_v<R>, double, int64_t>;
  const A xs = static_cast<A>(start_), xe = static_cast<A>(end_), xst = static_cast<A>(step_);
  double size_d;
  if constexpr (std::is_same_v<R, int64_t>) {
    const int64_t sgn = (xst > 0) - (xst < 0);
    size_d = std::ceil(static_cast<double>((xe - xs + xst - sgn) / xst));
  } else {
    size_d = std::ceil((de - ds) / dst);
  }
  const index_t n = static_cast<index_t>(size_d);
  Array<R, 1> out = ep::empty<R, 1>({n});
  for (index_t i = 0; i < n; ++i) out.data[i] = static_cast<R>(xs + static_cast<A>(i) * xst);
  return out;
}

}  // namespace tch
}  // namespace ep
