# Activations stored in bfloat16, math done in float32.
import warp as wp


@wp.kernel
def layer(x: wp.array(dtype=wp.bfloat16), w: wp.array(dtype=float), y: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    v = float(x[i]) * w[i] + 0.5
    y[i] = wp.bfloat16(wp.max(v, 0.0))


@wp.kernel
def widen(x: wp.array(dtype=wp.bfloat16), out: wp.array(dtype=float), out_h: wp.array(dtype=wp.float16)):
    i = wp.tid()
    out[i] = wp.float32(x[i]) * 2.0
    out_h[i] = wp.float16(x[i])
