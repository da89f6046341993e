# expect: 10:23: identity() needs n= an integer constant from 1 to 64
# expect: 11:23: identity() needs n= an integer constant from 1 to 64
# expect: 12:32: identity() dtype must be a numeric scalar type (float32, float16, int32, ...), got 'vec3'
# expect: 13:32: identity() dtype must be a numeric scalar type (float32, float16, int32, ...), got 'bool'
import warp as wp


@wp.kernel
def k(n: int, out: wp.array(dtype=float)):
    a = wp.identity(n=0, dtype=float)
    b = wp.identity(n=n, dtype=wp.float16)
    c = wp.identity(n=3, dtype=wp.vec3)
    d = wp.identity(n=2, dtype=wp.bool)
    out[0] = 1.0
