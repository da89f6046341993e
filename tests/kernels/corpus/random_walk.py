import warp as wp

TWO_PI = 6.283185307179586


@wp.func
def lcg(state: wp.uint32) -> wp.uint32:
    return state * wp.uint32(1664525) + wp.uint32(1013904223)


@wp.func
def to_unit(state: wp.uint32) -> float:
    return float(state >> wp.uint32(8)) * (1.0 / 16777216.0)


@wp.kernel
def random_walk(seeds: wp.array(dtype=wp.uint32), positions: wp.array(dtype=wp.vec2), steps: int):
    i = wp.tid()
    state = seeds[i] ^ wp.uint32(i)
    p = wp.vec2(0.0, 0.0)
    n = int(0)
    while True:
        if n >= steps:
            break
        state = lcg(state)
        angle = to_unit(state) * TWO_PI
        p = p + wp.vec2(wp.cos(angle), wp.sin(angle))
        n += 1
    positions[i] = p
    seeds[i] = state


@wp.kernel
def monte_carlo_pi(seeds: wp.array(dtype=wp.uint32), inside: wp.array(dtype=wp.int64), samples: int):
    i = wp.tid()
    state = seeds[i]
    hits = wp.int64(0)
    for s in range(samples):
        state = lcg(state)
        x = to_unit(state)
        state = lcg(state)
        y = to_unit(state)
        if x * x + y * y <= 1.0:
            hits += wp.int64(1)
    wp.atomic_add(inside, 0, hits)
