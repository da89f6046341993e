# expect: 6:6: #embed is not allowed in a native snippet
import warp as wp

snippet = """
    int n = 0;
    #embed "secrets.bin"
    return n;
"""


@wp.func_native(snippet)
def f(x: int) -> int:
    ...
