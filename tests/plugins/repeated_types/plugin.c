/* Registers three builtins typed "float32", then one whose type is "float32"
 * followed by a byte that is not UTF-8. The host remembers the type names it
 * has checked in an init: one that only starts like a remembered name must
 * still be checked, and refused. */
#include <weft/plugin.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "repeated_types", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    static const char *const names[] = {"_rt_a", "_rt_b", "_rt_c", "_rt_bad"};
    static const char *const natives[] = {"rt::a", "rt::b", "rt::c", "rt::bad"};
    for (int i = 0; i < 4; ++i) {
        weft_param_desc x = WEFT_INIT_PARAM_DESC;
        x.name = "x";
        x.type = i < 3 ? "float32" : "float32\xC0";
        weft_builtin_desc b = WEFT_INIT_BUILTIN_DESC;
        b.name = names[i];
        b.params = &x;
        b.param_count = 1;
        b.result_type = "float32";
        b.native_name = natives[i];
        weft_status s = api->register_builtin(api->ctx, &b);
        if (s != WEFT_OK) return s;
    }
    return WEFT_OK;
}
