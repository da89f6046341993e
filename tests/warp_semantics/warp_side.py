# The operators kernel (operators.py) of tests/unit/test_warp_semantics.cpp,
# run by warp-lang on the CPU: prints the values the weft test expects, so a new
# Warp release that changes them shows here. Exits 77 (skipped) without
# warp-lang; WEFT_WARP_PYTHON names an interpreter that has it
# (bench/vs_warp/setup_warp.sh makes one).
import importlib.util
import os
import sys

try:
    import warp as wp
except ImportError:
    print("skipped: warp-lang is not installed for " + sys.executable)
    sys.exit(77)

wp.config.quiet = True
wp.init()

spec = importlib.util.spec_from_file_location("operators", os.path.join(os.path.dirname(__file__), "operators.py"))
operators = importlib.util.module_from_spec(spec)
spec.loader.exec_module(operators)

a = wp.array([1, 2, 3, 4], dtype=int, device="cpu")
out = wp.zeros(8, dtype=int, device="cpu")
f = wp.zeros(6, dtype=float, device="cpu")
wp.launch(operators.ops, dim=1, inputs=[a, out, f], device="cpu")
print("warp", wp.__version__)
print("out", out.numpy().tolist())
print("a", a.numpy().tolist())
print("f", f.numpy().tolist())
