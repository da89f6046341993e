# Monte Carlo estimate of pi: each thread throws darts and counts hits.
import warp as wp


@wp.kernel
def darts(seed: int, hits: wp.array(dtype=int), samples: int):
    i = wp.tid()
    rng = wp.rand_init(seed + 17, i)
    n = int(0)
    for k in range(samples + 16):
        x = wp.randf(rng, -1.0, 1.0)
        y = wp.randf(rng, -1.0, 1.0)
        if x * x + y * y < 1.0:
            n += 1
    wp.atomic_add(hits, 0, n)
    hits[i % 63 + 1] = n
