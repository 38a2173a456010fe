// Tensor products, loops path: np.kron, np.tensordot and np.einsum. Operands
// are read through per-label strides (a repeated label in one operand walks
// its diagonal; a size-1 axis broadcasts with stride 0). Contractions that are
// batched matrix products (einsum "bij,bjk->bik", every tensordot) pack their
// operands into contiguous matrices and run linalg.hpp's blocked GEMM; other
// einsum patterns run one loop nest over all labels.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "../array.hpp"
#include "creation.hpp"
#include "linalg.hpp"

namespace ep {
namespace tens {

template <class R>
inline R mul(R a, R b) {
  if constexpr (std::is_same_v<R, bool>) return a && b;
  else return static_cast<R>(a * b);
}

template <class R>
inline R add(R a, R b) {
  if constexpr (std::is_same_v<R, bool>) return a || b;
  else return static_cast<R>(a + b);
}

// An operand seen through its labels: data, and per label its stride.
template <class R>
struct Operand {
  const R* data = nullptr;
  std::vector<index_t> stride;  // per label (0 when absent or broadcast)
  std::vector<index_t> own;     // per label: this operand's size, -1 when absent
  std::shared_ptr<void> keep;
};

// Visits every index of the labels `order` (sizes from `size`), in row-major
// order, passing the running offsets of each operand (through their strides).
template <class R, class F>
void odometer(const std::vector<int>& order, const std::vector<index_t>& size,
              const std::vector<const std::vector<index_t>*>& strides, F&& f) {
  const size_t nops = strides.size();
  index_t total = 1;
  for (int l : order) total *= size[l];
  if (total == 0) return;
  std::vector<index_t> idx(order.size(), 0), off(nops, 0);
  for (index_t t = 0; t < total; ++t) {
    f(off);
    for (int q = static_cast<int>(order.size()) - 1; q >= 0; --q) {
      const int l = order[q];
      for (size_t o = 0; o < nops; ++o) off[o] += (*strides[o])[l];
      if (++idx[q] < size[l]) break;
      for (size_t o = 0; o < nops; ++o) off[o] -= (*strides[o])[l] * size[l];
      idx[q] = 0;
    }
  }
}

// Copies the values of `op` visited in label order `order` into a contiguous buffer.
template <class R>
Array<R, 1> pack(const Operand<R>& op, const std::vector<int>& order, const std::vector<index_t>& size) {
  index_t total = 1;
  for (int l : order) total *= size[l];
  Array<R, 1> out = empty<R, 1>({total});
  index_t j = 0;
  odometer<R>(order, size, {&op.stride}, [&](const std::vector<index_t>& off) { out.data[j++] = op.data[off[0]]; });
  return out;
}

}  // namespace tens

// The labels of one einsum call, fixed at compile time: per operand the label of
// each axis, the output labels, and the label letters (for messages).
struct EinsumSpec {
  std::vector<std::vector<int>> ops;
  std::vector<int> out;
  std::string letters;
};

namespace tens {

template <class R, class T, int N>
Operand<R> bind(const Array<T, N>& a, const std::vector<int>& labels, std::vector<index_t>& size, int which,
                const std::string& letters) {
  Array<R, N> c = as_dtype<R>(a);
  Operand<R> op;
  op.data = c.data;
  op.keep = c.owner;
  op.stride.assign(letters.size(), 0);
  std::vector<index_t> own(letters.size(), -1);
  for (int k = 0; k < N; ++k) {
    const int l = labels[k];
    const index_t d = a.shape[k];
    if (own[l] >= 0 && own[l] != d)
      raise("ValueError", "dimensions in operand " + std::to_string(which) + " for collapsing index '" +
                              std::string(1, letters[l]) + "' don't match (" + std::to_string(own[l]) + " != " +
                              std::to_string(d) + ")");
    own[l] = d;
    op.stride[l] += c.strides[k];
  }
  op.own = own;
  for (size_t l = 0; l < own.size(); ++l) {
    if (own[l] < 0) continue;
    if (size[l] < 0 || size[l] == 1) size[l] = own[l];
    else if (own[l] != 1 && own[l] != size[l])
      raise("ValueError", "operands could not be broadcast together with remapped shapes: label '" +
                              std::string(1, letters[l]) + "' has sizes " + std::to_string(size[l]) + " and " +
                              std::to_string(own[l]));
  }
  return op;
}

}  // namespace tens

// np.einsum with compile-time subscripts (see EinsumSpec)
template <class R, int NO, class... Ops>
Array<R, NO> einsum(const EinsumSpec& spec, const Ops&... arrays) {
  const size_t L = spec.letters.size();
  std::vector<index_t> size(L, -1);
  std::vector<tens::Operand<R>> ops;
  int which = 0;
  ((ops.push_back(tens::bind<R>(arrays, spec.ops[which], size, which, spec.letters)), ++which), ...);
  // a size-1 axis against a longer one broadcasts: stride 0
  for (auto& op : ops)
    for (size_t l = 0; l < L; ++l)
      if (op.own[l] == 1 && size[l] != 1) op.stride[l] = 0;
  for (size_t l = 0; l < L; ++l)
    if (size[l] < 0) size[l] = 1;  // a label of no operand (cannot happen after typing)
  std::array<index_t, NO> oshape{};
  for (int k = 0; k < NO; ++k) oshape[k] = size[spec.out[k]];
  Array<R, NO> out = empty<R, NO>(oshape);
  std::vector<index_t> ostride(L, 0);
  for (int k = 0; k < NO; ++k) ostride[spec.out[k]] += out.strides[k];
  std::vector<bool> in_out(L, false);
  for (int l : spec.out) in_out[l] = true;
  std::vector<int> sum_labels;
  for (size_t l = 0; l < L; ++l)
    if (!in_out[l]) sum_labels.push_back(static_cast<int>(l));
  // batched-matmul fast path: two operands, no diagonals, no label summed in one operand only
  if (ops.size() == 2) {
    const auto& A = spec.ops[0];
    const auto& B = spec.ops[1];
    auto has = [](const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); };
    auto distinct = [](std::vector<int> v) {
      std::sort(v.begin(), v.end());
      return std::adjacent_find(v.begin(), v.end()) == v.end();
    };
    bool ok = distinct(A) && distinct(B);
    std::vector<int> batch, fa, fb, con;
    for (size_t l = 0; l < L && ok; ++l) {
      const int li = static_cast<int>(l);
      const bool a = has(A, li), b = has(B, li), o = in_out[l];
      if (a && b && o) batch.push_back(li);
      else if (a && o) fa.push_back(li);
      else if (b && o) fb.push_back(li);
      else if (a && b) con.push_back(li);
      else ok = false;
    }
    if (ok) {
      index_t nb = 1, m = 1, n = 1, k = 1;
      for (int l : batch) nb *= size[l];
      for (int l : fa) m *= size[l];
      for (int l : fb) n *= size[l];
      for (int l : con) k *= size[l];
      std::vector<int> oa = batch, ob = batch, oc = batch;
      oa.insert(oa.end(), fa.begin(), fa.end());
      oa.insert(oa.end(), con.begin(), con.end());
      ob.insert(ob.end(), con.begin(), con.end());
      ob.insert(ob.end(), fb.begin(), fb.end());
      oc.insert(oc.end(), fa.begin(), fa.end());
      oc.insert(oc.end(), fb.begin(), fb.end());
      const Array<R, 1> pa = tens::pack(ops[0], oa, size), pb = tens::pack(ops[1], ob, size);
      const Array<R, 1> pc = full<R, 1>({nb * m * n}, R(0));
      for (index_t t = 0; t < nb; ++t) la::gemm<R>(pa.data + t * m * k, pb.data + t * k * n, pc.data + t * m * n, m, k, n);
      index_t j = 0;
      tens::odometer<R>(oc, size, {&ostride}, [&](const std::vector<index_t>& off) { out.data[off[0]] = pc.data[j++]; });
      return out;
    }
  }
  // one operand, nothing summed, no cast: NumPy hands back a view (transpose, diagonal)
  if constexpr (sizeof...(Ops) == 1 && (std::is_same_v<typename Ops::value_type, R> && ...)) {
    if (sum_labels.empty()) {
      Array<R, NO> v;
      v.data = const_cast<R*>(ops[0].data);
      v.owner = ops[0].keep;
      for (int q = 0; q < NO; ++q) v.strides[q] = ops[0].stride[spec.out[q]];
      v.shape = oshape;
      return v;
    }
  }
  // general loop nest: output labels outside, summed labels inside
  std::vector<const std::vector<index_t>*> st;
  st.push_back(&ostride);
  for (auto& op : ops) st.push_back(&op.stride);
  std::vector<const std::vector<index_t>*> inner(st.begin() + 1, st.end());
  if (out.size() == 0) return out;
  std::vector<int> outer_labels(spec.out.begin(), spec.out.end());
  tens::odometer<R>(outer_labels, size, st, [&](const std::vector<index_t>& off) {
    R acc = R(0);
    tens::odometer<R>(sum_labels, size, inner, [&](const std::vector<index_t>& io) {
      R p = ops[0].data[off[1] + io[0]];
      for (size_t o = 1; o < ops.size(); ++o) p = tens::mul<R>(p, ops[o].data[off[o + 1] + io[o]]);
      acc = tens::add<R>(acc, p);
    });
    out.data[off[0]] = acc;
  });
  return out;
}

// np.tensordot(a, b, axes): contracted axes as compile-time lists
template <class R, int NO, class TA, int NA, class TB, int NB, size_t K>
Array<R, NO> tensordot(const Array<TA, NA>& a, const Array<TB, NB>& b, const std::array<int, K>& axa,
                       const std::array<int, K>& axb) {
  for (size_t q = 0; q < K; ++q)
    if (a.shape[axa[q]] != b.shape[axb[q]]) raise("ValueError", "shape-mismatch for sum");
  // labels: a's axes 0..NA-1, b's free axes NA.., contracted b axes share a's labels
  EinsumSpec spec;
  spec.letters = std::string(NA + NB, '?');
  std::vector<int> la_(NA), lb(NB);
  for (int k = 0; k < NA; ++k) la_[k] = k;
  int next = NA;
  std::vector<bool> contracted_a(NA, false), contracted_b(NB, false);
  for (size_t q = 0; q < K; ++q) contracted_a[axa[q]] = true, contracted_b[axb[q]] = true;
  for (int k = 0; k < NB; ++k) lb[k] = -1;
  for (size_t q = 0; q < K; ++q) lb[axb[q]] = axa[q];
  for (int k = 0; k < NB; ++k)
    if (lb[k] < 0) lb[k] = next++;
  spec.letters.resize(static_cast<size_t>(next));
  spec.ops = {la_, lb};
  for (int k = 0; k < NA; ++k)
    if (!contracted_a[k]) spec.out.push_back(k);
  for (int k = 0; k < NB; ++k)
    if (!contracted_b[k]) spec.out.push_back(lb[k]);
  return einsum<R, NO>(spec, a, b);
}

// np.kron: out[i * bs + j] = a[i] * b[j] along every axis (shapes padded with 1s)
template <class R, int NO, class TA, int NA, class TB, int NB>
Array<R, NO> kron(const Array<TA, NA>& a, const Array<TB, NB>& b) {
  std::array<index_t, NO> sa{}, sb{}, ta{}, tb{}, os{};
  for (int k = 0; k < NO; ++k) {
    const int ka = k - (NO - NA), kb = k - (NO - NB);
    sa[k] = ka >= 0 ? a.shape[ka] : 1;
    ta[k] = ka >= 0 ? a.strides[ka] : 0;
    sb[k] = kb >= 0 ? b.shape[kb] : 1;
    tb[k] = kb >= 0 ? b.strides[kb] : 0;
    os[k] = sa[k] * sb[k];
  }
  Array<R, NO> out = empty<R, NO>(os);
  const index_t total = out.size();
  std::array<index_t, NO> idx{};
  for (index_t t = 0; t < total; ++t) {
    index_t oa = 0, ob = 0;
    for (int k = 0; k < NO; ++k) oa += (idx[k] / sb[k]) * ta[k], ob += (idx[k] % sb[k]) * tb[k];
    out.data[t] = tens::mul<R>(elem_cast<R>(a.data[oa]), elem_cast<R>(b.data[ob]));
    for (int k = NO - 1; k >= 0; --k) {
      if (++idx[k] < os[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

}  // namespace ep
