# A forward-only simulation module: backward generation turned off for the
# whole module, and per kernel.
import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    v[i] = v[i] + wp.vec3(0.0, -9.8, 0.0) * dt
    x[i] = x[i] + v[i] * dt


@wp.kernel(enable_backward=False)
def damp(v: wp.array(dtype=wp.vec3), k: float):
    i = wp.tid()
    v[i] = v[i] * (1.0 - 0.1 * k)
