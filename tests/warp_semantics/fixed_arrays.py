# wp.zeros(shape, dtype) in kernels and functions (Warp's fixed-size arrays):
# indexed, sliced, passed to a function, zeroed again on each evaluation.
# tests/unit/test_warp_semantics.cpp holds warp-lang 1.19's values.
import warp as wp


@wp.func
def fill_rows(arr: wp.array2d[int]):
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            arr[i][j] = i * arr.shape[1] + j


@wp.func
def local_sum(x: float) -> float:
    buf = wp.zeros(shape=4, dtype=float)
    for k in range(4):
        buf[k] = x * float(k)
    s = float(0.0)
    for k in range(buf.shape[0]):
        s += buf[k]
    return s


@wp.kernel
def zeros_kernel(out: wp.array(dtype=int), f: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    arr = wp.zeros(shape=(2, 3), dtype=int)
    fill_rows(arr)
    r1 = arr[1]
    out[i * 8 + 0] = arr[0][2] + arr[1, 1]
    out[i * 8 + 1] = r1.shape[0] + r1[2]
    s = arr[:2, 1:]
    out[i * 8 + 2] = s[1, 0] + s.shape[1]
    out[i * 8 + 3] = wp.where(arr[1][2] == 5, 1, 0)
    out[i * 8 + 4] = arr.shape[0] * 10 + arr.shape[1]
    for it in range(2):
        h = wp.zeros(shape=(3,), dtype=int)
        h[it] += 1 + i
        out[i * 8 + 5 + it] = h[0] + h[1] + h[2]
    vs = wp.zeros(shape=2, dtype=wp.vec3)
    vs[1] = wp.vec3(1.0, 2.0, float(i))
    v[i] = vs[0] + vs[1]
    f[i] = local_sum(float(i) + 0.5)
