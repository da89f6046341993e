# Module-level constants of vector and matrix types: gravity, an up axis and
# a fixed rotation.
import warp as wp

GRAVITY = wp.constant(wp.vec3(0.0, -9.81, 0.0))
UP = wp.vec3(0.0, 1.0, 0.0)
FLIP = wp.constant(wp.mat22(0.0, 1.0, 1.0, 0.0))
DT = wp.constant(0.01)


@wp.kernel
def fall(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), h: wp.array(dtype=float)):
    i = wp.tid()
    v[i] = v[i] + GRAVITY * DT
    x[i] = x[i] + v[i] * DT
    h[i] = wp.dot(x[i], UP)


@wp.kernel
def swap_uv(uv: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    uv[i] = FLIP * uv[i]
