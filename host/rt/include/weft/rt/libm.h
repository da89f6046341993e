// weft runtime: the C math library's names (powf, sqrtf, fabs, fmaf, ...)
// for @wp.func_native snippets on the CPU. Warp's CPU snippets see <math.h>;
// weft's runtime includes no system header, so these forward to the
// compiler's builtins (the same code <math.h>'s functions give at -O2).
// In CUDA, NVRTC declares them itself. Snippets get them through
// using-declarations (WEFT_RT_LIBM_USING), which a plugin's own <math.h>
// does not make ambiguous.
#pragma once

#include "weft/rt/base.h"

#ifndef WEFT_RT_CUDA

#define WEFT_RT_LIBM_F1(name) \
    inline float name##f(float a) { return __builtin_##name##f(a); } \
    inline double name(double a) { return __builtin_##name(a); }
#define WEFT_RT_LIBM_F2(name) \
    inline float name##f(float a, float b) { return __builtin_##name##f(a, b); } \
    inline double name(double a, double b) { return __builtin_##name(a, b); }

namespace weft::libm {
WEFT_RT_LIBM_F1(sqrt) WEFT_RT_LIBM_F1(cbrt) WEFT_RT_LIBM_F1(exp) WEFT_RT_LIBM_F1(exp2) WEFT_RT_LIBM_F1(expm1)
WEFT_RT_LIBM_F1(log) WEFT_RT_LIBM_F1(log2) WEFT_RT_LIBM_F1(log10) WEFT_RT_LIBM_F1(log1p)
WEFT_RT_LIBM_F1(sin) WEFT_RT_LIBM_F1(cos) WEFT_RT_LIBM_F1(tan) WEFT_RT_LIBM_F1(asin) WEFT_RT_LIBM_F1(acos)
WEFT_RT_LIBM_F1(atan) WEFT_RT_LIBM_F1(sinh) WEFT_RT_LIBM_F1(cosh) WEFT_RT_LIBM_F1(tanh)
WEFT_RT_LIBM_F1(asinh) WEFT_RT_LIBM_F1(acosh) WEFT_RT_LIBM_F1(atanh)
WEFT_RT_LIBM_F1(fabs) WEFT_RT_LIBM_F1(floor) WEFT_RT_LIBM_F1(ceil) WEFT_RT_LIBM_F1(round) WEFT_RT_LIBM_F1(trunc)
WEFT_RT_LIBM_F1(rint) WEFT_RT_LIBM_F1(nearbyint) WEFT_RT_LIBM_F1(erf) WEFT_RT_LIBM_F1(erfc)
WEFT_RT_LIBM_F1(tgamma) WEFT_RT_LIBM_F1(lgamma)
WEFT_RT_LIBM_F2(pow) WEFT_RT_LIBM_F2(atan2) WEFT_RT_LIBM_F2(fmod) WEFT_RT_LIBM_F2(fmin) WEFT_RT_LIBM_F2(fmax)
WEFT_RT_LIBM_F2(hypot) WEFT_RT_LIBM_F2(copysign) WEFT_RT_LIBM_F2(remainder)
inline float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
inline float ldexpf(float a, int e) { return __builtin_ldexpf(a, e); }
inline double ldexp(double a, int e) { return __builtin_ldexp(a, e); }
} // namespace weft::libm

#undef WEFT_RT_LIBM_F1
#undef WEFT_RT_LIBM_F2

// The names a snippet sees, as block-scope using-declarations. The ones
// weft's runtime has under the same name (sqrt, sin, pow ...) stay weft's:
// those take every scalar type.
#define WEFT_RT_LIBM_USING                                                                                             \
    using ::weft::libm::sqrtf; using ::weft::libm::cbrtf; using ::weft::libm::cbrt; using ::weft::libm::expf;          \
    using ::weft::libm::exp2f; using ::weft::libm::exp2; using ::weft::libm::expm1f; using ::weft::libm::expm1;        \
    using ::weft::libm::logf; using ::weft::libm::log2f; using ::weft::libm::log10f; using ::weft::libm::log1pf;       \
    using ::weft::libm::log1p; using ::weft::libm::sinf; using ::weft::libm::cosf; using ::weft::libm::tanf;           \
    using ::weft::libm::asinf; using ::weft::libm::acosf; using ::weft::libm::atanf; using ::weft::libm::sinhf;        \
    using ::weft::libm::coshf; using ::weft::libm::tanhf; using ::weft::libm::asinhf; using ::weft::libm::asinh;       \
    using ::weft::libm::acoshf; using ::weft::libm::acosh; using ::weft::libm::atanhf; using ::weft::libm::atanh;      \
    using ::weft::libm::fabsf; using ::weft::libm::fabs; using ::weft::libm::floorf; using ::weft::libm::ceilf;        \
    using ::weft::libm::roundf; using ::weft::libm::truncf; using ::weft::libm::rintf; using ::weft::libm::nearbyintf; \
    using ::weft::libm::nearbyint; using ::weft::libm::erff; using ::weft::libm::erf; using ::weft::libm::erfcf;       \
    using ::weft::libm::erfc; using ::weft::libm::tgammaf; using ::weft::libm::tgamma; using ::weft::libm::lgammaf;    \
    using ::weft::libm::lgamma; using ::weft::libm::powf; using ::weft::libm::atan2f; using ::weft::libm::fmodf;       \
    using ::weft::libm::fmod; using ::weft::libm::fminf; using ::weft::libm::fmin; using ::weft::libm::fmaxf;          \
    using ::weft::libm::fmax; using ::weft::libm::hypotf; using ::weft::libm::hypot; using ::weft::libm::copysignf;    \
    using ::weft::libm::copysign; using ::weft::libm::remainderf; using ::weft::libm::remainder;                      \
    using ::weft::libm::fmaf; using ::weft::libm::fma; using ::weft::libm::ldexpf; using ::weft::libm::ldexp;
#else
#define WEFT_RT_LIBM_USING
#endif
