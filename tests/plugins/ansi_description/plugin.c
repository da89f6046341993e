/* A plugin whose manifest description carries terminal escapes and a newline:
 * `weft plugin list` and `inspect` must show them escaped, never raw. */
#include <weft/plugin.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "ansi_description", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    return WEFT_OK;
}
