/* A newer SDK's parameter descriptor with a field set that this host does not
 * know: ignoring it would change what the plugin asked for, so the host rejects
 * the builtin, naming the struct and the first non-zero byte it does not know. */
#include <weft/plugin.h>
#include <string.h>

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "future_fields", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}

typedef struct future_param {
    weft_param_desc v1;
    uint64_t flags; /* a field a later SDK might add */
} future_param;

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    future_param param;
    memset(&param, 0, sizeof param);
    param.v1.struct_size = sizeof(future_param);
    param.v1.name = "x";
    param.v1.type = "float32";
    param.flags = 1;
    weft_builtin_desc desc = WEFT_INIT_BUILTIN_DESC;
    desc.name = "_ff_f";
    desc.params = &param.v1;
    desc.param_count = 1;
    desc.result_type = "float32";
    desc.native_name = "ff::f";
    return api->register_builtin(api->ctx, &desc);
}
