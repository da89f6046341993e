# Binned lookups with lower_bound: breakpoints, a sub-range, integer keys.
import warp as wp


@wp.kernel
def bin_values(edges: wp.array(dtype=float), x: wp.array(dtype=float), bins: wp.array(dtype=int)):
    i = wp.tid()
    bins[i] = wp.lower_bound(edges, x[i])


@wp.kernel
def piecewise(edges: wp.array(dtype=float), heights: wp.array(dtype=float), x: wp.array(dtype=float),
              y: wp.array(dtype=float)):
    i = wp.tid()
    n = edges.shape[0]
    k = wp.lower_bound(edges, 1, n, x[i])
    y[i] = heights[k % heights.shape[0]] * x[i]


@wp.kernel
def rank_ids(ids: wp.array(dtype=wp.int64), queries: wp.array(dtype=wp.int64), rank: wp.array(dtype=int)):
    i = wp.tid()
    rank[i] = wp.lower_bound(ids, queries[i])
