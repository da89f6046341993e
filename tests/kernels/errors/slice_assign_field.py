# expect: 13:5: only a slice of a variable can be assigned to: copy the value to a local, assign the slice and store it back (v = s.v; v[0:2] = ...; s.v = v)
import warp as wp


@wp.struct
class Body:
    x: wp.vec3


@wp.kernel
def k(out: wp.array(dtype=wp.vec3)):
    b = Body()
    b.x[0:2] = wp.vec2(1.0, 2.0)
    out[0] = b.x
