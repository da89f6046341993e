# expect: 9:55: native type 'warp_test::Color' has no field 'alpha'
# plugins: wt_color
import warp as wp


@wp.kernel
def k(colors: wp.array(dtype=warp_test.Color)):
    i = wp.tid()
    colors[i] = warp_test.Color(r=1.0, g=0.5, b=0.25, alpha=1.0)
