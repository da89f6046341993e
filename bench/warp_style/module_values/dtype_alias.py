# A module written against a configurable precision: the scalar and vector
# types are module-level aliases.
import warp as wp

dtype = wp.float32
vec_t = wp.vec3
Scalar = float


@wp.func
def kinetic(m: dtype, v: vec_t):
    return dtype(0.5) * m * wp.dot(v, v)


@wp.kernel
def energies(m: wp.array(dtype=dtype), v: wp.array(dtype=vec_t), e: wp.array(dtype=Scalar)):
    i = wp.tid()
    e[i] = kinetic(m[i], v[i])
