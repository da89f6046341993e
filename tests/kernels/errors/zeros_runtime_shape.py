# expect: 7:25: the shape of a zeros() array in a kernel is made of positive integer constants
import warp as wp


@wp.kernel
def k(n: int):
    a = wp.zeros(shape=(n,), dtype=int)
