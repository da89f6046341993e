/* Its init forks a child that outlives the process loading it and keeps every
 * descriptor that process had, the report pipe of an isolated check included.
 * The check must end with the loading process, not with that child (which
 * exits by itself after two minutes, should nothing kill it). */
#include <weft/plugin.h>
#include <unistd.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "lingering_child", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    if (fork() == 0) {
        sleep(120);
        _exit(0);
    }
    return WEFT_OK;
}
