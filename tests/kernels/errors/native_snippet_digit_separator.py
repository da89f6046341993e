# expect: 5:25: _Pragma is not allowed in a native snippet
import warp as wp

snippet = """
    int a = 1'0; int b; _Pragma("GCC dependency \\"/x\\"") b = 2'0;
    return a + b;
"""


@wp.func_native(snippet)
def f(x: int) -> int:
    ...
