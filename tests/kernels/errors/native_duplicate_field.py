# expect: 9:38: field 'r' of native type 'warp_test::Color' is given twice
# plugins: wt_color
import warp as wp


@wp.kernel
def k(colors: wp.array(dtype=warp_test.Color)):
    i = wp.tid()
    colors[i] = warp_test.Color(0.5, r=1.0, g=0.5, b=0.25)
