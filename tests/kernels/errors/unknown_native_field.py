# expect: 9:14: native type 'warp_test::Color' has no exposed field 'alpha'
# plugins: wt_color
import warp as wp


@wp.kernel
def k(colors: wp.array(dtype=warp_test.Color), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = colors[i].alpha
