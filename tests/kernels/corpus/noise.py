# Warp's Perlin noise: noise, pnoise and curlnoise as procedural-content code
# uses them (fractal terrain, a tileable texture, particles in a curl-noise
# flow). warp.corpus checks the values against warp-lang bit for bit (within
# float tolerance); the state selects the field and is never advanced.
import warp as wp


@wp.func
def fbm(state: wp.uint32, p: wp.vec2, octaves: int) -> float:
    # Fractal Brownian motion: each octave doubles the frequency, halves the amplitude.
    height = float(0.0)
    amplitude = float(0.5)
    frequency = float(1.0)
    for _ in range(octaves):
        height += amplitude * wp.noise(state, p * frequency)
        frequency *= 2.0
        amplitude *= 0.5
    return height


@wp.kernel
def terrain(seed: int, scale: float, heights: wp.array2d(dtype=float), ridges: wp.array2d(dtype=float)):
    i, j = wp.tid()
    state = wp.rand_init(seed)
    p = wp.vec2(float(i), float(j)) * scale * 0.37 - wp.vec2(2.0, 3.0)
    heights[i, j] = fbm(state, p, 5)
    # Ridged noise over a slowly drifting 3-D slice.
    n = wp.noise(state, wp.vec3(p[0], p[1], 0.25 * float(seed)))
    ridges[i, j] = 1.0 - wp.abs(n)


@wp.kernel
def wind(seeds: wp.array(dtype=int), times: wp.array(dtype=float), gusts: wp.array(dtype=float),
         swirl: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(seeds[tid], 17)
    t = times[tid] * 3.1 + float(tid) * 0.61
    gusts[tid] = wp.noise(state, t) + 0.5 * wp.noise(state, -2.0 * t)
    swirl[tid] = wp.noise(state, wp.vec4(t, 0.5 * t, -t, times[tid]))


@wp.kernel
def tileable_texture(seed: int, texture: wp.array2d(dtype=float), strip: wp.array2d(dtype=float)):
    i, j = wp.tid()
    state = wp.rand_init(seed)
    # One period (4 cells) spans the 16 x 16 texture, so its edges meet seamlessly.
    uv = wp.vec2(float(i), float(j)) * (4.0 / 16.0)
    texture[i, j] = wp.pnoise(state, uv, 4, 4) + 0.5 * wp.pnoise(state, uv * 2.0, 8, 8)
    # The same texel a whole period over reads the same lattice.
    shifted = uv + wp.vec2(4.0, 8.0)
    strip[i, j] = wp.pnoise(state, shifted, 4, 4) - wp.pnoise(state, uv, 4, 4)


@wp.kernel
def looping_volume(seed: int, xs: wp.array(dtype=float), out1: wp.array(dtype=float), out3: wp.array(dtype=float),
                   out4: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(seed + 3)
    x = xs[tid] * 5.0 + float(tid) * 0.13
    out1[tid] = wp.pnoise(state, x, 3)
    out3[tid] = wp.pnoise(state, wp.vec3(x, 2.0 * x, 0.5 * x), 2, 5, 7)
    # A time axis that loops every 6 units: frame 0 and frame 6 look the same.
    out4[tid] = wp.pnoise(state, wp.vec4(x, x + 1.0, 2.5, x * 0.75), 4, 4, 4, 6)


@wp.kernel
def advect_particles(seed: int, dt: float, positions: wp.array(dtype=wp.vec3), velocities: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    state = wp.rand_init(seed)
    p = positions[tid] + wp.vec3(float(tid) * 0.21, -0.4, 1.3)
    for _ in range(4):
        v = wp.curlnoise(state, p * 0.8, octaves=wp.uint32(3), lacunarity=2.0, gain=0.5)
        p = p + v * dt
    positions[tid] = p
    velocities[tid] = wp.curlnoise(state, p)


@wp.kernel
def flow_2d(seed: int, time: float, points: wp.array(dtype=wp.vec2), swirls: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    q = points[tid] * 2.0 + wp.vec2(float(tid), -float(tid) * 0.5)
    points[tid] = q + wp.curlnoise(state, q) * 0.05 + wp.curlnoise(state, q, wp.uint32(2)) * 0.01
    # A field that evolves with time: the fourth axis of the 4-D overload.
    xyzt = wp.vec4(q[0], q[1], 0.3, time)
    swirls[tid] = wp.curlnoise(state, xyzt, wp.uint32(2), 1.9) + wp.curlnoise(state, xyzt, wp.uint32(0), 2.0, 0.5)


@wp.kernel
def displace(seed: int, vertices: wp.array(dtype=wp.vec3), amount: float, heights: wp.array(dtype=float)):
    # Differentiable in the vertices (gradients flow through noise's adjoint).
    tid = wp.tid()
    state = wp.rand_init(seed)
    v = vertices[tid]
    heights[tid] = amount * wp.noise(state, v * 1.7) + wp.pnoise(state, wp.vec2(v[0], v[2]), 8, 8)


@wp.kernel
def keyword_controls(seed: int, points: wp.array(dtype=wp.vec3), fields: wp.array(dtype=wp.vec3),
                     flat: wp.array(dtype=wp.vec2), heights: wp.array(dtype=float)):
    # Keywords bind by Warp's names; one that skips a defaulted parameter
    # (gain= without octaves= and lacunarity=) takes Warp's default for it.
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    p = points[tid] * 1.3 + wp.vec3(float(tid) * 0.17, 0.4, -0.2)
    soft = wp.curlnoise(state, p, gain=0.25)
    rough = wp.curlnoise(state, p, lacunarity=3.0, octaves=wp.uint32(2))
    timed = wp.curlnoise(state, xyzt=wp.vec4(p[0], p[1], p[2], 0.5), gain=0.4, octaves=wp.uint32(3))
    fields[tid] = soft + rough * 0.5 + timed * 0.25
    flat[tid] = wp.curlnoise(state=state, xy=wp.vec2(p[0], p[2]), lacunarity=2.5)
    heights[tid] = wp.noise(state=state, xyz=p) + wp.pnoise(state, xy=wp.vec2(p[0] + 4.0, 1.5), py=3, px=2)
