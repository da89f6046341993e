/* A newer SDK's weft_plugin_info with a field set that this host does not
 * know: as with descriptors, the host loads it only when those bytes are zero. */
#include <weft/plugin.h>

typedef struct future_info {
    weft_plugin_info v1;
    uint64_t capabilities; /* a field a later SDK might add */
} future_info;

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const future_info info = {{sizeof(future_info), WEFT_ABI_VERSION, "future_info", "1.0.0", WEFT_SDK_VERSION_STRING},
                                     1};
    return &info.v1;
}

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    return WEFT_OK;
}
