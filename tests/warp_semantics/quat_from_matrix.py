# quat_from_matrix on rotation matrices of every branch (trace, then the
# largest diagonal element) and on a scaled 4x4 one: the kernel
# tests/unit/test_warp_semantics.cpp runs, with warp-lang 1.19's values and gradients.
import warp as wp


@wp.kernel
def from_matrix(m: wp.array(dtype=wp.mat33), m4: wp.array(dtype=wp.mat44), q: wp.array(dtype=wp.quat),
                loss: wp.array(dtype=float)):
    i = wp.tid()
    a = wp.quat_from_matrix(m[i])
    b = wp.quat_from_matrix(m4[i])
    q[i] = a
    wp.atomic_add(loss, 0, a[0] + 2.0 * a[1] - 3.0 * a[2] + 0.5 * a[3] + b[0] - b[3])
