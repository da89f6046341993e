# Float and int mixing the way Warp allows it: explicit conversions of int
# variables, float() / int() truncation, float64 <-> float32 casts.
import warp as wp


@wp.kernel
def normalize_counts(counts: wp.array(dtype=int), total: int, out: wp.array(dtype=float)):
    i = wp.tid()
    c = float(counts[i])
    out[i] = c / float(total + 1) * 2.0 + 1.0


@wp.kernel
def scale_by_index(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    t = float(i) / 64.0
    y[i] = x[i] * t + 3.0 - 2.0 * x[i] + wp.float32(i % 4)


@wp.kernel
def quantize(x: wp.array(dtype=float), q: wp.array(dtype=int), d: wp.array(dtype=wp.float64)):
    i = wp.tid()
    q[i] = int(x[i] * 10.0) + int(-x[i] * 3.0)
    d[i] = wp.float64(x[i]) * wp.float64(q[i]) + d[i] / wp.float64(3.0)
