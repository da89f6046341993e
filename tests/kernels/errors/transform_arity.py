# expect: 7:9: 'transform' takes (p, q), (p), 7 components
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.transform)):
    t = wp.transform(1.0, 2.0, 3.0)
    out[0] = t
