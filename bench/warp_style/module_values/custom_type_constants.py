# Constants of user-declared vector and matrix types.
import warp as wp

vec6 = wp.types.vector(length=6, dtype=float)
mat32 = wp.types.matrix(shape=(3, 2), dtype=float)

WEIGHTS = wp.constant(vec6(1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125))
BASIS = wp.constant(mat32(1.0, 0.0, 0.0, 1.0, 1.0, 1.0))


@wp.kernel
def weighted(x: wp.array(dtype=vec6), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.dot(x[i], WEIGHTS)


@wp.kernel
def lift(uv: wp.array(dtype=wp.vec2), p: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p[i] = BASIS * uv[i]
