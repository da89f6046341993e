# Options kept in a dictionary constant and passed to the module.
import warp as wp

OPTIONS = {"enable_backward": False, "max_unroll": 8}
wp.set_module_options(OPTIONS)


@wp.kernel
def polynomial(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    acc = float(0.0)
    for k in range(4):
        acc = acc * v + float(k + 1)
    y[i] = acc
