// weft runtime for generated kernel code: macros, traits, scalar types, float16, bfloat16.
//
// These headers are compiled into every module, by Clang on the CPU and by
// NVRTC for CUDA, so they include nothing (no libc, no STL: NVRTC has neither)
// and stay small (every line is compile latency). Internals live in weft::rt.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WEFT_RT_CUDA 1
#define WEFT_RT_HD __host__ __device__
#else
#define WEFT_RT_HD
#endif
// Internal: every runtime function.
#define WEFT_RT_FN WEFT_RT_HD inline
// Internal: at the top of every `while` body. C++ lets a compiler assume a
// loop without side effects ends (and delete it); a kernel's `while True:`
// or `while flag[0] == 0:` must spin as written. The CPU compile says so with
// -fno-finite-loops; NVRTC has no such flag, so device code gets an empty
// volatile asm, a side effect that costs no instruction.
#if defined(__CUDA_ARCH__)
#define WEFT_LOOP_PROGRESS() asm volatile("")
#else
#define WEFT_LOOP_PROGRESS() ((void)0)
#endif
// Internal: CUDA entry parameters read in place (sm_70 and newer; every
// architecture weft's NVRTC targets), never copied to local memory.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define WEFT_GRID_CONSTANT __grid_constant__
#else
#define WEFT_GRID_CONSTANT
#endif

// Public, for plugin preambles: write `WEFT_CALLABLE inline T f(...)`. No
// `inline` in the macro, as in the plugin SDK's headers and Warp's
// CUDA_CALLABLE, so the same text defined by a plugin is identical.
#ifndef WEFT_CALLABLE
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WEFT_CALLABLE __host__ __device__
#else
#define WEFT_CALLABLE
#endif
#endif
#ifndef CUDA_CALLABLE
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CUDA_CALLABLE __host__ __device__
#else
#define CUDA_CALLABLE
#endif
#endif

#define WEFT_RT_IF(...) typename ::weft::rt::enable_if<(__VA_ARGS__)>::type = 0

namespace weft {

// Kernel scalar types (bool is bool).
typedef signed char int8;
typedef short int16;
typedef int int32;
typedef long long int64;
typedef unsigned char uint8;
typedef unsigned short uint16;
typedef unsigned int uint32;
typedef unsigned long long uint64;
typedef float float32;
typedef double float64;
static_assert(sizeof(int16) == 2 && sizeof(int32) == 4 && sizeof(int64) == 8, "weft: integer sizes");

struct float16;
struct bfloat16;

namespace rt {
template <bool B, typename T = int> struct enable_if {};
template <typename T> struct enable_if<true, T> { typedef T type; };
template <typename A, typename B> struct same { static constexpr bool value = false; };
template <typename A> struct same<A, A> { static constexpr bool value = true; };
template <typename T> struct nodeduce { typedef T type; };

// Scalar kinds: 0 not a scalar, 1 bool, 2 signed integer, 3 unsigned integer, 4 float.
template <typename T> struct num { static constexpr int kind = 0; };
template <> struct num<bool> { static constexpr int kind = 1; };
template <> struct num<signed char> { static constexpr int kind = 2; };
template <> struct num<short> { static constexpr int kind = 2; };
template <> struct num<int> { static constexpr int kind = 2; };
template <> struct num<long> { static constexpr int kind = 2; };
template <> struct num<long long> { static constexpr int kind = 2; };
template <> struct num<unsigned char> { static constexpr int kind = 3; };
template <> struct num<unsigned short> { static constexpr int kind = 3; };
template <> struct num<unsigned int> { static constexpr int kind = 3; };
template <> struct num<unsigned long> { static constexpr int kind = 3; };
template <> struct num<unsigned long long> { static constexpr int kind = 3; };
template <> struct num<float> { static constexpr int kind = 4; };
template <> struct num<double> { static constexpr int kind = 4; };
template <> struct num<float16> { static constexpr int kind = 4; };
template <> struct num<bfloat16> { static constexpr int kind = 4; };
template <typename T> constexpr bool is_scalar = num<T>::kind != 0;
template <typename T> constexpr bool is_int = num<T>::kind == 2 || num<T>::kind == 3;
template <typename T> constexpr bool is_signed_int = num<T>::kind == 2;
template <typename T> constexpr bool is_float = num<T>::kind == 4;
template <typename... A> constexpr bool all_scalar = (true && ... && is_scalar<A>);
template <typename T, typename... A> constexpr bool all_same = (true && ... && same<T, A>::value);

// Integer arithmetic is done in an unsigned type at least as wide as int, so
// that it wraps (as in Warp/C on the GPU) instead of being undefined.
template <int S> struct wide_unsigned { typedef unsigned int type; };
template <> struct wide_unsigned<8> { typedef unsigned long long type; };
template <typename T> using wide = typename wide_unsigned<sizeof(T)>::type;
template <int S> struct uint_of_size;
template <> struct uint_of_size<1> { typedef uint8 type; };
template <> struct uint_of_size<2> { typedef uint16 type; };
template <> struct uint_of_size<4> { typedef uint32 type; };
template <> struct uint_of_size<8> { typedef uint64 type; };
template <typename T> using bits_of = typename uint_of_size<sizeof(T)>::type;

// IEEE binary16 <-> binary32, round to nearest even.
WEFT_RT_HD constexpr uint16 f32_to_f16(float f) {
    const uint32 x = __builtin_bit_cast(uint32, f);
    const uint32 sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return uint16(sign | 0x7e00u);  // NaN
    if (a >= 0x477ff000u) return uint16(sign | 0x7c00u); // >= 65520: infinity
    if (a >= 0x38800000u) {                              // normal
        const uint32 h = a - 0x38000000u;
        return uint16(sign | ((h + 0x0fffu + ((h >> 13) & 1u)) >> 13));
    }
    if (a < 0x33000000u) return uint16(sign); // below half the smallest subnormal
    const uint32 s = 126u - (a >> 23), m = (a & 0x7fffffu) | 0x800000u;
    uint32 q = m >> s;
    const uint32 rem = m & ((1u << s) - 1u), half = 1u << (s - 1u);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return uint16(sign | q);
}
WEFT_RT_HD constexpr float f16_to_f32(uint16 h) {
    const uint32 sign = uint32(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        const float v = float(m) * 5.9604644775390625e-8f; // m * 2^-24
        return sign ? -v : v;
    }
    if (e == 31) return __builtin_bit_cast(float, sign | 0x7f800000u | (m << 13));
    return __builtin_bit_cast(float, sign | ((e + 112u) << 23) | (m << 13));
}
// binary32 -> bfloat16 bit for bit as Warp's wp_float_to_bfloat16_bits_sw (its
// CPU path): round to nearest even; infinities and NaNs truncate, a NaN whose
// kept payload would be zero gets the quiet bit so it stays a NaN.
WEFT_RT_HD constexpr uint16 f32_to_bf16(float f) {
    const uint32 x = __builtin_bit_cast(uint32, f);
    if ((x & 0x7f800000u) == 0x7f800000u) {
        const uint16 h = uint16(x >> 16);
        return (x & 0x7fffffu) != 0u && (h & 0x7fu) == 0u ? uint16(h | 0x40u) : h;
    }
    return uint16((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
WEFT_RT_HD constexpr float bf16_to_f32(uint16 b) { return __builtin_bit_cast(float, uint32(b) << 16); }
} // namespace rt

/// IEEE half: storage only; arithmetic converts to float and back.
/// static_cast works to and from every scalar type.
struct float16 {
    uint16 bits;
    float16() = default;
    template <typename U, WEFT_RT_IF(rt::num<U>::kind != 0 && !rt::same<U, float16>::value)>
    WEFT_RT_HD constexpr explicit float16(U v) : bits(rt::f32_to_f16(static_cast<float>(v))) {}
    WEFT_RT_HD constexpr operator float() const { return rt::f16_to_f32(bits); }
    WEFT_RT_HD static constexpr float16 from_bits(uint16 b) {
        float16 h{};
        h.bits = b;
        return h;
    }
};
static_assert(sizeof(float16) == 2 && alignof(float16) == 2, "weft: float16 layout");

/// bfloat16 (float32's exponent, 8 bits of precision): storage only, as float16.
struct bfloat16 {
    uint16 bits;
    bfloat16() = default;
    template <typename U, WEFT_RT_IF(rt::num<U>::kind != 0 && !rt::same<U, bfloat16>::value)>
    WEFT_RT_HD constexpr explicit bfloat16(U v) : bits(rt::f32_to_bf16(static_cast<float>(v))) {}
    WEFT_RT_HD constexpr operator float() const { return rt::bf16_to_f32(bits); }
    WEFT_RT_HD static constexpr bfloat16 from_bits(uint16 b) {
        bfloat16 h{};
        h.bits = b;
        return h;
    }
};
static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2, "weft: bfloat16 layout");

namespace rt {
// Accumulation type: float16 and bfloat16 math runs in float32.
template <typename T> struct acc_of { typedef T type; };
template <> struct acc_of<float16> { typedef float32 type; };
template <> struct acc_of<bfloat16> { typedef float32 type; };
template <typename T> using acc = typename acc_of<T>::type;
} // namespace rt

} // namespace weft
