// weft runtime: bounds-checked array access for modules built in debug mode.
// A failed check counts like a failed expect_*, records its message for the
// host to log (the first few of a launch) and reads or writes a scratch
// element instead of memory outside the array.
#pragma once

#include "weft/rt/array.h"
#include "weft/rt/debug.h"

namespace weft {
namespace rt {

/// A failed bounds check: counted (the launch fails), and for the launch's
/// first WEFT_RT_FAILURE_LOG failures a message naming the array, the index,
/// the shape, the kernel, the line and the thread (its linear index, tid_t::idx:
/// on CUDA the grid-stride loop's element), which the host logs. No
/// output here: a launch with a million bad indices logs a few lines, not a
/// million.
WEFT_RT_FN void bounds_failure(const char *array, const char *kernel, const char *file, int32 line, int64 thread,
                               const int32 *index, int n, const int32 *shape, int32 ndim, const char *kind = "array") {
    count_failure();
    char *slot = failure_slot();
    if (!slot) return;
#if defined(__CUDA_ARCH__) || !defined(WEFT_RT_CUDA)
    Message m{slot, WEFT_RT_FAILURE_MESSAGE};
    m.text(kind).text(" '").text(array).text("' index ").list(index, n).text(" is out of bounds for shape ").list(shape, ndim);
    m.text(" in kernel '").text(kernel).text("' at ").text(file).text(":").number(line);
    m.text(", thread ").number(thread);
#else
    (void)array, (void)kernel, (void)file, (void)line, (void)index, (void)n, (void)shape, (void)ndim, (void)thread, (void)kind;
#endif
}

/// An integer division or remainder by zero in debug mode: counted and
/// logged like a failed bounds check (release code gives 0, and so does
/// this: Warp's CPU code traps with SIGFPE instead).
WEFT_RT_FN void division_failure(const char *op, const char *kernel, const char *file, int32 line, int64 thread) {
    count_failure();
    char *slot = failure_slot();
    if (!slot) return;
#if defined(__CUDA_ARCH__) || !defined(WEFT_RT_CUDA)
    Message m{slot, WEFT_RT_FAILURE_MESSAGE};
    m.text("integer ").text(op).text(" by zero in kernel '").text(kernel).text("' at ").text(file).text(":").number(line);
    m.text(", thread ").number(thread);
#else
    (void)op, (void)kernel, (void)file, (void)line, (void)thread;
#endif
}

/// Scratch storage a failed access uses instead of memory outside the array.
template <typename T> WEFT_RT_FN T &scratch() {
#if defined(__CUDA_ARCH__)
    __shared__ alignas(T) unsigned char bytes[sizeof(T)];
#else
    alignas(T) static thread_local unsigned char bytes[sizeof(T)];
#endif
    return *reinterpret_cast<T *>(bytes);
}

} // namespace rt

/// Integer a / b, a // b and a % b in debug mode (b an integer scalar; a one,
/// or an integer vector): a zero divisor is a reported failure.
#define WEFT_RT_CHECKED_DIVISION(name, what)                                                                            \
    template <typename A, typename B>                                                                                  \
    WEFT_RT_FN A name##_checked(A a, B b, const char *kernel, const char *file, int32 line, int64 thread) {            \
        if (b == B(0)) rt::division_failure(what, kernel, file, line, thread);                                         \
        return name(a, b);                                                                                             \
    }
WEFT_RT_CHECKED_DIVISION(div, "division")
WEFT_RT_CHECKED_DIVISION(floordiv, "division")
WEFT_RT_CHECKED_DIVISION(mod, "remainder")
#undef WEFT_RT_CHECKED_DIVISION

/// a[i, ...] in debug mode: every index within its dimension, else a reported
/// failure and the scratch element.
template <bool Contig, typename T, typename... I>
WEFT_RT_FN T &index_checked(const array_t<T> &a, const char *array, const char *kernel, const char *file, int32 line,
                            int64 thread, I... i) {
    const int32 index[] = {int32(i)...};
    constexpr int n = int(sizeof...(I));
    bool inside = a.ndim == n;
    // Warp's rule: -shape[d] <= i < 0 counts from the end.
    for (int d = 0; d < n && inside; ++d) inside = index[d] >= -a.shape[d] && index[d] < a.shape[d];
    if (inside) return index_c<Contig>(a, i...);
    rt::bounds_failure(array, kernel, file, line, thread, index, n, a.shape, a.ndim);
    return rt::scratch<T>();
}

/// An indexed array's a[i, ...] in debug mode: each index within the indexed
/// shape, and each index array's value within the base array, else a reported
/// failure and the scratch element.
template <bool Contig, typename T, typename... I>
WEFT_RT_FN T &index_checked(const indexedarray_t<T> &a, const char *array, const char *kernel, const char *file,
                            int32 line, int64 thread, I... i) {
    int32 index[] = {int32(i)...};
    constexpr int n = int(sizeof...(I));
    bool inside = a.arr.ndim == n;
    for (int d = 0; d < n && inside; ++d) inside = index[d] >= -a.shape[d] && index[d] < a.shape[d];
    if (!inside) {
        rt::bounds_failure(array, kernel, file, line, thread, index, n, a.shape, a.arr.ndim);
        return rt::scratch<T>();
    }
    int32 base[n];
    for (int d = 0; d < n; ++d) {
        base[d] = rt::through(a, d, rt::wrap(index[d], a.shape[d]));
        inside = inside && base[d] >= 0 && base[d] < a.arr.shape[d];
    }
    if (inside) return rt::element_at(a.arr, base);
    rt::bounds_failure(array, kernel, file, line, thread, base, n, a.arr.shape, a.arr.ndim);
    return rt::scratch<T>();
}

/// atomic_add(a, i..., v) and friends in debug mode (the value first: it
/// follows the indices in the kernel's call): an index outside the array is
/// a reported failure applied to the scratch element.
#define WEFT_RT_ATOMIC_CHECKED(name, OP, VALUE)                                                                        \
    template <typename T, template <typename> class A, typename... I>                                                  \
    WEFT_RT_FN T name##_checked(typename rt::nodeduce<T>::type v, const A<T> &a, const char *array,                    \
                                const char *kernel, const char *file, int32 line, int64 thread, I... i) {              \
        return rt::atomic<OP>(&index_checked<false>(a, array, kernel, file, line, thread, i...), VALUE);                \
    }
WEFT_RT_ATOMIC_CHECKED(atomic_add, rt::op_add, v)
WEFT_RT_ATOMIC_CHECKED(atomic_sub, rt::op_add, neg(v))
WEFT_RT_ATOMIC_CHECKED(atomic_min, rt::op_min, v)
WEFT_RT_ATOMIC_CHECKED(atomic_max, rt::op_max, v)
WEFT_RT_ATOMIC_CHECKED(atomic_and, rt::op_and, v)
WEFT_RT_ATOMIC_CHECKED(atomic_or, rt::op_or, v)
WEFT_RT_ATOMIC_CHECKED(atomic_xor, rt::op_xor, v)
WEFT_RT_ATOMIC_CHECKED(atomic_exch, rt::op_exch, v)
#undef WEFT_RT_ATOMIC_CHECKED
template <typename T, template <typename> class A, typename... I>
WEFT_RT_FN T atomic_cas_checked(typename rt::nodeduce<T>::type c, typename rt::nodeduce<T>::type v, const A<T> &a,
                                const char *array, const char *kernel, const char *file, int32 line, int64 thread,
                                I... i) {
    return rt::atomic_cas(&index_checked<false>(a, array, kernel, file, line, thread, i...), c, v);
}

} // namespace weft
