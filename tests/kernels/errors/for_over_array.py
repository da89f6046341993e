# expect: 8:14: for loops iterate over range(...) only
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    total = float(0.0)
    for x in a:
        total += x
    out[0] = total
