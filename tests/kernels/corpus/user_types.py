# Warp's user vector and matrix types (wp.types.vector / wp.types.matrix): storage,
# construction, components, the core builtins at their shapes, and constants of them.
import warp as wp

N = 6
vec6 = wp.types.vector(length=N, dtype=wp.float32)
vec5d = wp.types.vector(length=5, dtype=wp.float64)
mat34 = wp.types.matrix(shape=(3, 4), dtype=wp.float32)
ivec7 = wp.types.vector(length=7, dtype=wp.int32)
STEPS = wp.constant(vec6(1.0, 2.0, 3.0, 4.0, 5.0, 6.0))


@wp.func
def weighted(v: vec6, w: float):
    return v * w


@wp.kernel
def user_vectors(
    a: wp.array(dtype=vec6),
    out: wp.array(dtype=float),
    m: wp.array(dtype=mat34),
    mv: wp.array(dtype=wp.vec3),
    d: wp.array(dtype=vec5d),
    ints: wp.array(dtype=ivec7),
):
    i = wp.tid()
    v = a[i]
    u = vec6(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    s = weighted(v + u, 0.5)
    out[i] = wp.dot(s, u) + s[5] + wp.length(u)
    a[i] = s
    z = vec6()
    z[2] = float(i)
    out[i] = out[i] + z[2]
    mm = m[i]
    mv[i] = mm * wp.vec4(1.0, 2.0, 3.0, 4.0)
    mm[1, 2] = 7.0
    m[i] = mm
    dd = d[i] * wp.float64(2.0)
    d[i] = dd
    k = ints[i]
    k[6] = k[0] + k[6] + i
    ints[i] = k


@wp.kernel
def user_constants(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = STEPS[i % 6] + wp.length(STEPS) + wp.dot(STEPS, vec6(1.0))
