# inverse, inverse_approx and lower_bound: the kernels
# tests/unit/test_warp_semantics.cpp runs, with the values warp-lang 1.19 gives.
import warp as wp


@wp.kernel
def inverses(m2: wp.array(dtype=wp.mat22), m3: wp.array(dtype=wp.mat33), m4: wp.array(dtype=wp.mat44),
             o2: wp.array(dtype=wp.mat22), o3: wp.array(dtype=wp.mat33), o4: wp.array(dtype=wp.mat44),
             loss: wp.array(dtype=float)):
    i = wp.tid()
    o2[i] = wp.inverse(m2[i])
    o3[i] = wp.inverse_approx(m3[i])
    b = wp.inverse(m4[i])
    o4[i] = b
    a = wp.inverse(m3[i])
    wp.atomic_add(loss, 0, a[0, 0] + 2.0 * a[1, 2] - a[2, 1] + b[3, 0] + 0.5 * b[1, 1])


@wp.kernel
def search(sorted_values: wp.array(dtype=float), sorted_ints: wp.array(dtype=wp.int64), keys: wp.array(dtype=float),
           found: wp.array(dtype=int)):
    i = wp.tid()
    found[i] = wp.lower_bound(sorted_values, keys[i])
    found[i + 6] = wp.lower_bound(sorted_values, 1, 4, keys[i])
    found[i + 12] = wp.lower_bound(sorted_ints, wp.int64(i * 3))
