# Kernels grouped into a named module shared across files.
import warp as wp


@wp.func(module="physics_core")
def gravity(m: float):
    return wp.vec3(0.0, -9.81 * m, 0.0)


@wp.kernel(module="physics_core")
def apply_gravity(m: wp.array(dtype=float), f: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    f[i] = f[i] + gravity(m[i])


@wp.kernel(module="physics_core")
def zero_forces(f: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    f[i] = wp.vec3()
