# Spatial inertia of a body from mass and inertia tensor, and the momentum it
# gives a spatial velocity.
import warp as wp


@wp.func
def inertia_matrix(m: float, I: wp.mat33):
    return wp.spatial_matrix(
        I[0, 0], I[0, 1], I[0, 2], 0.0, 0.0, 0.0,
        I[1, 0], I[1, 1], I[1, 2], 0.0, 0.0, 0.0,
        I[2, 0], I[2, 1], I[2, 2], 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, m, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, m, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, m,
    )


@wp.kernel
def momentum(mass: wp.array(dtype=float), I: wp.array(dtype=wp.mat33), qd: wp.array(dtype=wp.spatial_vector),
             h: wp.array(dtype=wp.spatial_vector), ke: wp.array(dtype=float)):
    i = wp.tid()
    M = inertia_matrix(mass[i], I[i])
    p = M * qd[i]
    h[i] = p
    ke[i] = 0.5 * wp.spatial_dot(qd[i], p)
