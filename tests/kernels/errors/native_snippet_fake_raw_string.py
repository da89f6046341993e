# expect: 6:5: #include is not allowed in a native snippet
import warp as wp

snippet = """
    const char *p = xuR"(";
    #include "secrets.h"
    // )"
"""


@wp.func_native(snippet)
def f(x: int) -> int:
    ...
