#!/usr/bin/env python3
"""Warp side of the autodiff benchmark (CPU device), run by bench/autodiff/run.sh.

    $PY bench/autodiff/warp_side.py --kernels FILE --cache-dir DIR

Prints `warp KEY VALUE` lines (medians), the same keys as weft's side:
cold_forward_ms (enable_backward=False) and cold_forward_and_backward_ms
(Warp compiles both passes together on every cold load), each in fresh child
processes with an emptied cache; then per kernel one launch (+ synchronize)
and one tape.backward (+ synchronize).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def _import(path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _init(cache_dir, enable_backward=True):
    import warp as wp

    wp.config.kernel_cache_dir = os.path.abspath(cache_dir)
    wp.config.quiet = True
    wp.config.enable_backward = enable_backward
    wp.init()
    return wp


def child(args):
    shutil.rmtree(args.cache_dir, ignore_errors=True)
    wp = _init(args.cache_dir, args.backward == "1")
    t0 = time.perf_counter()
    mod = _import(args.kernels)
    wp.load_module(mod, device="cpu")
    print(json.dumps({"ms": (time.perf_counter() - t0) * 1e3}))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--backward", default="1")
    args = ap.parse_args()
    if args.child:
        return child(args)

    def cold(backward):
        times = []
        for _ in range(3):
            out = subprocess.run([sys.executable, __file__, "--child", "--kernels", args.kernels, "--cache-dir",
                                  args.cache_dir + "-cold", "--backward", backward], capture_output=True, text=True,
                                 check=True).stdout
            times.append(json.loads(out.strip().splitlines()[-1])["ms"])
        return statistics.median(times)

    print(f"warp cold_forward_ms {cold('0'):.3f}")
    print(f"warp cold_forward_and_backward_ms {cold('1'):.3f}")

    import numpy as np

    wp = _init(args.cache_dir)
    mod = _import(args.kernels)
    wp.load_module(mod, device="cpu")
    rng = np.random.default_rng(1)

    def arr(shape, dtype=wp.float32):
        comps = 3 if dtype == wp.vec3 else 1
        data = rng.uniform(-1, 1, size=tuple(shape) + ((comps,) if comps > 1 else ())).astype(np.float32)
        return wp.array(data, dtype=dtype, device="cpu", requires_grad=True)

    def measure(name, kernel, dim, inputs, out):
        fwd, bwd = [], []
        for _ in range(12):
            tape = wp.Tape()
            t0 = time.perf_counter()
            with tape:
                wp.launch(kernel, dim=dim, inputs=inputs, device="cpu")
            wp.synchronize_device("cpu")
            fwd.append((time.perf_counter() - t0) * 1e3)
            t0 = time.perf_counter()
            tape.backward(grads={out: wp.ones_like(out, requires_grad=False)})
            wp.synchronize_device("cpu")
            bwd.append((time.perf_counter() - t0) * 1e3)
            tape.zero()
        print(f"warp {name}_forward_ms {statistics.median(fwd[2:]):.3f}")
        print(f"warp {name}_backward_ms {statistics.median(bwd[2:]):.3f}")
        # Warp's CPU launches run on one thread: the same figures for weft's 1-thread keys.
        print(f"warp {name}_forward_1t_ms {statistics.median(fwd[2:]):.3f}")
        print(f"warp {name}_backward_1t_ms {statistics.median(bwd[2:]):.3f}")

    n = 1 << 20
    x, y, out = arr((n,)), arr((n,)), arr((n,))
    measure("saxpy", mod.saxpy, n, [2.0, x, y, out], out)
    nb = 1024
    pos, vel, pout = arr((nb,), wp.vec3), arr((nb,), wp.vec3), arr((nb,), wp.vec3)
    measure("nbody", mod.nbody, nb, [pos, vel, nb, 0.01, pout], pout)
    w, b, xb, yb = arr((64, 64)), arr((64,)), arr((256, 64)), arr((256, 64))
    measure("mlp", mod.mlp, (256, 64), [w, b, xb, yb], yb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
