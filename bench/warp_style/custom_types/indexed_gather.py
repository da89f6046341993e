# Kernels that take indexed arrays: a subset of particles selected by index.
import warp as wp


@wp.kernel
def scale_selected(x: wp.indexedarray(dtype=float), s: float):
    i = wp.tid()
    x[i] = x[i] * s


@wp.kernel
def gather(src: wp.indexedarray(dtype=wp.vec3), dst: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    dst[i] = src[i] + wp.vec3(1.0, 0.0, 0.0)


@wp.kernel
def count_selected(x: wp.indexedarray(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])
