# A native snippet that scans a 2-D grid row and returns a count.
import warp as wp

snippet = """
    int n = 0;
    for (int j = 0; j < 16; ++j)
        if (wp::index(grid, row, j) > threshold) ++n;
    return n;
"""


@wp.func_native(snippet)
def count_row(grid: wp.array2d(dtype=float), row: int, threshold: float) -> int: ...


@wp.kernel
def row_counts(grid: wp.array2d(dtype=float), counts: wp.array(dtype=int)):
    i = wp.tid()
    if i < 16:
        counts[i] = count_row(grid, i, 1.0)
