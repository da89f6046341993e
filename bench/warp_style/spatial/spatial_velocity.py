# Featherstone-style spatial velocities: angular (top) and linear (bottom)
# parts, spatial cross products and dot products.
import warp as wp


@wp.kernel
def spatial_ops(v: wp.array(dtype=wp.spatial_vector), f: wp.array(dtype=wp.spatial_vector),
                vxf: wp.array(dtype=wp.spatial_vector), power: wp.array(dtype=float), w: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = v[i]
    b = f[i]
    vxf[i] = wp.spatial_cross(a, b) + wp.spatial_cross_dual(a, b)
    power[i] = wp.spatial_dot(a, b)
    w[i] = wp.spatial_top(a) + wp.spatial_bottom(b)


@wp.kernel
def twist(w: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.spatial_vector)):
    i = wp.tid()
    out[i] = wp.spatial_vector(w[i], v[i]) * 0.5
