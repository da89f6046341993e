# expect: 8:22: identity() needs n= an integer constant from 1 to 64
# expect: 9:22: identity() needs n= an integer constant from 1 to 64
# expect: 10:30: identity() dtype must be a scalar type (float32, float16, int32, ...), got 'vec3'
import warp as wp


@wp.kernel
def k(n: int, out: wp.array(dtype=float)):
    a = wp.identity(n=0, dtype=float)
    b = wp.identity(n=n, dtype=wp.float16)
    c = wp.identity(n=3, dtype=wp.vec3)
    out[0] = 1.0
