# Several option calls in one file: the module's options change before the
# kernels are defined, and fast_math / lineinfo are set together.
import warp as wp

wp.set_module_options({"fast_math": False})
wp.set_module_options({"lineinfo": False, "enable_backward": False})


@wp.kernel
def attenuate(intensity: wp.array(dtype=float), dist: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    d = dist[i]
    out[i] = intensity[i] / (1.0 + d * d)


@wp.kernel
def gamma(c: wp.array(dtype=float)):
    i = wp.tid()
    c[i] = wp.pow(c[i], 1.0 / 2.2)
