import warp as wp


@wp.kernel
def box_blur(src: wp.array2d(dtype=wp.vec3), dst: wp.array2d(dtype=wp.vec3), radius: int):
    i, j = wp.tid()
    h = src.shape[0]
    w = src.shape[1]
    acc = wp.vec3(0.0)
    count = int(0)
    for di in range(-radius, radius + 1):
        for dj in range(-radius, radius + 1):
            y = wp.clamp(i + di, 0, h - 1)
            x = wp.clamp(j + dj, 0, w - 1)
            acc += src[y, x]
            count += 1
    dst[i, j] = acc / float(count)


@wp.kernel
def threshold(src: wp.array2d(dtype=wp.vec3), mask: wp.array2d(dtype=wp.uint8), level: float):
    i, j = wp.tid()
    c = src[i, j]
    lum = wp.dot(c, wp.vec3(0.299, 0.587, 0.114))
    mask[i, j] = wp.uint8(255) if lum > level else wp.uint8(0)


@wp.kernel
def sobel(img: wp.array2d(dtype=float), mag: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if i == 0 or j == 0 or i >= img.shape[0] - 1 or j >= img.shape[1] - 1:
        mag[i, j] = 0.0
        return
    gx = img[i - 1, j + 1] + 2.0 * img[i, j + 1] + img[i + 1, j + 1] - img[i - 1, j - 1] - 2.0 * img[i, j - 1] - img[i + 1, j - 1]
    gy = img[i + 1, j - 1] + 2.0 * img[i + 1, j] + img[i + 1, j + 1] - img[i - 1, j - 1] - 2.0 * img[i - 1, j] - img[i - 1, j + 1]
    mag[i, j] = wp.sqrt(gx * gx + gy * gy)
