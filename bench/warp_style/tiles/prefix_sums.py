# Inclusive and exclusive scans of blocks of a 1-D array (stream compaction offsets).
import warp as wp

BLOCK = wp.constant(8)


@wp.kernel
def scan_blocks(flags: wp.array(dtype=int), inclusive: wp.array(dtype=int), exclusive: wp.array(dtype=int)):
    i = wp.tid()
    f = wp.tile_load(flags, shape=BLOCK, offset=i * BLOCK)
    wp.tile_store(inclusive, wp.tile_scan_inclusive(f), offset=i * BLOCK)
    wp.tile_store(exclusive, wp.tile_scan_exclusive(f), offset=i * BLOCK)


@wp.kernel
def running_mean(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=BLOCK, offset=i * BLOCK)
    counts = wp.tile_arange(1, 9, dtype=float)
    wp.tile_store(y, wp.tile_map(wp.div, wp.tile_scan_inclusive(t), counts), offset=i * BLOCK)
