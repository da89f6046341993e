/* sdk_version holds an overlong encoding of '/', which would break every JSON
 * report and terminal it reached if the host copied it unchecked. */
#include <weft/plugin.h>

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "bad_utf8_info", "1.0.0",
                                          "0.1\xC0\xAF"};
    return &info;
}

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    return WEFT_OK;
}
