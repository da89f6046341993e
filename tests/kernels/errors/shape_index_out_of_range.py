# expect: 7:14: shape index must be an integer literal from 0 to 1
import warp as wp


@wp.kernel
def k(grid: wp.array2d(dtype=float), out: wp.array(dtype=int)):
    out[0] = grid.shape[2]
