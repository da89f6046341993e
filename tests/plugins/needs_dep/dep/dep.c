/* The dependency of the needs_dep test plugin. Its constructor leaves a
 * marker when WEFT_TEST_MARKER names one, so a test sees whether it ran. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void mark(void) {
    const char *path = getenv("WEFT_TEST_MARKER");
    if (!path) return;
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
}

int needs_dep_value(void) { return 42; }
