# argmax / argmin (NaNs skipped, int vectors too), ddot, diag and get_diag with
# gradients: tests/unit/test_warp_semantics.cpp holds warp-lang 1.19's values.
import warp as wp

@wp.kernel
def vecb(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33), vi: wp.array(dtype=wp.vec4i),
         o: wp.array(dtype=float), idx: wp.array(dtype=wp.uint32), dm: wp.array(dtype=wp.mat33),
         gd: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    o[i] = wp.ddot(m[i], m[i] * 0.5 + wp.diag(v[i]))
    idx[i * 4 + 0] = wp.argmax(v[i])
    idx[i * 4 + 1] = wp.argmin(v[i])
    idx[i * 4 + 2] = wp.argmax(vi[i])
    idx[i * 4 + 3] = wp.argmin(vi[i])
    dm[i] = wp.diag(v[i] * 2.0)
    gd[i] = wp.get_diag(m[i])
    wp.atomic_add(loss, 0, wp.ddot(m[i], wp.diag(v[i])) + wp.dot(wp.get_diag(m[i]), v[i]))
