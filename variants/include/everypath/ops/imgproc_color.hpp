// cv2.cvtColor, loops path: channel swaps and alpha, gray, HSV and YCrCb (both ways), with
// OpenCV's fixed-point arithmetic for integer images (yuv_shift = 14, hsv_shift = 12 tables)
// and its float formulas otherwise. The code is a template argument (a compile-time constant).
#pragma once

#include <cfloat>
#include <cmath>

#include "imgproc_core.hpp"

namespace ep {
namespace cvk {

template <class T>
constexpr double channel_max() {
  if constexpr (std::is_floating_point_v<T>) return 1.0;
  else return double(std::numeric_limits<T>::max());
}

// What a code does: source / destination channels, blue index, and the kind of conversion.
enum class Cvt { Swap, ToGray, FromGray, ToHsv, FromHsv, ToYcc, FromYcc };
struct CvtInfo {
  Cvt kind;
  int dcn;         // channels out (0: as many as the check below allows)
  int bidx;        // where blue is (0: BGR order, 2: RGB order)
  int hrange = 0;  // HSV hue range for 8-bit images (180, 256 forward / 255 back for _FULL)
};

constexpr CvtInfo cvt_info(int code) {
  switch (code) {
    case 0: return {Cvt::Swap, 4, 0};   // BGR2BGRA / RGB2RGBA
    case 1: return {Cvt::Swap, 3, 0};   // BGRA2BGR
    case 2: return {Cvt::Swap, 4, 2};   // BGR2RGBA
    case 3: return {Cvt::Swap, 3, 2};   // RGBA2BGR
    case 4: return {Cvt::Swap, 3, 2};   // BGR2RGB
    case 5: return {Cvt::Swap, 4, 2};   // BGRA2RGBA
    case 6: case 10: return {Cvt::ToGray, 1, 0};
    case 7: case 11: return {Cvt::ToGray, 1, 2};
    case 8: return {Cvt::FromGray, 3, 0};
    case 9: return {Cvt::FromGray, 4, 0};
    case 36: return {Cvt::ToYcc, 3, 0};
    case 37: return {Cvt::ToYcc, 3, 2};
    case 38: return {Cvt::FromYcc, 3, 0};
    case 39: return {Cvt::FromYcc, 3, 2};
    case 40: return {Cvt::ToHsv, 3, 0, 180};
    case 41: return {Cvt::ToHsv, 3, 2, 180};
    case 54: return {Cvt::FromHsv, 3, 0, 180};
    case 55: return {Cvt::FromHsv, 3, 2, 180};
    case 66: return {Cvt::ToHsv, 3, 0, 256};
    case 67: return {Cvt::ToHsv, 3, 2, 256};
    case 70: return {Cvt::FromHsv, 3, 0, 255};
    default: return {Cvt::FromHsv, 3, 2, 255};  // 71
  }
}

// Channel counts the code accepts (OpenCV's CvtHelper sets): 1 for gray sources, 3 for
// YCrCb / HSV back-conversions, 3 or 4 otherwise.
inline void check_cvt_channels(int code, index_t scn) {
  const Cvt k = cvt_info(code).kind;
  const bool ok = k == Cvt::FromGray ? scn == 1 : (k == Cvt::FromHsv || k == Cvt::FromYcc) ? scn == 3
                                                                                         : (scn == 3 || scn == 4);
  if (!ok)
    cv_fail("Invalid number of channels in input image: 'VScn::contains(scn)' where 'scn' is " + std::to_string(scn),
            "cvtColor", "-15:Bad number of channels");
}

constexpr int R2Y = 4899, G2Y = 9617, B2Y = 1868, YCRI = 11682, YCBI = 9241;
constexpr int RY15 = 9798, GY15 = 19235, BY15 = 3735;
constexpr int CR2RI = 22987, CR2GI = -11698, CB2GI = -5636, CB2BI = 29049;
inline int descale(int x, int n) { return (x + (1 << (n - 1))) >> n; }

struct HsvTables {
  int sdiv[256], hdiv180[256], hdiv256[256];
  HsvTables() {
    sdiv[0] = hdiv180[0] = hdiv256[0] = 0;
    for (int i = 1; i < 256; ++i) {
      sdiv[i] = cv_round((255 << 12) / (1. * i));
      hdiv180[i] = cv_round((180 << 12) / (6. * i));
      hdiv256[i] = cv_round((256 << 12) / (6. * i));
    }
  }
};
inline const HsvTables& hsv_tables() {
  static const HsvTables t;
  return t;
}

inline void hsv_to_rgb(float h, float s, float v, float& b, float& g, float& r, float hscale) {
  if (s == 0) {
    b = g = r = v;
    return;
  }
  static const int sector_data[][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1}, {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
  h *= hscale;
  h = std::fmod(h, 6.f);
  int sector = cv_floor(h);
  h -= sector;
  if (static_cast<unsigned>(sector) >= 6u) {
    sector = 0;
    h = 0.f;
  }
  const float tab[4] = {v, v * (1.f - s), v * (1.f - s * h), v * (1.f - s * (1.f - h))};
  b = tab[sector_data[sector][0]];
  g = tab[sector_data[sector][1]];
  r = tab[sector_data[sector][2]];
}

// One pixel: s has scn channels, d gets dcn.
template <int Code, class T>
inline void cvt_pixel(const T* s, T* d, index_t scn, index_t dcn) {
  constexpr CvtInfo info = cvt_info(Code);
  constexpr int bi = info.bidx;
  constexpr bool flt = std::is_floating_point_v<T>;
  const T alpha = T(channel_max<T>());
  if constexpr (info.kind == Cvt::Swap) {
    const T b = s[0], g = s[1], r = s[2], a = scn == 4 ? s[3] : alpha;
    d[bi] = b, d[1] = g, d[bi ^ 2] = r;
    if (dcn == 4) d[3] = a;
  } else if constexpr (info.kind == Cvt::FromGray) {
    d[0] = d[1] = d[2] = s[0];
    if (dcn == 4) d[3] = alpha;
  } else if constexpr (info.kind == Cvt::ToGray) {
    if constexpr (flt) {
      const float cb = 0.114f, cg = 0.587f, cr = 0.299f;
      d[0] = T(s[bi] * cb + s[1] * cg + s[bi ^ 2] * cr);
    } else {
      // OpenCV 5 uses 15-bit coefficients here (OpenCV 4: the 14-bit ones of YCrCb)
      d[0] = T(descale(int(s[bi]) * BY15 + int(s[1]) * GY15 + int(s[bi ^ 2]) * RY15, 15));
    }
  } else if constexpr (info.kind == Cvt::ToYcc) {
    if constexpr (flt) {
      const T y = s[bi] * T(0.114f) + s[1] * T(0.587f) + s[bi ^ 2] * T(0.299f);
      d[0] = y;
      d[1] = (s[bi ^ 2] - y) * T(0.713f) + T(0.5f);
      d[2] = (s[bi] - y) * T(0.564f) + T(0.5f);
    } else {
      const int delta = (int(channel_max<T>()) / 2 + 1) << 14;
      const int y = descale(int(s[bi]) * B2Y + int(s[1]) * G2Y + int(s[bi ^ 2]) * R2Y, 14);
      d[0] = sat_int<T>(y);
      d[1] = sat_int<T>(descale((int(s[bi ^ 2]) - y) * YCRI + delta, 14));
      d[2] = sat_int<T>(descale((int(s[bi]) - y) * YCBI + delta, 14));
    }
  } else if constexpr (info.kind == Cvt::FromYcc) {
    if constexpr (flt) {
      const T y = s[0], cr = s[1] - T(0.5f), cb = s[2] - T(0.5f);
      d[bi] = y + cb * T(1.773f);
      d[1] = y + cb * T(-0.344f) + cr * T(-0.714f);
      d[bi ^ 2] = y + cr * T(1.403f);
    } else {
      const int half = int(channel_max<T>()) / 2 + 1, y = s[0], cr = int(s[1]) - half, cb = int(s[2]) - half;
      d[bi] = sat_int<T>(y + descale(cb * CB2BI, 14));
      d[1] = sat_int<T>(y + descale(cb * CB2GI + cr * CR2GI, 14));
      d[bi ^ 2] = sat_int<T>(y + descale(cr * CR2RI, 14));
    }
  } else if constexpr (info.kind == Cvt::ToHsv) {
    if constexpr (flt) {
      const float b = s[bi], g = s[1], r = s[bi ^ 2];
      float v = r, vmin = r;
      if (v < g) v = g;
      if (v < b) v = b;
      if (vmin > g) vmin = g;
      if (vmin > b) vmin = b;
      float diff = v - vmin, h;
      const float sat = diff / float(std::fabs(v) + FLT_EPSILON);
      diff = float(60. / (diff + FLT_EPSILON));
      if (v == r) h = (g - b) * diff;
      else if (v == g) h = (b - r) * diff + 120.f;
      else h = (r - g) * diff + 240.f;
      if (h < 0) h += 360.f;
      d[0] = h, d[1] = sat, d[2] = v;
    } else {
      const HsvTables& t = hsv_tables();
      const int* hdiv = info.hrange == 180 ? t.hdiv180 : t.hdiv256;
      const int b = s[bi], g = s[1], r = s[bi ^ 2];
      const int v = std::max(b, std::max(g, r)), vmin = std::min(b, std::min(g, r));
      const int diff = v - vmin, vr = v == r ? -1 : 0, vg = v == g ? -1 : 0;
      const int sat = (diff * t.sdiv[v] + (1 << 11)) >> 12;
      int h = (vr & (g - b)) + (~vr & ((vg & (b - r + 2 * diff)) + ((~vg) & (r - g + 4 * diff))));
      h = (h * hdiv[diff] + (1 << 11)) >> 12;
      h += h < 0 ? info.hrange : 0;
      d[0] = sat_int<T>(h), d[1] = T(sat), d[2] = T(v);
    }
  } else {  // FromHsv
    float b, g, r;
    if constexpr (flt) {
      hsv_to_rgb(s[0], s[1], s[2], b, g, r, 6.f / 360.f);
      d[bi] = b, d[1] = g, d[bi ^ 2] = r;
    } else {
      hsv_to_rgb(float(s[0]), s[1] * (1.f / 255.f), s[2] * (1.f / 255.f), b, g, r, 6.f / info.hrange);
      d[bi] = sat<T>(b * 255.f), d[1] = sat<T>(g * 255.f), d[bi ^ 2] = sat<T>(r * 255.f);
    }
  }
}

}  // namespace cvk

// cv2.cvtColor(src, code): NO is the result's rank (2 for gray results)
template <int Code, int NO, class T, int N>
Array<T, NO> cv_cvt_color(const Array<T, N>& src) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "cvtColor");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "cvtColor");
  cvk::check_cvt_channels(Code, s.cn);
  const index_t dcn = cvk::cvt_info(Code).dcn;
  auto out = cvk::new_image<T, NO>(s.rows, s.cols, dcn);
  auto d = cvk::image_of(out);
  for (index_t y = 0; y < s.rows; ++y) {
    const T* sp = s.row(y);
    T* dp = d.row(y);
    for (index_t x = 0; x < s.cols; ++x) cvk::cvt_pixel<Code>(sp + x * s.cn, dp + x * dcn, s.cn, dcn);
  }
  return out;
}

}  // namespace ep
