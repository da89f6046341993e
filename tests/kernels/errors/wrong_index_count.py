# expect: 8:18: array of 2 dimensions indexed with 1 index
import warp as wp


@wp.kernel
def k(grid: wp.array2d(dtype=float)):
    i, j = wp.tid()
    grid[i, j] = grid[i] + 1.0
