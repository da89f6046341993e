# expect: 8:5: cannot store 'vec3' into a slice of type 'vec2'
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec3)):
    v = a[0]
    v[0:2] = wp.vec3(1.0, 2.0, 3.0)
    a[0] = v
