import warp as wp


@wp.func
def accumulate(total: wp.array(dtype=float), slot: int, value: float):
    wp.atomic_add(total, slot, value)


@wp.kernel
def sum_kernel(values: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, values[i])


@wp.kernel
def sum_of_squares(values: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    v = values[i]
    accumulate(total, 0, v * v)


@wp.kernel
def histogram(keys: wp.array(dtype=int), bins: wp.array(dtype=int), num_bins: int):
    i = wp.tid()
    b = keys[i] % num_bins
    if b < 0:
        b += num_bins
    wp.atomic_add(bins, b, 1)


@wp.kernel
def min_max(values: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_min(lo, 0, values[i])
    wp.atomic_max(hi, 0, values[i])


@wp.kernel
def row_sums(m: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(sums, i, m[i, j])


@wp.kernel
def centroid(points: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3), count: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(acc, 0, points[i])
    old = wp.atomic_add(count, 0, 1)
