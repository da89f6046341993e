import warp as wp


# One step of a Hillis-Steele inclusive scan: launched log2(n) times with
# offset = 1, 2, 4, ..., ping-ponging between src and dst.
@wp.kernel
def hillis_steele_step(src: wp.array(dtype=float), dst: wp.array(dtype=float), offset: int):
    i = wp.tid()
    if i >= offset:
        dst[i] = src[i] + src[i - offset]
    else:
        dst[i] = src[i]


@wp.kernel
def inclusive_to_exclusive(inclusive: wp.array(dtype=float), exclusive: wp.array(dtype=float)):
    i = wp.tid()
    if i == 0:
        exclusive[i] = 0.0
    else:
        exclusive[i] = inclusive[i - 1]


@wp.kernel
def scan_int_step(src: wp.array(dtype=wp.int32), dst: wp.array(dtype=wp.int32), offset: wp.int32):
    i = wp.tid()
    value = src[i]
    if i >= offset:
        value = value + src[i - offset]
    dst[i] = value
