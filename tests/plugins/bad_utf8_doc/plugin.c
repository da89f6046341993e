/* The first builtin is fine; the second's doc string is Latin-1 ("caf\xE9"),
 * so the plugin fails as a whole and the first is rolled back. */
#include <weft/plugin.h>

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "bad_utf8_doc", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    weft_builtin_desc good = WEFT_INIT_BUILTIN_DESC;
    good.name = "_bud_good";
    good.native_name = "bud::good";
    good.doc = "caf\xC3\xA9 (valid UTF-8)";
    if (api->register_builtin(api->ctx, &good) != WEFT_OK) return WEFT_ERROR_INTERNAL;
    weft_builtin_desc bad = WEFT_INIT_BUILTIN_DESC;
    bad.name = "_bud_bad";
    bad.native_name = "bud::bad";
    bad.doc = "caf\xE9";
    return api->register_builtin(api->ctx, &bad);
}
