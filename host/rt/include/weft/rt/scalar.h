// weft runtime: scalar core builtins (operators, comparisons, bit ops, math).
// One template per builtin covers every scalar type; integer results are cast
// back to the operand type (int8 + int8 is int8 and wraps).
#pragma once

#include "weft/rt/base.h"

#ifdef WEFT_RT_CUDA
#define WEFT_RT_MF(name) ::name##f
#define WEFT_RT_MD(name) ::name
#else
#define WEFT_RT_MF(name) __builtin_##name##f
#define WEFT_RT_MD(name) __builtin_##name
#endif
#define WEFT_RT_MATH1(name, fn)                                                                                        \
    WEFT_RT_FN float32 name(float32 a) { return WEFT_RT_MF(fn)(a); }                                                   \
    WEFT_RT_FN float64 name(float64 a) { return WEFT_RT_MD(fn)(a); }                                                   \
    WEFT_RT_FN float16 name(float16 a) { return float16(WEFT_RT_MF(fn)(float32(a))); }                                 \
    WEFT_RT_FN bfloat16 name(bfloat16 a) { return bfloat16(WEFT_RT_MF(fn)(float32(a))); }
#define WEFT_RT_MATH2(name, fn)                                                                                        \
    WEFT_RT_FN float32 name(float32 a, float32 b) { return WEFT_RT_MF(fn)(a, b); }                                     \
    WEFT_RT_FN float64 name(float64 a, float64 b) { return WEFT_RT_MD(fn)(a, b); }                                     \
    WEFT_RT_FN float16 name(float16 a, float16 b) { return float16(WEFT_RT_MF(fn)(float32(a), float32(b))); }          \
    WEFT_RT_FN bfloat16 name(bfloat16 a, bfloat16 b) { return bfloat16(WEFT_RT_MF(fn)(float32(a), float32(b))); }
#define WEFT_RT_SCALAR template <typename T, WEFT_RT_IF(::weft::rt::is_scalar<T>)> WEFT_RT_FN
#define WEFT_RT_INT template <typename T, WEFT_RT_IF(::weft::rt::is_int<T>)> WEFT_RT_FN

namespace weft {

WEFT_RT_MATH1(sqrt, sqrt)
WEFT_RT_MATH1(exp, exp)
WEFT_RT_MATH1(log, log)
WEFT_RT_MATH1(log2, log2)
WEFT_RT_MATH1(log10, log10)
WEFT_RT_MATH1(sin, sin)
WEFT_RT_MATH1(cos, cos)
WEFT_RT_MATH1(tan, tan)
WEFT_RT_MATH1(asin, asin)
WEFT_RT_MATH1(acos, acos)
WEFT_RT_MATH1(atan, atan)
WEFT_RT_MATH1(sinh, sinh)
WEFT_RT_MATH1(cosh, cosh)
WEFT_RT_MATH1(tanh, tanh)
WEFT_RT_MATH1(floor, floor)
WEFT_RT_MATH1(ceil, ceil)
WEFT_RT_MATH1(round, round) // halfway cases away from zero (C round, as Warp)
WEFT_RT_MATH1(trunc, trunc)
WEFT_RT_MATH1(rint, rint) // halfway cases to even (the default rounding mode, as Warp's rint)
WEFT_RT_MATH1(cbrt, cbrt)
WEFT_RT_MATH2(copysign, copysign) // x with the sign bit of y
WEFT_RT_MATH1(erf, erf)
WEFT_RT_MATH1(erfc, erfc)
WEFT_RT_MATH2(pow, pow)
WEFT_RT_MATH2(atan2, atan2) // atan2(y=a, x=b)
namespace rt {
WEFT_RT_MATH1(fabs, fabs)
WEFT_RT_MATH2(fmod, fmod)
} // namespace rt

#define WEFT_RT_FPRED(name, builtin)                                                                                   \
    WEFT_RT_FN bool name(float32 a) { return builtin(a); }                                                             \
    WEFT_RT_FN bool name(float64 a) { return builtin(a); }                                                             \
    WEFT_RT_FN bool name(float16 a) { return builtin(float32(a)); }                                                    \
    WEFT_RT_FN bool name(bfloat16 a) { return builtin(float32(a)); }
WEFT_RT_FPRED(isfinite, __builtin_isfinite)
WEFT_RT_FPRED(isnan, __builtin_isnan)
WEFT_RT_FPRED(isinf, __builtin_isinf)

// -- arithmetic ---------------------------------------------------------------
WEFT_RT_SCALAR T add(T a, T b) {
    if constexpr (rt::is_int<T>) return T(rt::wide<T>(a) + rt::wide<T>(b));
    else return T(a + b);
}
WEFT_RT_SCALAR T sub(T a, T b) {
    if constexpr (rt::is_int<T>) return T(rt::wide<T>(a) - rt::wide<T>(b));
    else return T(a - b);
}
WEFT_RT_SCALAR T mul(T a, T b) {
    if constexpr (rt::is_int<T>) return T(rt::wide<T>(a) * rt::wide<T>(b));
    else return T(a * b);
}
WEFT_RT_SCALAR T neg(T a) {
    if constexpr (rt::is_int<T>) return T(rt::wide<T>(0) - rt::wide<T>(a));
    else return T(-a);
}
WEFT_RT_SCALAR T pos(T a) { return a; }

namespace rt {
// Python's float divmod: floor quotient and a remainder with the sign of b.
template <typename A> WEFT_RT_FN void py_divmod(A a, A b, A &q, A &r) {
    r = fmod(a, b);
    A d = (a - r) / b;
    if (r != A(0)) {
        if ((b < A(0)) != (r < A(0))) {
            r += b;
            d -= A(1);
        }
    }
    if (d != A(0)) {
        q = floor(d);
        if (d - q > A(0.5)) q += A(1);
    } else {
        q = (a / b < A(0)) ? -A(0) : A(0);
    }
}
} // namespace rt

/// Integers truncate; division by zero gives 0 (it must not trap).
WEFT_RT_SCALAR T div(T a, T b) {
    if constexpr (rt::is_int<T>) {
        if (b == T(0)) return T(0);
        if constexpr (rt::is_signed_int<T>)
            if (b == T(-1)) return neg(a); // INT_MIN / -1 traps on x86
        return T(a / b);
    } else {
        return T(a / b);
    }
}
/// Rounds toward negative infinity (Python //); integer division by zero gives 0.
WEFT_RT_SCALAR T floordiv(T a, T b) {
    if constexpr (rt::is_int<T>) {
        if (b == T(0)) return T(0);
        if constexpr (rt::is_signed_int<T>) {
            if (b == T(-1)) return neg(a);
            T q = T(a / b);
            if (T(a % b) != T(0) && ((a < T(0)) != (b < T(0)))) q = T(q - 1);
            return q;
        }
        return T(a / b);
    } else {
        rt::acc<T> q, r;
        rt::py_divmod(rt::acc<T>(a), rt::acc<T>(b), q, r);
        return T(q);
    }
}
/// Remainder with the sign of a, as C's % and fmod (Warp's %, beside its
/// flooring //: -7 % 3 == -1, -7.5 % 2.0 == -1.5); integer modulo by zero gives 0.
WEFT_RT_SCALAR T mod(T a, T b) {
    if constexpr (rt::is_int<T>) {
        if (b == T(0)) return T(0);
        if constexpr (rt::is_signed_int<T>)
            if (b == T(-1)) return T(0); // INT_MIN % -1 traps on x86
        return T(a % b);
    } else {
        return T(rt::fmod(rt::acc<T>(a), rt::acc<T>(b)));
    }
}

WEFT_RT_SCALAR T min(T a, T b) { return b < a ? b : a; }
WEFT_RT_SCALAR T max(T a, T b) { return a < b ? b : a; }
WEFT_RT_SCALAR T clamp(T x, T low, T high) { return min(max(x, low), high); }
WEFT_RT_SCALAR T abs(T a) {
    if constexpr (rt::is_float<T>) return rt::fabs(a);
    else if constexpr (rt::is_signed_int<T>) return a < T(0) ? neg(a) : a;
    else return a;
}
/// Warp's sign: -1 when a < 0, else 1 (zero, -0.0 and NaN included; warp-lang 1.19).
WEFT_RT_SCALAR T sign(T a) {
    if constexpr (rt::is_int<T> && !rt::is_signed_int<T>) return T(1);
    else return a < T(0) ? T(-1) : T(1);
}

WEFT_RT_SCALAR bool lt(T a, T b) { return a < b; }
WEFT_RT_SCALAR bool le(T a, T b) { return a <= b; }
WEFT_RT_SCALAR bool gt(T a, T b) { return a > b; }
WEFT_RT_SCALAR bool ge(T a, T b) { return a >= b; }
WEFT_RT_SCALAR bool eq(T a, T b) { return a == b; }
WEFT_RT_SCALAR bool ne(T a, T b) { return a != b; }

// -- bit operations (integers); shift counts are taken modulo the width of
// the promoted type (32 or 64 bits), left shifts wrap.
WEFT_RT_INT T bit_and(T a, T b) { return T(a & b); }
WEFT_RT_INT T bit_or(T a, T b) { return T(a | b); }
WEFT_RT_INT T bit_xor(T a, T b) { return T(a ^ b); }
WEFT_RT_INT T invert(T a) { return T(~a); }
WEFT_RT_INT T lshift(T a, T b) { return T(rt::wide<T>(a) << (rt::wide<T>(b) & (sizeof(rt::wide<T>) * 8 - 1))); }
WEFT_RT_INT T rshift(T a, T b) { return T(a >> (rt::wide<T>(b) & (sizeof(rt::wide<T>) * 8 - 1))); }

// Warp's step, nonzero, frac and smoothstep, as it computes them.
WEFT_RT_SCALAR T step(T x) { return x < T(0) ? T(1) : T(0); }
WEFT_RT_SCALAR T nonzero(T x) { return x == T(0) ? T(0) : T(1); }
WEFT_RT_FN float32 frac(float32 x) { return x - trunc(x); }
WEFT_RT_FN float64 frac(float64 x) { return x - trunc(x); }
WEFT_RT_FN float16 frac(float16 x) { return float16(float32(x) - trunc(float32(x))); }
WEFT_RT_FN bfloat16 frac(bfloat16 x) { return bfloat16(float32(x) - trunc(float32(x))); }
template <typename T, WEFT_RT_IF(rt::is_float<T>)> WEFT_RT_FN T smoothstep(T edge0, T edge1, T x) {
    x = clamp(T((x - edge0) / (edge1 - edge0)), T(0), T(1));
    return T(x * x * (T(3) - T(2) * x));
}
/// The set bits of x, as Warp's bit_count (an int32 for every integer type; a signed
/// value's bits as its unsigned type's).
WEFT_RT_FN int32 bit_count(uint64 x) {
#ifdef WEFT_RT_CUDA
    return int32(__popcll(x));
#else
    return int32(__builtin_popcountll(x));
#endif
}
WEFT_RT_FN int32 bit_count(uint32 x) { return bit_count(uint64(x)); }
WEFT_RT_FN int32 bit_count(uint16 x) { return bit_count(uint64(x)); }
WEFT_RT_FN int32 bit_count(uint8 x) { return bit_count(uint64(x)); }
WEFT_RT_FN int32 bit_count(int64 x) { return bit_count(uint64(x)); }
WEFT_RT_FN int32 bit_count(int32 x) { return bit_count(uint32(x)); }
WEFT_RT_FN int32 bit_count(int16 x) { return bit_count(uint16(x)); }
WEFT_RT_FN int32 bit_count(int8 x) { return bit_count(uint8(x)); }

/// Warp's div_approx: a / b (Warp's CUDA code may use a faster reciprocal; weft divides
/// exactly on every device, as Warp's CPU code does).
template <typename T, WEFT_RT_IF(rt::is_float<T>)> WEFT_RT_FN T div_approx(T a, T b) { return div(a, b); }

} // namespace weft
