# Homogeneous coordinates: xyz and w split out of vec4s with slices.
import warp as wp


@wp.kernel
def dehomogenize(p: wp.array(dtype=wp.vec4), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    h = p[i]
    xyz = h[0:3]
    w = h[3]
    out[i] = xyz / w


@wp.kernel
def planar(p: wp.array(dtype=wp.vec3), uv: wp.array(dtype=wp.vec2), tail: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    v = p[i]
    uv[i] = v[:2]
    tail[i] = v[1:]
