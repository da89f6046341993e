/* Writes a marker file from its library constructor, which runs inside
 * dlopen before any weft entry point: a plugin the trust policy refuses must
 * leave no marker (tests/unit/test_trust.cpp). The marker's path comes from
 * WEFT_TEST_MARKER; without it the plugin writes nothing. */
#include <weft/plugin.h>

#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void write_marker(void) {
    const char *path = getenv("WEFT_TEST_MARKER");
    if (!path || !*path) return;
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("ctor_marker ran\n", f);
        fclose(f);
    }
}

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "ctor_marker", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    return WEFT_OK;
}
