# Reading and writing transform components directly: p and q fields,
# indexing, and building from arrays of positions and rotations.
import warp as wp


@wp.kernel
def pack(pos: wp.array(dtype=wp.vec3), rot: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.transform)):
    i = wp.tid()
    t = wp.transform(pos[i], wp.normalize(rot[i]))
    t.p = t.p + wp.vec3(0.0, 0.0, 1.0)
    out[i] = t


@wp.kernel
def unpack(tf: wp.array(dtype=wp.transform), px: wp.array(dtype=float), qw: wp.array(dtype=float)):
    i = wp.tid()
    t = tf[i]
    px[i] = t.p[0] + t[1]
    qw[i] = t.q[3]
