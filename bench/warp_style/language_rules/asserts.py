# Invariant checks with assert in kernels (active in debug builds).
import warp as wp


@wp.func
def safe_sqrt(x: float):
    assert x >= 0.0
    return wp.sqrt(x)


@wp.kernel
def distances(p: wp.array(dtype=wp.vec3), d: wp.array(dtype=float)):
    i = wp.tid()
    assert i < 64
    d[i] = safe_sqrt(wp.dot(p[i], p[i]))


@wp.kernel
def check_masses(m: wp.array(dtype=float), inv: wp.array(dtype=float)):
    i = wp.tid()
    assert m[i] > 0.0, "mass must be positive"
    inv[i] = 1.0 / m[i]
