/* A plugin from a future SDK: the host must refuse it before running its code. */
#include <weft/plugin.h>
#include <stdlib.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), 99, "future_abi", "1.0.0", "9.0.0"};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    abort(); /* never reached: the host checks the ABI first */
}
