# atomic_cas (Warp has no gradient for it): the kernel
# tests/unit/test_warp_semantics.cpp runs, with the values warp-lang 1.19 gives.
import warp as wp


@wp.kernel
def cas(lock: wp.array(dtype=wp.int32), counter: wp.array(dtype=wp.int32), cells: wp.array2d(dtype=wp.int64),
        wins: wp.array(dtype=wp.int32), f: wp.array(dtype=float), zero: wp.array(dtype=float),
        old: wp.array(dtype=float)):
    i = wp.tid()
    # A spin lock around a plain read-modify-write: every thread's increment counts.
    while wp.atomic_cas(lock, 0, 0, 1) != 0:
        pass
    counter[0] = counter[0] + 1
    wp.atomic_exch(lock, 0, 0)
    # One thread claims each cell, whichever comes first.
    if wp.atomic_cas(cells, i % 2, 1, wp.int64(-1), wp.int64(i)) == wp.int64(-1):
        wp.atomic_add(wins, 0, 1)
    if i == 0:
        old[0] = wp.atomic_cas(f, 0, 1.5, 2.5)  # equal: swapped, the old value returned
        old[1] = wp.atomic_cas(f, 0, 1.5, 9.0)  # not equal: unchanged
        old[2] = wp.atomic_cas(f, 0, -2.5, 4.0)  # unchanged
        old[3] = wp.atomic_cas(zero, 0, -0.0, 3.0)  # 0.0 == -0.0: swapped
