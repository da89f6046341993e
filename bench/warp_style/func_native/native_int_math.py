# Integer hashing in native code (a PCG-style mix), then bucketing.
import warp as wp


@wp.func_native("""
    unsigned int state = (unsigned int)x * 747796405u + 2891336453u;
    unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
""")
def pcg_hash(x: int) -> wp.uint32: ...


@wp.kernel
def hash_buckets(keys: wp.array(dtype=int), h: wp.array(dtype=wp.uint32), buckets: wp.array(dtype=int)):
    i = wp.tid()
    v = pcg_hash(keys[i] + i)
    h[i] = v
    wp.atomic_add(buckets, int(v % wp.uint32(16)), 1)
