# Indexed arrays (Warp's wp.indexedarray) as kernel parameters: a base array
# read and written through an optional int32 index array per dimension. Every
# access goes through the indirection: reads, stores, augmented assignment,
# atomics, negative indices, shape, and passing to a @wp.func. The
# suites index the first dimension in reverse, so each thread below owns one
# base element and the results do not depend on thread order. Warp 1.19 builds
# no backward pass for indexed arrays passed to functions or under atomic
# min/max (its adjoints need a plain array): those kernels have none here either.
import warp as wp


@wp.func
def weighted(x: wp.indexedarray(dtype=float), i: int, w: float) -> float:
    return x[i] * w + float(x.shape[0])


@wp.func
def bump(x: wp.indexedarray(dtype=float), i: int):
    x[i] = x[i] + 0.5


@wp.kernel(enable_backward=False)
def scale_selected(x: wp.indexedarray(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = weighted(x, i, s) + x[i - x.shape[0]] * 100.0
    x[i] = x[i] * s
    bump(x, i)


@wp.kernel(enable_backward=False)
def accumulate(x: wp.indexedarray1d(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])
    x[i] += 1.0
    x[i] -= 0.25
    old = wp.atomic_sub(x, i, 2.0)
    wp.atomic_max(x, i, old * 0.5)


@wp.kernel
def gather_vectors(src: wp.indexedarray(dtype=wp.vec3), dst: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    dst[i] = src[i] + wp.vec3(1.0, 0.0, 0.0)
    src[i] = wp.cross(src[i], wp.vec3(0.0, 0.0, 1.0))
    wp.atomic_add(src, i, wp.vec3(0.0, 0.0, 2.0))


@wp.kernel
def grid(a: wp.indexedarray(dtype=float, ndim=2), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = a[i, j] * 2.0 + float(a.shape[0]) + float(a.shape[1]) * 0.5 + a[i, -1]
    a[i, j] = a[i, j] + float(j)


@wp.kernel(enable_backward=False)
def counts(c: wp.indexedarray3d(dtype=int), n: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    n[i, j, k] = c[i, j, k] * 10 + c.shape[2]
    wp.atomic_min(c, i, j, k, 3)
    c[i, j, k] += i


# Views: leading integer indices of an indexed array give the indexed array of
# the remaining dimensions (Warp's view() of indexedarray_t), its rows read
# through the same index arrays. One thread per row, so writes do not race.
@wp.func
def row_total(r: wp.indexedarray(dtype=float)) -> float:
    s = float(0.0)
    for j in range(r.shape[0]):
        s += r[j]
    return s


@wp.func
def double_first(r: wp.indexedarray(dtype=float)):
    r[0] = r[0] * 2.0


@wp.kernel
def row_reads(a: wp.indexedarray2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        r = a[i]
        last = a[-1 - i]
        out[i] = r[1] * 10.0 + float(r.shape[0]) * 100.0 + a[i][2] + last[0] * 0.5 + r[-1]


@wp.kernel(enable_backward=False)
def row_writes(a: wp.indexedarray2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        out[i] = row_total(a[i])
        r = a[i]
        r[0] = r[1] * 3.0
        r[2] += 1.0
        wp.atomic_add(r, 3, 5.0)
        wp.atomic_max(a[i], 4, 1.5)
        old = wp.atomic_sub(r, 5, 0.25)
        a[i][6] = old
        double_first(a[i])


@wp.kernel(enable_backward=False)
def line_views(c: wp.indexedarray3d(dtype=int), n: wp.array2d(dtype=int)):
    i, j = wp.tid()
    if i < c.shape[0] and j < c.shape[1]:
        plane = c[i]
        line = c[i, j]
        n[i, j] = line[0] * 100 + plane[j, 1] * 10 + plane.shape[1] + line.shape[0]
        wp.atomic_add(line, 2, 3)
        line[3] = plane[j, 4] + 1
