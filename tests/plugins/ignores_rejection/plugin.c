#include <weft/plugin.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "ignores_rejection", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    weft_builtin_desc good = WEFT_INIT_BUILTIN_DESC;
    good.name = "_ir_good";
    good.native_name = "ir::good";
    api->register_builtin(api->ctx, &good);
    weft_builtin_desc bad = WEFT_INIT_BUILTIN_DESC;
    bad.name = "_ir_bad";
    bad.native_name = "ir::bad-name";
    (void)api->register_builtin(api->ctx, &bad); /* status ignored on purpose */
    return WEFT_OK;
}
