# copysign (signed zeros included) and div_approx, with gradients:
# tests/unit/test_warp_semantics.cpp holds warp-lang 1.19's values.
import warp as wp


@wp.kernel
def copysign_div(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float),
                 loss: wp.array(dtype=float)):
    i = wp.tid()
    c = wp.copysign(x[i], y[i])
    d = wp.div_approx(x[i], y[i] + 3.0)
    out[i * 2 + 0] = c
    out[i * 2 + 1] = d
    wp.atomic_add(loss, 0, c * 1.5 + d * d)
