# A @wp.func defined again with the same parameter types: as in Warp, the last
# definition is used everywhere, by kernels above it too (weft warns).
import warp as wp


@wp.func
def scale(x: float) -> float:
    return x * 2.0


@wp.kernel
def early(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = scale(a[i])


@wp.func
def scale(x: float) -> float:
    return x * 3.0


@wp.kernel
def late(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = scale(a[i]) + 1.0
