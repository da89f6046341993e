/* Keeps the host function table and its context past init and calls back
 * through them from its library destructor, after the host that loaded it is
 * gone: the host must refuse the calls, not touch a dead frame. What the calls
 * returned goes to the file named by WEFT_TEST_LATE_CALLER_OUT. */
#include <weft/plugin.h>
#include <stdio.h>
#include <stdlib.h>
static const weft_host_api *saved_api;
static weft_host_context *saved_ctx;
WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "late_caller", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
static weft_status register_one(const char *name) {
    weft_param_desc x = WEFT_INIT_PARAM_DESC;
    x.name = "x";
    x.type = "float32";
    weft_builtin_desc b = WEFT_INIT_BUILTIN_DESC;
    b.name = name;
    b.params = &x;
    b.param_count = 1;
    b.result_type = "float32";
    b.native_name = "lc::f";
    return saved_api->register_builtin(saved_ctx, &b);
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    saved_api = api;
    saved_ctx = api->ctx;
    return register_one("_lc_early");
}
__attribute__((destructor)) static void call_again(void) {
    const char *out = getenv("WEFT_TEST_LATE_CALLER_OUT");
    if (!saved_api || !out) return;
    saved_api->log(saved_ctx, WEFT_LOG_ERROR, "late");
    saved_api->report_error(saved_ctx, "late");
    const weft_status s = register_one("_lc_late");
    FILE *f = fopen(out, "w");
    if (!f) return;
    fprintf(f, "%d %s", (int)s, saved_api->last_error(saved_ctx));
    fclose(f);
}
