# Bucketing particles into cells with integer division and remainders, the
# way a grid hash does it; offsets may be negative.
import warp as wp

CELLS = wp.constant(8)


@wp.kernel
def bucket(ids: wp.array(dtype=int), cell: wp.array(dtype=int), slot: wp.array(dtype=int)):
    i = wp.tid()
    offset = ids[i] - 4  # -4 .. 3
    cell[i] = offset // 3
    slot[i] = offset % 3


@wp.kernel
def halves(ids: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    n = ids[i] - 5
    out[i] = n / 2 + (7 / 2) * 10 + (-7 // 2) * 100


@wp.kernel
def tile_coords(w: int, tx: wp.array(dtype=int), ty: wp.array(dtype=int)):
    i = wp.tid()
    width = w + 3
    tx[i] = i % width
    ty[i] = i // width + (i - 40) % CELLS
