/* An init that never returns: `weft plugin check --isolate` must give up on
 * it at its deadline and report it as timed out. */
#include <weft/plugin.h>
#include <unistd.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "hangs_in_init", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    for (;;) pause();
}
