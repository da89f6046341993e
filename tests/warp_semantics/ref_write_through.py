# wp.ref parameters written by tuple unpacking (a swap, and a mix with a
# local), and matrix elements with negative indices passed as wp.ref
# arguments: tests/unit/test_warp_semantics.cpp holds warp-lang 1.19's values.
import warp as wp


@wp.func
def swap(a: wp.ref[float], b: wp.ref[float]):
    a, b = b, a


@wp.func
def rotate3(a: wp.ref[float], b: wp.ref[float], c: wp.ref[float]) -> float:
    a, t, c = b + 10.0, a, c * 2.0
    b = t
    return t


@wp.func
def setv(x: wp.ref[float], v: float):
    x = v


@wp.kernel(enable_backward=False)
def ref_write_through(out: wp.array(dtype=float), mo: wp.array(dtype=wp.mat33), vo: wp.array(dtype=wp.vec3)):
    x = wp.float32(1.0)
    y = wp.float32(2.0)
    swap(x, y)
    out[0] = x
    out[1] = y
    p = wp.float32(3.0)
    q = wp.float32(4.0)
    r = wp.float32(5.0)
    out[2] = rotate3(p, q, r)
    out[3] = p
    out[4] = q
    out[5] = r
    m = wp.mat33()
    setv(m[-1, -1], 5.0)
    setv(m[2, -2], 3.0)
    setv(m[-3, 0], 7.0)
    mo[0] = m
    v = wp.vec3()
    setv(v[-1], 4.0)
    vo[0] = v
