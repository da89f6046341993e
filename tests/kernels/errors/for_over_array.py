# expect: 8:14: for loops iterate over range(...) or a query value (hash_grid_query(...) and the like); this is array(dtype=float32)
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    total = float(0.0)
    for x in a:
        total += x
    out[0] = total
