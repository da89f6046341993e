# expect: 7:5: a slice of an array element cannot be assigned to: copy the element to a local, assign the slice and store it back (v = a[i]; v[0:2] = ...; a[i] = v)
import warp as wp


@wp.kernel
def k(p: wp.array(dtype=wp.vec3)):
    p[0][0:2] = wp.vec2(1.0, 2.0)
