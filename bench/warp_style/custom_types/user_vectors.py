# Six-component state vectors and a 2x3 Jacobian declared as user types.
import warp as wp

vec6 = wp.types.vector(length=6, dtype=wp.float32)
mat23 = wp.types.matrix(shape=(2, 3), dtype=wp.float32)


@wp.func
def energy(s: vec6):
    return 0.5 * wp.dot(s, s)


@wp.kernel
def project(p: wp.array(dtype=wp.vec3), uv: wp.array(dtype=wp.vec2), e: wp.array(dtype=float)):
    i = wp.tid()
    J = mat23(1.0, 0.0, 0.5, 0.0, 1.0, 0.25)
    uv[i] = J * p[i]
    s = vec6(p[i][0], p[i][1], p[i][2], uv[i][0], uv[i][1], 1.0)
    e[i] = energy(s)


@wp.kernel
def state_update(state: wp.array(dtype=vec6), dt: float):
    i = wp.tid()
    s = state[i]
    s[0] = s[0] + s[3] * dt
    s[1] = s[1] + s[4] * dt
    s[2] = s[2] + s[5] * dt
    state[i] = s
