# User types declared through warp.types imported names: 5-wide features and
# a 4x2 weight block; in-kernel wp.vector / wp.matrix constructors.
import warp as wp
from warp.types import matrix, vector

vec5 = vector(length=5, dtype=float)
mat42 = matrix(shape=(4, 2), dtype=float)
vec5d = vector(length=5, dtype=wp.float64)


@wp.kernel
def features(x: wp.array(dtype=float), out: wp.array(dtype=vec5), norms: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    f = vec5(1.0, v, v * v, wp.sin(v), wp.cos(v))
    out[i] = f
    norms[i] = wp.length(f)


@wp.kernel
def apply_block(x: wp.array(dtype=wp.vec2), y: wp.array(dtype=wp.vec4), d: wp.array(dtype=vec5d)):
    i = wp.tid()
    W = mat42(1.0, 2.0, 0.5, -1.0, 0.0, 1.0, 3.0, 0.25)
    y[i] = W * x[i]
    d[i] = d[i] * wp.float64(2.0)


@wp.kernel
def builtin_ctors(x: wp.array(dtype=float), out: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    v = x[i]
    out[i] = wp.vector(v, 2.0 * v, 3.0, length=3, dtype=float)
    m[i] = wp.matrix(v, 0.0, 0.0, v, shape=(2, 2), dtype=float)
