# Physical constants grouped in a plain class, read as Class.NAME in kernels.
import warp as wp


class Phys:
    G = wp.constant(9.81)
    RHO_AIR = wp.constant(1.225)
    STEPS = wp.constant(4)


class Limits:
    MAX_SPEED = 20.0
    MAX_ITERS = 3


@wp.kernel
def drag(v: wp.array(dtype=float), area: float, out: wp.array(dtype=float)):
    i = wp.tid()
    s = v[i]
    for k in range(Phys.STEPS):
        s = s - 0.5 * Phys.RHO_AIR * s * s * area * 0.01 + Phys.G * 0.001
    out[i] = wp.min(s, Limits.MAX_SPEED) + float(Limits.MAX_ITERS)
