# The autodiff benchmark's kernels, in the syntax weft and NVIDIA Warp share:
# each runs forward and backward in both (bench/autodiff/run.sh).
import warp as wp


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a * x[i] + y[i]


@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), n: int, dt: float,
          pos_out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = pos[i]
    f = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + 0.01
        f = f + d * (1.0 / (r2 * wp.sqrt(r2)))
    v = vel[i] + f * dt
    pos_out[i] = p + v * dt


@wp.kernel
def mlp(w: wp.array2d(dtype=float), b: wp.array(dtype=float), x: wp.array2d(dtype=float),
        y: wp.array2d(dtype=float)):
    s, o = wp.tid()
    acc = b[o]
    for k in range(64):
        acc = acc + w[o, k] * x[s, k]
    y[s, o] = wp.tanh(acc)
