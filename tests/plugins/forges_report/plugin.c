/* A library constructor that writes what looks like a complete, clean report
 * to every descriptor it may reach, then ends the process with status 0:
 * `weft plugin check --isolate` must not take that for a check that passed. */
#include <weft/plugin.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void forge(void) {
    static const char report[] = "S\x1f" "0000\nE\x1f" "0000\nE\n";
    for (int fd = 1; fd < 64; ++fd) {
        ssize_t ignored = write(fd, report, strlen(report));
        (void)ignored;
    }
    _Exit(0);
}
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "forges_report", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    return WEFT_OK;
}
