/* Registers a builtin whose parameter type is "array(" nested 30,000 deep: the
 * host must refuse it with a message, not recurse until the stack runs out. */
#include <weft/plugin.h>
#include <stdlib.h>
#include <string.h>
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "deep_type", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    enum { depth = 30000 };
    static const char open[] = "array(";
    char *type = malloc(depth * (sizeof open - 1) + sizeof "float32" + depth);
    if (!type) return WEFT_ERROR_PLUGIN;
    char *p = type;
    for (int i = 0; i < depth; ++i, p += sizeof open - 1) memcpy(p, open, sizeof open - 1);
    memcpy(p, "float32", 7);
    p += 7;
    memset(p, ')', depth);
    p[depth] = '\0';
    weft_param_desc x = WEFT_INIT_PARAM_DESC;
    x.name = "x";
    x.type = type;
    weft_builtin_desc b = WEFT_INIT_BUILTIN_DESC;
    b.name = "_dt_deep";
    b.params = &x;
    b.param_count = 1;
    b.native_name = "dt::deep";
    weft_status s = api->register_builtin(api->ctx, &b);
    free(type);
    return s;
}
