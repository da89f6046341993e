/* A C plugin whose registrations all succeed before init itself fails. */
#include <weft/plugin.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "init_error", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    weft_param_desc x = WEFT_INIT_PARAM_DESC;
    x.name = "x";
    x.type = "float32";
    for (int i = 0; i < 3; ++i) {
        static const char *names[] = {"_ie_a", "_ie_b", "_ie_c"};
        static const char *natives[] = {"init_error::a", "init_error::b", "init_error::c"};
        weft_builtin_desc b = WEFT_INIT_BUILTIN_DESC;
        b.name = names[i];
        b.params = &x;
        b.param_count = 1;
        b.result_type = "float32";
        b.native_name = natives[i];
        if (api->register_builtin(api->ctx, &b) != WEFT_OK) return WEFT_ERROR_INTERNAL;
    }
    api->report_error(api->ctx, "license file not found");
    return WEFT_ERROR_PLUGIN;
}
