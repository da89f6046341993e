# Comparisons of two scalar types convert as Warp's generated C++ does (C++'s
# usual arithmetic conversions): float with int, int32 with int64, and int32
# with uint32 (unsigned wins: -2 < 0u is false). A struct built empty, then
# field by field.
import warp as wp


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float


@wp.kernel
def mixed(
    out: wp.array(dtype=int),
    f64: wp.array(dtype=wp.float64),
    i64: wp.array(dtype=wp.int64),
    u32: wp.array(dtype=wp.uint32),
    f32: wp.array(dtype=float),
):
    i = wp.tid()
    a = i - 2
    r = 0
    if a < i64[i]:
        r = r + 1
    if a < u32[i]:
        r = r + 10
    if f64[i] >= a:
        r = r + 100
    if wp.float32(a) == i64[i]:
        r = r + 1000
    if f32[i] > a:
        r = r + 10000
    out[i] = r


@wp.kernel
def fields(out: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    p = Particle()
    p.pos = wp.vec3(1.0, 2.0, float(i))
    p.mass = 2.0
    f = float(i) * 0.5
    c = 0.0
    if f < n[i]:
        c = 1.0
    out[i] = p.pos[2] * p.mass + c
