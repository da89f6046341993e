# expect: 3:31: length must be an integer constant from 1 to 64
import warp as wp
vec0 = wp.types.vector(length=0, dtype=wp.float32)


@wp.kernel
def k(a: wp.array(dtype=vec0)):
    i = wp.tid()
