# expect: 6:13: kernel parameter 'f': wp.Function is a @wp.func parameter type only
import warp as wp


@wp.kernel
def step(f: wp.Function, x: wp.array(dtype=float)):
    i = wp.tid()
