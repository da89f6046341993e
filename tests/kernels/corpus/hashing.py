import warp as wp


@wp.func
def hash_u32(x: wp.uint32) -> wp.uint32:
    h = x
    h = h ^ (h >> wp.uint32(16))
    h = h * wp.uint32(0x7FEB352D)
    h = h ^ (h >> wp.uint32(15))
    h = h * wp.uint32(0x846CA68B)
    h = h ^ (h >> wp.uint32(16))
    return h


@wp.func
def pcg(state: wp.uint32) -> wp.uint32:
    s = state * wp.uint32(747796405) + wp.uint32(2891336453)
    word = ((s >> ((s >> 28) + 4)) ^ s) * wp.uint32(277803737)
    return (word >> 22) ^ word


@wp.func
def rotl(x: wp.uint32, r: int) -> wp.uint32:
    return (x << wp.uint32(r)) | (x >> wp.uint32(32 - r))


@wp.func
def fnv1a(a: int, b: int) -> wp.uint32:
    h = wp.uint32(2166136261)
    h = (h ^ wp.uint32(a & 0xFF)) * wp.uint32(16777619)
    h = (h ^ wp.uint32((a >> 8) & 0xFF)) * wp.uint32(16777619)
    h = (h ^ wp.uint32(b & 0xFF)) * wp.uint32(16777619)
    return h


@wp.kernel
def hash_ids(ids: wp.array(dtype=wp.uint32), seed: wp.uint32):
    i = wp.tid()
    h = hash_u32(wp.uint32(i) ^ seed)
    h = pcg(h)
    ids[i] = rotl(h, 13) & wp.uint32(0xFFFF)


@wp.kernel
def bit_tricks(values: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    v = values[i]
    low_bit = v & -v
    is_pow2 = (v & (v - 1)) == 0
    flipped = ~v
    packed = (v << 8) | (v >> 24 & 0xFF)
    out[i] = wp.select(is_pow2, flipped ^ packed, low_bit)


@wp.kernel
def grid_hash(cells: wp.array2d(dtype=int), hashes: wp.array2d(dtype=wp.uint32)):
    i, j = wp.tid()
    hashes[i, j] = fnv1a(i, j) ^ wp.uint32(cells[i, j])
    hashes[i, j] ^= hashes[i, j] >> 7
    hashes[i, j] |= wp.uint32(1)
