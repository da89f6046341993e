# expect: 7:32: 'transform' takes the keywords p= and q=, got 'rotation'
import warp as wp


@wp.kernel
def k(p: wp.vec3, q: wp.quat, out: wp.array(dtype=wp.transform)):
    out[0] = wp.transform(p=p, rotation=q)
