/* A library constructor that ends the process with status 0 before anything
 * is reported: an isolated check must call that a failure, not "ok". */
#include <weft/plugin.h>
#include <stdlib.h>
__attribute__((constructor)) static void leave(void) { _Exit(0); }
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "exits_quietly", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    return WEFT_OK;
}
