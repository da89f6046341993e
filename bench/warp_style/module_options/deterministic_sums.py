# Warp's deterministic mode for float atomics: per-bin sums and a total that
# come out the same bits on every run (weft: CPU launches on one thread in
# index order, Warp's CPU order).
import warp as wp

wp.set_module_options({"deterministic": wp.DeterministicMode.RUN_TO_RUN})


@wp.kernel
def binned(x: wp.array(dtype=float), bins: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i] * wp.sin(float(i) * 0.37) + 1.0 / (x[i] + 0.1)
    wp.atomic_add(bins, i % 7, v)
    wp.atomic_add(total, 0, v * v)
