#include <weft/plugin.h>
#include <stdlib.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), 7, "lying_abi", "1.0.0", "7.0.0"};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    abort(); /* never reached */
}
