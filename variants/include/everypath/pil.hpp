// PIL.Image.fromarray in compiled code (lowering/pil_images.py): an image is the array itself, checked as
// Pillow checks it. Which channel counts make an image, which raise ValueError rather than TypeError, and
// where Pillow maps a C-contiguous array's buffer instead of copying it are asked of Pillow at compile time
// (base/images.py) and passed here as bit masks over the channel count (bit 0 for a 2-d array).
#pragma once

#include <cstdint>
#include <string>

#include "everypath/array.hpp"

namespace ep::pil {

template <class T, int N>
Array<T, N> fromarray(const Array<T, N>& a, uint32_t ok, uint32_t value_error, uint32_t share,
                      const char* value_message, const char* typestr) {
  static_assert(N == 2 || N == 3, "images are 2-d (H, W) or 3-d (H, W, C) arrays");
  const index_t c = N == 3 ? a.shape[N - 1] : 0;
  const bool known = c >= 0 && c < 32;  // beyond the masks: Pillow's table has no entry, a TypeError
  const uint32_t bit = known ? (uint32_t{1} << c) : 0;
  if (!(ok & bit)) {
    if (value_error & bit) raise("ValueError", value_message);
    raise("TypeError", std::string("Cannot handle this data type: (1, 1") +
                           (N == 3 ? ", " + std::to_string(c) : std::string()) + "), " + typestr);
  }
  if ((share & bit) && a.contiguous()) return a;  // later stores into the array are seen, as with Pillow
  return copy(a);
}

}  // namespace ep::pil
