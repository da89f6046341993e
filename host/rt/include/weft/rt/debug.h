// weft runtime: print() and expect_eq / expect_neq / expect_near.
#pragma once

#include "weft/rt/spatial.h"

#ifndef __CUDACC_RTC__ // NVRTC declares it; nvcc and the CPU do not without <cstdio>
extern "C" int printf(const char *, ...);
#endif

// Failed expectations of a module, counted atomically. The generated translation
// unit expands WEFT_DEFINE_RUNTIME_GLOBALS once to define it (a __device__
// variable under CUDA, read by the host through the module's globals).
// In debug mode weft_bounds_failures counts a launch's failed bounds checks
// and weft_failure_log keeps the messages of the first WEFT_RT_FAILURE_LOG of
// them; the host logs those, counts the rest, and clears both.
// weft_print_lock keeps a thread's print / expect line whole (rt::LineLock).
#define WEFT_RT_FAILURE_LOG 8
#define WEFT_RT_FAILURE_MESSAGE 256
extern "C" {
#if defined(__CUDA_ARCH__)
extern __device__ int weft_expect_failures;
extern __device__ int weft_bounds_failures;
extern __device__ char weft_failure_log[WEFT_RT_FAILURE_LOG][WEFT_RT_FAILURE_MESSAGE];
extern __device__ int weft_print_lock;
#elif !defined(WEFT_RT_CUDA)
extern int weft_expect_failures;
extern int weft_bounds_failures;
extern char weft_failure_log[WEFT_RT_FAILURE_LOG][WEFT_RT_FAILURE_MESSAGE];
extern int weft_print_lock;
#endif
}
#ifdef WEFT_RT_CUDA
#define WEFT_DEFINE_RUNTIME_GLOBALS                                                                                    \
    extern "C" {                                                                                                       \
    __device__ int weft_expect_failures = 0;                                                                           \
    __device__ int weft_bounds_failures = 0;                                                                           \
    __device__ char weft_failure_log[WEFT_RT_FAILURE_LOG][WEFT_RT_FAILURE_MESSAGE] = {};                               \
    __device__ int weft_print_lock = 0;                                                                                \
    }
#else
#define WEFT_DEFINE_RUNTIME_GLOBALS                                                                                    \
    extern "C" {                                                                                                       \
    int weft_expect_failures = 0;                                                                                      \
    int weft_bounds_failures = 0;                                                                                      \
    char weft_failure_log[WEFT_RT_FAILURE_LOG][WEFT_RT_FAILURE_MESSAGE] = {};                                          \
    int weft_print_lock = 0;                                                                                           \
    }
#endif

namespace weft {
namespace rt {
/// Held while a thread writes one line of print / expect output with several
/// printf calls (one per value: device code has no snprintf to build the
/// line first), so lines of different threads never interleave. A spin lock:
/// on the GPU the threads of a warp may contend for it, which needs
/// independent thread scheduling (sm_70 and newer, every architecture weft's
/// NVRTC targets); below that it is not taken. Output is for debugging; a
/// kernel that prints from every thread serializes on it.
struct LineLock {
    WEFT_RT_FN LineLock() {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 700
        while (atomicCAS(&weft_print_lock, 0, 1) != 0) {
        }
        __threadfence();
#endif
#elif !defined(WEFT_RT_CUDA)
        while (__atomic_exchange_n(&weft_print_lock, 1, __ATOMIC_ACQUIRE) != 0) {
        }
#endif
    }
    WEFT_RT_FN ~LineLock() {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 700
        __threadfence();
        atomicExch(&weft_print_lock, 0);
#endif
#elif !defined(WEFT_RT_CUDA)
        __atomic_store_n(&weft_print_lock, 0, __ATOMIC_RELEASE);
#endif
    }
    LineLock(const LineLock &) = delete;
    LineLock &operator=(const LineLock &) = delete;
};

// One value, without a newline. `exact` prints floats with enough digits to tell them apart.
WEFT_RT_FN void pv(bool v, bool) { printf(v ? "True" : "False"); }
WEFT_RT_FN void pv(int8 v, bool) { printf("%d", int(v)); }
WEFT_RT_FN void pv(int16 v, bool) { printf("%d", int(v)); }
WEFT_RT_FN void pv(int32 v, bool) { printf("%d", v); }
WEFT_RT_FN void pv(int64 v, bool) { printf("%lld", v); }
WEFT_RT_FN void pv(uint8 v, bool) { printf("%u", unsigned(v)); }
WEFT_RT_FN void pv(uint16 v, bool) { printf("%u", unsigned(v)); }
WEFT_RT_FN void pv(uint32 v, bool) { printf("%u", v); }
WEFT_RT_FN void pv(uint64 v, bool) { printf("%llu", v); }
WEFT_RT_FN void pv(float16 v, bool exact) { printf(exact ? "%.5g" : "%g", double(float(v))); }
WEFT_RT_FN void pv(bfloat16 v, bool exact) { printf(exact ? "%.4g" : "%g", double(float(v))); }
WEFT_RT_FN void pv(float32 v, bool exact) { printf(exact ? "%.9g" : "%g", double(v)); }
WEFT_RT_FN void pv(float64 v, bool exact) { printf(exact ? "%.17g" : "%g", v); }
WEFT_RT_FN void pv(const char *s, bool) { printf("%s", s); }
template <int N, typename T> WEFT_RT_FN void pv(const vec_t<N, T> &v, bool exact) {
    for (int i = 0; i < N; ++i) {
        printf(i ? ", " : "[");
        pv(v.c[i], exact);
    }
    printf("]");
}
template <typename T> WEFT_RT_FN void pv(const quat_t<T> &q, bool exact) {
    for (int i = 0; i < 4; ++i) {
        printf(i ? ", " : "[");
        pv(q.c[i], exact);
    }
    printf("]");
}
template <typename T> WEFT_RT_FN void pv(const transform_t<T> &t, bool exact) {
    for (int i = 0; i < 7; ++i) {
        printf(i ? ", " : "[");
        pv(t[i], exact);
    }
    printf("]");
}
template <int R, int C, typename T> WEFT_RT_FN void pv(const mat_t<R, C, T> &m, bool exact) {
    for (int i = 0; i < R; ++i) {
        printf(i ? ", " : "[");
        pv(m.c[i], exact);
    }
    printf("]");
}

/// Appends to a fixed buffer (device code has no snprintf).
struct Message {
    char *out;
    int size;
    int used = 0;
    WEFT_RT_FN Message &text(const char *s) {
        while (*s && used + 1 < size) out[used++] = *s++;
        out[used] = 0;
        return *this;
    }
    WEFT_RT_FN Message &number(int64 v) {
        char digits[24];
        int n = 0;
        const bool negative = v < 0;
        uint64 u = negative ? uint64(0) - uint64(v) : uint64(v);
        do {
            digits[n++] = char('0' + int(u % 10));
            u /= 10;
        } while (u);
        if (negative) text("-");
        while (n > 0 && used + 1 < size) out[used++] = digits[--n];
        out[used] = 0;
        return *this;
    }
    WEFT_RT_FN Message &list(const int32 *values, int n) {
        text("[");
        for (int i = 0; i < n; ++i) {
            if (i) text(", ");
            number(values[i]);
        }
        return text("]");
    }
};

/// A message slot in the failure log for a failure the host should report
/// (the launch's first WEFT_RT_FAILURE_LOG), or nullptr; counted in
/// weft_bounds_failures, the number of logged failures.
WEFT_RT_FN char *failure_slot() {
#if defined(__CUDA_ARCH__)
    const int slot = atomicAdd(&weft_bounds_failures, 1);
#elif !defined(WEFT_RT_CUDA)
    const int slot = __atomic_fetch_add(&weft_bounds_failures, 1, __ATOMIC_SEQ_CST);
#else
    const int slot = WEFT_RT_FAILURE_LOG;
#endif
    // Negative: the counter wrapped (2^31 failures before the host read it).
    if (slot < 0 || slot >= WEFT_RT_FAILURE_LOG) return nullptr;
#if defined(__CUDA_ARCH__) || !defined(WEFT_RT_CUDA)
    return weft_failure_log[slot];
#else
    return nullptr;
#endif
}

WEFT_RT_FN void count_failure() {
#if defined(__CUDA_ARCH__)
    atomicAdd(&weft_expect_failures, 1);
#elif !defined(WEFT_RT_CUDA)
    __atomic_fetch_add(&weft_expect_failures, 1, __ATOMIC_SEQ_CST);
#endif
}
template <typename T>
WEFT_RT_FN void report(const char *what, const T &a, const char *rel, const T &b, const char *kernel, const char *file,
                       int32 line) {
    printf("%s failed in kernel '%s' at %s:%d: ", what, kernel, file, line);
    pv(a, true);
    printf(" %s ", rel);
    pv(b, true);
}
template <typename T, WEFT_RT_IF(is_scalar<T>)> WEFT_RT_FN bool near(T a, T b, float32 tolerance) {
    const double d = double(a) - double(b);
    return d <= double(tolerance) && -d <= double(tolerance); // NaN is never near
}
template <typename V, WEFT_RT_IF(comp<V>::is)> WEFT_RT_FN bool near(const V &a, const V &b, float32 tolerance) {
    for (int i = 0; i < comp<V>::n; ++i)
        if (!near(at(a, i), at(b, i), tolerance)) return false;
    return true;
}
} // namespace rt

/// print(a, b, ...): the values separated by spaces, then a newline. Strings
/// are C string literals; floats print with %g; bools as True/False;
/// vectors, quaternions and matrices as [x, y, z] and [[...], [...]].
template <typename... A> WEFT_RT_FN void print(const A &...a) {
    const rt::LineLock line;
    int k = 0;
    ((k++ ? (void)printf(" ") : (void)0, rt::pv(a, false)), ...);
    (void)k;
    printf("\n");
}

/// expect_*(..., kernel_name, file, line): on failure print one line naming the
/// kernel, the source position and both values, and count the failure.
template <typename T> WEFT_RT_FN void expect_eq(const T &a, const T &b, const char *kernel, const char *file, int32 line) {
    if (eq(a, b)) return;
    {
        const rt::LineLock whole;
        rt::report("expect_eq", a, "!=", b, kernel, file, line);
        printf("\n");
    }
    rt::count_failure();
}
template <typename T>
WEFT_RT_FN void expect_neq(const T &a, const T &b, const char *kernel, const char *file, int32 line) {
    if (!eq(a, b)) return;
    {
        const rt::LineLock whole;
        rt::report("expect_neq", a, "==", b, kernel, file, line);
        printf("\n");
    }
    rt::count_failure();
}
/// assert test[, message] in debug builds: one line naming kernel and
/// position when test is false, and a counted failure (the launch fails).
WEFT_RT_FN void assert_true(bool test, const char *message, const char *kernel, const char *file, int32 line) {
    if (test) return;
    {
        const rt::LineLock whole;
        printf("assertion failed in kernel '%s' at %s:%d%s%s\n", kernel, file, line, *message ? ": " : "", message);
    }
    rt::count_failure();
}
WEFT_RT_FN void assert_true(bool test, const char *kernel, const char *file, int32 line) {
    assert_true(test, "", kernel, file, line);
}
/// Every component within tolerance (Warp's default is 1e-6; the generator passes it).
template <typename T>
WEFT_RT_FN void expect_near(const T &a, const T &b, float32 tolerance, const char *kernel, const char *file,
                            int32 line) {
    if (rt::near(a, b, tolerance)) return;
    {
        const rt::LineLock whole;
        rt::report("expect_near", a, "!=", b, kernel, file, line);
        printf(" (tolerance %g)\n", double(tolerance));
    }
    rt::count_failure();
}

} // namespace weft
