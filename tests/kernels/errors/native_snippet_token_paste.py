# expect: 5:24: token pasting (##) is not allowed in a native snippet
import warp as wp

snippet = """
    #define P(x) _Prag ## ma(x)
    return x;
"""


@wp.func_native(snippet)
def f(x: int) -> int:
    ...
