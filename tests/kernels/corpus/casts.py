import warp as wp


@wp.kernel
def conversions(
    ints: wp.array(dtype=int),
    floats: wp.array(dtype=float),
    doubles: wp.array(dtype=wp.float64),
    bytes_out: wp.array(dtype=wp.uint8),
):
    i = wp.tid()
    f = float(i)
    floats[i] = f * 0.5
    ints[i] = int(floats[i] * 10.0)
    ints[i] = wp.int32(wp.floor(f / 3.0))
    doubles[i] = wp.float64(f) * wp.float64(2.0)
    bytes_out[i] = wp.uint8(i & 255)
    h = wp.float16(f)
    doubles[i] += wp.float64(h)
    big = wp.int64(i) * wp.int64(1 << 20)
    ints[i] = wp.int32(big >> wp.int64(20))
    flag = bool(i & 1)
    if flag:
        floats[i] = -floats[i]


@wp.kernel
def quantize(values: wp.array(dtype=float), levels: int, out: wp.array(dtype=wp.uint16)):
    i = wp.tid()
    v = wp.clamp(values[i], 0.0, 1.0)
    q = wp.int32(wp.round(v * float(levels - 1)))
    out[i] = wp.uint16(q)


@wp.kernel
def vector_casts(src: wp.array(dtype=wp.vec3), dst: wp.array(dtype=wp.vec3d), idx: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    v = src[i]
    dst[i] = wp.vec3d(v)
    idx[i] = wp.vec3i(int(v[0]), int(v[1]), int(v[2]))
