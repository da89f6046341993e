# Kernels annotated -> None (as type-checked code bases write them), and a
# helper function with an explicit return annotation.
import warp as wp


@wp.func
def kinetic(m: float, v: wp.vec3) -> float:
    return 0.5 * m * wp.dot(v, v)


@wp.kernel
def energies(m: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), e: wp.array(dtype=float)) -> None:
    i = wp.tid()
    e[i] = kinetic(m[i], v[i])


@wp.kernel
def clear(e: wp.array(dtype=float)) -> None:
    i = wp.tid()
    e[i] = 0.0
