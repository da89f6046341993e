# Functions with explicit names and inline hints, used from kernels.
import warp as wp


@wp.func(name="smin_poly")
def smooth_min(a: float, b: float, k: float):
    h = wp.clamp(0.5 + 0.5 * (b - a) / k, 0.0, 1.0)
    return wp.lerp(b, a, h) - k * h * (1.0 - h)


@wp.func(inline=True)
def sdf_sphere(p: wp.vec3, r: float):
    return wp.length(p) - r


@wp.kernel
def blend_sdf(p: wp.array(dtype=wp.vec3), d: wp.array(dtype=float)):
    i = wp.tid()
    a = sdf_sphere(p[i], 1.0)
    b = sdf_sphere(p[i] - wp.vec3(1.0, 0.0, 0.0), 0.5)
    d[i] = smooth_min(a, b, 0.25)
