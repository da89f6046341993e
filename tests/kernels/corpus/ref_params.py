# Helpers that update their arguments in place through wp.ref[T]: locals, array
# elements, struct fields and vector components (forward-only kernels, as Warp needs).
import warp as wp


@wp.struct
class Body:
    pos: wp.vec3
    mass: float


@wp.func
def accumulate(acc: wp.ref[float], x: float):
    acc += x * x


@wp.func
def swap_if_greater(a: wp.ref[float], b: wp.ref[float]):
    if a > b:
        t = a
        a = b
        b = t


@wp.func
def nudge(p: wp.ref[wp.vec3], d: wp.vec3) -> float:
    p = p + d
    return wp.length(p)


@wp.func
def add_mass(m: wp.ref[float], dm: float):
    accumulate(m, dm)  # a reference passed on


@wp.kernel(enable_backward=False)
def sum_squares(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(4):
        accumulate(acc, x[(i + k) % 64])
    out[i] = acc


@wp.kernel(enable_backward=False)
def sort_pairs(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    swap_if_greater(a[i], b[i])


@wp.kernel(enable_backward=False)
def move(p: wp.array(dtype=wp.vec3), lengths: wp.array(dtype=float), masses: wp.array(dtype=float)):
    i = wp.tid()
    body = Body()
    body.pos = p[i]
    body.mass = masses[i]
    lengths[i] = nudge(body.pos, wp.vec3(1.0, 0.0, 0.5))
    add_mass(body.mass, 0.5)
    v = p[i]
    swap_if_greater(v[0], v[2])
    p[i] = body.pos + v
    masses[i] = body.mass
