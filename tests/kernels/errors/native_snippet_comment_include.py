# expect: 6:26: #include is not allowed in a native snippet
import warp as wp

snippet = """
    int n = 0;
    /* a comment first */#include "secrets.h"
    return n;
"""


@wp.func_native(snippet)
def f(x: int) -> int:
    ...
