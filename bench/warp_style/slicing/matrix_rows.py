# Rows and columns of 3x3 matrices as vector slices (frames from rotations).
import warp as wp


@wp.kernel
def frame_axes(r: wp.array(dtype=wp.mat33), x_axis: wp.array(dtype=wp.vec3), z_axis: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    m = r[i]
    x_axis[i] = m[0, :]
    z_axis[i] = m[:, 2]


@wp.kernel
def upper_block(r: wp.array(dtype=wp.mat33), out: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    m = r[i]
    out[i] = m[0:2, 0:2]
