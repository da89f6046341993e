import warp as wp


@wp.struct
class Spring:
    i: int
    j: int
    rest: float
    stiffness: float


@wp.kernel
def spring_forces(x: wp.array(dtype=wp.vec3), springs: wp.array(dtype=Spring), f: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    s = springs[tid]
    d = x[s.j] - x[s.i]
    l = wp.length(d)
    if l < 1.0e-6:
        return
    dir = d / l
    force = dir * (s.stiffness * (l - s.rest))
    wp.atomic_add(f, s.i, force)
    wp.atomic_sub(f, s.j, force)


@wp.kernel
def pin_corners(x: wp.array(dtype=wp.vec3), rest: wp.array(dtype=wp.vec3), width: int, height: int):
    tid = wp.tid()
    row = tid // width
    col = tid % width
    pinned = (row == height - 1) and (col == 0 or col == width - 1)
    if pinned:
        x[tid] = rest[tid]


@wp.kernel
def make_grid_springs(springs: wp.array(dtype=Spring), width: int, spacing: float, k: float):
    tid = wp.tid()
    s = Spring()
    s.i = tid
    s.j = tid + 1
    if (tid + 1) % width == 0:
        s.j = tid + width
    s.rest = spacing
    s.stiffness = k
    springs[tid] = s



@wp.kernel
def spring_strain(
    x: wp.array(dtype=wp.vec3), rest_x: wp.array(dtype=wp.vec3), springs: wp.array(dtype=Spring), strain: wp.array(dtype=float)
):
    tid = wp.tid()
    s = springs[tid]
    length = wp.length(x[s.j] - x[s.i])
    rest_length = wp.length(rest_x[s.j] - rest_x[s.i])
    strain[tid] = (length - rest_length) / rest_length
