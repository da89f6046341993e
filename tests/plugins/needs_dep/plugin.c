/* Needs libneeds_dep_lib.so, which the build links from a directory of its
 * own (an absolute RUNPATH): the library a trust policy's check does not see.
 * Swapping that file for one with a constructor must not run it. */
#include <weft/plugin.h>

int needs_dep_value(void);

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "needs_dep", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    return needs_dep_value() == 42 ? WEFT_OK : WEFT_ERROR_INTERNAL;
}
