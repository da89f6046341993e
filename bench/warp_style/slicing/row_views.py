# Row-wise softmax: each thread takes one row of a 2-D array as a 1-D view.
import warp as wp


@wp.func
def row_max(row: wp.array(dtype=float)):
    m = row[0]
    for j in range(1, 16):
        m = wp.max(m, row[j])
    return m


@wp.kernel
def softmax_rows(logits: wp.array2d(dtype=float), probs: wp.array2d(dtype=float)):
    i = wp.tid()
    if i >= logits.shape[0]:
        return
    row = logits[i]
    out = probs[i]
    m = row_max(row)
    total = float(0.0)
    for j in range(16):
        e = wp.exp(row[j] - m)
        out[j] = e
        total += e
    for j in range(16):
        out[j] = out[j] / total
