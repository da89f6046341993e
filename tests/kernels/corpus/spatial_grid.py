import warp as wp

CELL_SIZE = wp.constant(0.5)
GRID_DIM = wp.constant(32)


@wp.func
def cell_coord(x: float) -> int:
    return wp.clamp(int(wp.floor(x / CELL_SIZE)), 0, GRID_DIM - 1)


@wp.func
def cell_index(p: wp.vec3) -> int:
    cx = cell_coord(p[0])
    cy = cell_coord(p[1])
    cz = cell_coord(p[2])
    return (cz * GRID_DIM + cy) * GRID_DIM + cx


@wp.kernel
def count_cells(points: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int), cell_of: wp.array(dtype=int)):
    i = wp.tid()
    c = cell_index(points[i])
    cell_of[i] = c
    wp.atomic_add(counts, c, 1)


@wp.kernel
def scatter(
    cell_of: wp.array(dtype=int),
    offsets: wp.array(dtype=int),
    cursor: wp.array(dtype=int),
    sorted_ids: wp.array(dtype=int),
):
    i = wp.tid()
    c = cell_of[i]
    slot = offsets[c] + wp.atomic_add(cursor, c, 1)
    sorted_ids[slot] = i


@wp.kernel
def occupancy(counts: wp.array3d(dtype=int), occupied: wp.array(dtype=int)):
    x, y, z = wp.tid()
    if counts[x, y, z] > 0:
        wp.atomic_add(occupied, 0, 1)
