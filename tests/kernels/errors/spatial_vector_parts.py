# expect: 7:14: no overload of 'spatial_vector' matches the argument types (vec3d, vec3)
import warp as wp


@wp.kernel
def k(w: wp.vec3d, v: wp.vec3, out: wp.array(dtype=wp.spatial_vector)):
    out[0] = wp.spatial_vector(w, v)
