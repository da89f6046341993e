# Bitwise atomics and exchange (Warp has no gradient for them): the kernel
# tests/unit/test_warp_semantics.cpp runs, with the values warp-lang 1.19 gives.
import warp as wp


@wp.kernel
def bits(flags: wp.array(dtype=wp.uint32), words: wp.array(dtype=wp.int64), masks: wp.array(dtype=wp.vec2i),
         f: wp.array(dtype=float), old: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_or(flags, i % 4, wp.uint32(1) << wp.uint32(i))
    wp.atomic_xor(words, 0, wp.int64(i) * wp.int64(12345678901))
    wp.atomic_and(masks, 0, wp.vec2i(~(1 << (i % 31)), 2147483647 - i))
    if i == 0:
        old[0] = wp.atomic_exch(f, 0, 5.0)
        old[1] = wp.atomic_exch(f, 0, -2.5)
        old[2] = f[0]
