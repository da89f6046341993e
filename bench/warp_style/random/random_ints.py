# Random integers: shuffled indices and dice rolls in a range.
import warp as wp


@wp.kernel
def dice(seed: int, rolls: wp.array(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    r = wp.randi(state, 1, 7)
    rolls[i] = r
    wp.atomic_add(counts, r, 1)


@wp.kernel
def raw_bits(seed: int, bits: wp.array(dtype=int), ubits: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    state = wp.rand_init(seed)
    for k in range(i % 5):
        wp.randi(state)
    bits[i] = wp.randi(state)
    ubits[i] = wp.randu(state)
