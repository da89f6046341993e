// The host half of the runtime headers: functions generated CPU code calls
// in the host. The CPU JIT defines them in each module's JITDylib
// (backend/cpu/jit.cpp), so generated code declares them and never compiles
// them; tests/runtime links them to test the headers natively.
//
// They are the parts of the runtime headers that every kernel using them
// would otherwise compile again: the test that two arrays share no byte
// (weft::disjoint, once per chunk of a launch) and the tables of deferred
// atomic adds (weft::rt::deferred_adds, codegen/deferred_atomics.hpp).
// Compiled in each unit, they were 40-60% of the compile of a small
// reduction or histogram kernel and a fifth of a 2-D stencil's. Their
// layouts and semantics are the runtime header's (host/rt/include/
// weft/rt/array.h); the static_asserts below keep the two in step.
#include "rt_calls.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace weft::rt_host {

namespace {

/// weft::array_t<T>'s layout, whatever T.
struct ArrayView {
    void *data;
    std::int32_t shape[4];
    std::int64_t strides[4];
    std::int32_t ndim;
};
static_assert(sizeof(ArrayView) == 64, "weft: array_t layout (rt/array.h)");

/// weft::rt::deferred_table's layout.
struct DeferredTable {
    static constexpr unsigned slots = 16;
    void *where[slots];
    std::uint64_t sum[slots]; // a value of the element type in its first bytes
    void *copy;               // a private copy of the array's bytes [from, from + bytes), or null
    std::uint64_t from, bytes;
    bool on;
};
static_assert(sizeof(DeferredTable) == 288, "weft: deferred_table layout (rt/array.h)");

/// The bytes an array's elements span, [lo, hi); lo == hi when it has none.
void byte_span(const ArrayView &a, std::uint64_t element_size, std::uint64_t &lo, std::uint64_t &hi) {
    lo = hi = reinterpret_cast<std::uint64_t>(a.data);
    if (!a.data) return;
    const int n = a.ndim < 0 ? 0 : a.ndim > 4 ? 4 : a.ndim;
    for (int d = 0; d < n; ++d) {
        if (a.shape[d] <= 0) {
            hi = lo;
            return;
        }
        const std::int64_t reach = std::int64_t{a.shape[d] - 1} * a.strides[d];
        if (reach < 0)
            lo += static_cast<std::uint64_t>(reach);
        else
            hi += static_cast<std::uint64_t>(reach);
    }
    hi += element_size;
}

/// What a private copy starts from and what an untouched element of it
/// holds: 0, or -0.0 for floats, the additive identity of IEEE floats
/// (-0.0 + x == x for every x, -0.0 included; +0.0 would turn a lone -0.0
/// into +0.0).
template <typename T> T additive_identity() {
    if constexpr (std::is_integral_v<T>) return T(0);
    else return -T(0);
}

template <typename T> void fill_identity(void *copy, std::uint64_t bytes) {
    const T identity = additive_identity<T>();
    for (std::uint64_t at = 0; at < bytes; at += sizeof(T))
        std::memcpy(static_cast<char *>(copy) + at, &identity, sizeof(T));
}

} // namespace

extern "C" bool weft_rt_disjoint(const void *a, std::uint64_t a_element_size, const void *b,
                                 std::uint64_t b_element_size) {
    ArrayView x, y;
    std::memcpy(&x, a, sizeof x);
    std::memcpy(&y, b, sizeof y);
    std::uint64_t alo, ahi, blo, bhi;
    byte_span(x, a_element_size, alo, ahi);
    byte_span(y, b_element_size, blo, bhi);
    return alo == ahi || blo == bhi || ahi <= blo || bhi <= alo;
}

extern "C" void weft_rt_deferred_begin(void *table, bool on) {
    auto &t = *static_cast<DeferredTable *>(table);
    t.on = on;
    for (void *&w : t.where) w = nullptr;
    t.copy = nullptr;
    t.from = t.bytes = 0;
}

// A private copy costs a fill and a scan of the whole array per chunk, so it
// is taken for arrays of at most a quarter as many elements as the chunk
// has, and small enough to stay in cache beside the launch's other data.
static constexpr std::uint64_t max_private_bytes = 256 * 1024;

extern "C" void weft_rt_deferred_private(void *table, const void *array, std::uint64_t element_size,
                                         std::int64_t elements, bool floating) {
    auto &t = *static_cast<DeferredTable *>(table);
    if (!t.on || element_size == 0 || elements <= 0) return;
    ArrayView a;
    std::memcpy(&a, array, sizeof a);
    std::uint64_t lo, hi;
    byte_span(a, element_size, lo, hi);
    const std::uint64_t bytes = hi - lo;
    if (bytes == 0 || bytes > max_private_bytes || bytes / element_size > static_cast<std::uint64_t>(elements) / 4)
        return;
    // Each element of the view must sit a whole number of elements from lo,
    // where the copy keeps it; views that pack elements otherwise take the table.
    if (lo % element_size != 0) return;
    for (int d = 0; d < a.ndim && d < 4; ++d)
        if (a.shape[d] > 1 && static_cast<std::uint64_t>(a.strides[d]) % element_size != 0) return;
    void *copy = std::malloc(bytes);
    if (!copy) return;
    if (!floating) std::memset(copy, 0, bytes);
    else if (element_size == sizeof(float)) fill_identity<float>(copy, bytes);
    else fill_identity<double>(copy, bytes);
    t.copy = copy;
    t.from = lo;
    t.bytes = bytes;
}

namespace {

/// Integers wrap (their sums are those of the unsigned type of their size);
/// floats add as IEEE numbers, as weft::add does.
template <typename T> T sum_of(T a, T b) { return a + b; }

/// An atomic add, as weft::rt::atomic<op_add>: fetch-add for integers, a
/// compare-exchange loop for floats.
template <typename T> void atomic_add(void *where, T v) {
    T *p = static_cast<T *>(where);
    if constexpr (std::is_integral_v<T>) {
        __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    } else {
        T old, next;
        __atomic_load(p, &old, __ATOMIC_RELAXED);
        do next = old + v;
        while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    }
}

template <typename T> T slot_sum(const DeferredTable &t, unsigned s) {
    T v;
    std::memcpy(&v, &t.sum[s], sizeof v);
    return v;
}
template <typename T> void set_slot_sum(DeferredTable &t, unsigned s, T v) { std::memcpy(&t.sum[s], &v, sizeof v); }

/// An add of `v` to `p`, which is not `last`: `last`'s sum moves into the
/// table and `p` is the new last element (returned); off, the add is applied
/// at once and there is no last element.
template <typename T> void *deferred_miss(void *table, void *last, T last_sum, void *p, T v) {
    auto &t = *static_cast<DeferredTable *>(table);
    if (!t.on) {
        atomic_add(p, v);
        return nullptr;
    }
    if (!last) return p;
    // Direct-mapped: consecutive elements take different slots, so a
    // histogram of up to `slots` bins never evicts; an evicted sum is applied at once.
    const unsigned s = static_cast<unsigned>(reinterpret_cast<std::uint64_t>(last) / sizeof(T)) % DeferredTable::slots;
    if (t.where[s] == last) {
        set_slot_sum(t, s, sum_of(slot_sum<T>(t, s), last_sum));
    } else {
        if (t.where[s]) atomic_add(t.where[s], slot_sum<T>(t, s));
        t.where[s] = last;
        set_slot_sum(t, s, last_sum);
    }
    return p;
}

/// Whether `v` is the identity a private copy starts from (bit for bit): nothing was added.
template <typename T> bool untouched(T v) {
    const T identity = additive_identity<T>();
    return std::memcmp(&v, &identity, sizeof v) == 0;
}

/// The end of a chunk: every pending sum applied, the last element's first.
template <typename T> void deferred_flush(void *table, void *last, T last_sum) {
    auto &t = *static_cast<DeferredTable *>(table);
    if (last) atomic_add(last, last_sum);
    for (unsigned s = 0; s < DeferredTable::slots; ++s)
        if (t.where[s]) {
            atomic_add(t.where[s], slot_sum<T>(t, s));
            t.where[s] = nullptr;
        }
    if (t.copy) {
        for (std::uint64_t at = 0; at < t.bytes; at += sizeof(T)) {
            T v;
            std::memcpy(&v, static_cast<const char *>(t.copy) + at, sizeof v);
            if (!untouched(v)) atomic_add(reinterpret_cast<void *>(t.from + at), v);
        }
        std::free(t.copy);
        t.copy = nullptr;
        t.bytes = 0;
    }
}

} // namespace

#define WEFT_DEFERRED_CALLS(suffix, T)                                                                                \
    extern "C" void *weft_rt_deferred_miss_##suffix(void *table, void *last, T last_sum, void *p, T v) {              \
        return deferred_miss<T>(table, last, last_sum, p, v);                                                          \
    }                                                                                                                  \
    extern "C" void weft_rt_deferred_flush_##suffix(void *table, void *last, T last_sum) {                            \
        deferred_flush<T>(table, last, last_sum);                                                                      \
    }
WEFT_DEFERRED_CALLS(u32, std::uint32_t)
WEFT_DEFERRED_CALLS(u64, std::uint64_t)
WEFT_DEFERRED_CALLS(f32, float)
WEFT_DEFERRED_CALLS(f64, double)
#undef WEFT_DEFERRED_CALLS

/// A worker thread's spare tape block. A backward pass saves values on a
/// per-thread tape that starts on the stack; a thread that outgrows it takes
/// a heap block here and gives it back when it ends, so the next thread on
/// the same worker reuses it instead of growing from 4 KiB through malloc
/// and copies again (an n-body's backward grew 4 KiB -> 128 KiB per thread).
struct SpareTape {
    void *block = nullptr;
    unsigned long cap = 0;
    ~SpareTape() { std::free(block); }
};
thread_local SpareTape spare_tape;

extern "C" void *weft_rt_tape_take(unsigned long need, unsigned long *cap) {
    if (spare_tape.block && spare_tape.cap >= need) {
        void *b = spare_tape.block;
        *cap = spare_tape.cap;
        spare_tape = {};
        return b;
    }
    void *b = std::malloc(need);
    if (b) *cap = need;
    return b;
}

extern "C" void weft_rt_tape_give(void *block, unsigned long cap) {
    if (!block) return;
    if (cap > spare_tape.cap) {
        std::free(spare_tape.block);
        spare_tape.block = block;
        spare_tape.cap = cap;
    } else {
        std::free(block);
    }
}

const std::vector<std::pair<std::string, void *>> &calls() {
    static const std::vector<std::pair<std::string, void *>> calls{
        {"weft_rt_disjoint", reinterpret_cast<void *>(&weft_rt_disjoint)},
        {"weft_rt_tape_take", reinterpret_cast<void *>(&weft_rt_tape_take)},
        {"weft_rt_tape_give", reinterpret_cast<void *>(&weft_rt_tape_give)},
        {"weft_rt_deferred_begin", reinterpret_cast<void *>(&weft_rt_deferred_begin)},
        {"weft_rt_deferred_private", reinterpret_cast<void *>(&weft_rt_deferred_private)},
        {"weft_rt_deferred_miss_u32", reinterpret_cast<void *>(&weft_rt_deferred_miss_u32)},
        {"weft_rt_deferred_flush_u32", reinterpret_cast<void *>(&weft_rt_deferred_flush_u32)},
        {"weft_rt_deferred_miss_u64", reinterpret_cast<void *>(&weft_rt_deferred_miss_u64)},
        {"weft_rt_deferred_flush_u64", reinterpret_cast<void *>(&weft_rt_deferred_flush_u64)},
        {"weft_rt_deferred_miss_f32", reinterpret_cast<void *>(&weft_rt_deferred_miss_f32)},
        {"weft_rt_deferred_flush_f32", reinterpret_cast<void *>(&weft_rt_deferred_flush_f32)},
        {"weft_rt_deferred_miss_f64", reinterpret_cast<void *>(&weft_rt_deferred_miss_f64)},
        {"weft_rt_deferred_flush_f64", reinterpret_cast<void *>(&weft_rt_deferred_flush_f64)},
    };
    return calls;
}

} // namespace weft::rt_host
