# Functions overloaded by signature: the same name defined for several
# concrete argument types, resolved at each call.
import warp as wp


@wp.func
def norm_sq(v: wp.vec2):
    return v[0] * v[0] + v[1] * v[1]


@wp.func
def norm_sq(v: wp.vec3):
    return wp.dot(v, v)


@wp.func
def norm_sq(x: float):
    return x * x


@wp.kernel
def energies(p2: wp.array(dtype=wp.vec2), p3: wp.array(dtype=wp.vec3), s: wp.array(dtype=float),
             e: wp.array(dtype=float)):
    i = wp.tid()
    e[i] = norm_sq(p2[i]) + norm_sq(p3[i]) + norm_sq(s[i])
