# expect: 3:38: dtype must be a scalar type (float32, float64, int32, ...), got 'vec3'
import warp as wp
vv = wp.types.vector(length=2, dtype=wp.vec3)


@wp.kernel
def k(a: wp.array(dtype=vv)):
    i = wp.tid()
