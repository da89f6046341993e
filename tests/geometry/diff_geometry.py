# Compares weft's geometry results (tests/tools/geometry_run) with
# warp-lang's (warp_side_mesh.py) line by line: integers exactly, floats
# within 1e-5 relative. Exit 77 (skipped) without warp-lang.
import os
import subprocess
import sys

try:
    import warp  # noqa: F401
except ImportError:
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
runner, plugins = sys.argv[1], sys.argv[2]
weft_out = subprocess.run([runner, plugins, os.path.join(here, "mesh_kernels.py")], check=True, capture_output=True,
                          text=True).stdout
warp_out = subprocess.run([sys.executable, os.path.join(here, "warp_side_mesh.py")], check=True, capture_output=True,
                          text=True).stdout


def parse(text):
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and "." in parts[0]:
            out[parts[0]] = parts[1]
    return out


w, x = parse(weft_out), parse(warp_out)
bad = 0
for name, want in x.items():
    got = w.get(name)
    ok = got is not None
    if ok and "." in want or ok and "e" in want:
        ok = abs(float(got) - float(want)) <= 1e-5 * max(1.0, abs(float(want)))
    elif ok:
        ok = int(got) == int(want)
    note = ""
    if not ok and name.endswith(".closest.face_sum"):
        # A closest point on an edge or vertex shared by faces is equally near
        # to each; which face is named depends on the BVH's traversal order.
        # The same points and distances make that a tie, not a difference.
        stem = name[: -len("face_sum")]
        ok = all(abs(float(w.get(stem + k, "nan")) - float(x[stem + k])) <= 1e-5 * max(1.0, abs(float(x[stem + k])))
                 for k in ("dist_sum", "nearest_sum"))
        note = " (ties on shared edges: the same nearest points and distances)" if ok else ""
    print(("ok      " if ok else "DIFFERS ") + name + " weft " + str(got) + " warp " + want + note)
    bad += not ok
print(f"{len(x) - bad} of {len(x)} results agree with warp-lang")
sys.exit(1 if bad else 0)
