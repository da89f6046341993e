# expect: 8:30: atomic_add() value must be int32 (the array's dtype), got 'float32'
import warp as wp


@wp.kernel
def k(counts: wp.array(dtype=int), weights: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(counts, 0, weights[i])
