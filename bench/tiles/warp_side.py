#!/usr/bin/env python3
"""Warp side of bench/tiles (CPU), run by bench/tiles/run.sh.

    $PY bench/tiles/warp_side.py --kernels FILE --cache-dir DIR [--sizes 256,512,1024]

Prints `warp KEY VALUE` lines, the keys of weft's side: gemm_<n>_ms (one
launch_tiled of kernels.py's gemm on n x n float32 matrices, median of runs
after a warm-up) and total_ms (the 2^26-float tile reduction).
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--sizes", default="256,512,1024")
    args = ap.parse_args()
    import warp as wp

    wp.config.kernel_cache_dir = os.path.abspath(args.cache_dir)
    wp.config.quiet = True
    wp.init()
    spec = importlib.util.spec_from_file_location("tile_kernels", args.kernels)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tile_kernels"] = mod
    spec.loader.exec_module(mod)
    wp.load_module(mod, device="cpu")
    rng = np.random.default_rng(1)
    for n in [int(s) for s in args.sizes.split(",")]:
        A = wp.array(rng.random((n, n), dtype=np.float32), dtype=float, device="cpu")
        B = wp.array(rng.random((n, n), dtype=np.float32), dtype=float, device="cpu")
        C = wp.zeros((n, n), dtype=float, device="cpu")
        runs = 3 if n <= 512 else 1
        times = []
        for r in range(runs + 1):
            t0 = time.perf_counter()
            wp.launch_tiled(mod.gemm, dim=(n // 64, n // 64), inputs=[A, B, C], block_dim=64, device="cpu")
            wp.synchronize_device("cpu")
            if r:
                times.append((time.perf_counter() - t0) * 1e3)
        print("warp gemm_%d_ms %.3f" % (n, statistics.median(times)))
    a = wp.array(np.full(1 << 26, 0.5, dtype=np.float32), dtype=float, device="cpu")
    out = wp.zeros(1, dtype=float, device="cpu")
    times = []
    for r in range(4):
        out.zero_()
        t0 = time.perf_counter()
        wp.launch_tiled(mod.total, dim=(1 << 26) // 4096, inputs=[a, out], block_dim=64, device="cpu")
        wp.synchronize_device("cpu")
        if r:
            times.append((time.perf_counter() - t0) * 1e3)
    print("warp total_ms %.3f" % statistics.median(times))

    # The tiled MLP: forward, and forward + backward through a tape, 8192 samples.
    samples = 8192
    def param(shape, scale):
        return wp.array(rng.uniform(-scale, scale, shape).astype(np.float32), dtype=float, device="cpu",
                        requires_grad=True)
    layers = [param((32, 32), 0.18), param((32, 1), 0.18), param((32, 32), 0.18), param((32, 1), 0.18),
              param((32, 32), 0.18), param((32, 1), 0.18), param((3, 32), 0.18), param((3, 1), 0.18)]
    features = param((32, samples), 1.0)
    reference = param((3, samples), 1.0)
    loss = wp.zeros(1, dtype=float, device="cpu", requires_grad=True)
    inputs = [features] + layers + [reference, loss]
    fwd, both = [], []
    for r in range(6):
        loss.zero_()
        t0 = time.perf_counter()
        wp.launch_tiled(mod.mlp, dim=samples // 32, inputs=inputs, block_dim=32, device="cpu")
        wp.synchronize_device("cpu")
        t1 = time.perf_counter()
        loss.zero_()
        tape = wp.Tape()
        t2 = time.perf_counter()
        with tape:
            wp.launch_tiled(mod.mlp, dim=samples // 32, inputs=inputs, block_dim=32, device="cpu")
        tape.backward(loss=loss)
        wp.synchronize_device("cpu")
        t3 = time.perf_counter()
        tape.zero()
        if r:
            fwd.append((t1 - t0) * 1e3)
            both.append((t3 - t2) * 1e3)
    print("warp mlp_forward_ms %.3f" % statistics.median(fwd))
    print("warp mlp_forward_backward_ms %.3f" % statistics.median(both))
    return 0


if __name__ == "__main__":
    sys.exit(main())
