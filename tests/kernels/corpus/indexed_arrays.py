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
