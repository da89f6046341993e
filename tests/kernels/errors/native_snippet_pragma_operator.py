# expect: 5:16: _Pragma is not allowed in a native snippet
import warp as wp

snippet = """
    int n = 0; _Pragma("GCC poison n")
    return n;
"""


@wp.func_native(snippet)
def f(x: int) -> int:
    ...
