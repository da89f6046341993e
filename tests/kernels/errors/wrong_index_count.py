# expect: 8:18: array of 2 dimensions indexed with 3 indexes: give at most 2
import warp as wp


@wp.kernel
def k(grid: wp.array2d(dtype=float)):
    i, j = wp.tid()
    grid[i, j] = grid[i, j, 0] + 1.0
