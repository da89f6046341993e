/* One generated benchmark plugin: WEFT_BENCH_REGISTRATIONS builtins named
 * _bench_<i>_f<j>(x: float32, n: int32) -> float32, built BENCH_PLUGINS times.
 *
 * The names are string literals in static tables, as a real plugin's are.
 * Formatting them with snprintf in init was a tenth of what the bench
 * charged to loading, and it is the plugin's own work, not the host's. */
#include <weft/plugin.h>

#include "bench_registrations.h" /* BENCH_EACH(X): X(0) X(1) ... X(WEFT_BENCH_REGISTRATIONS - 1) */

#define STR2(x) #x
#define STR(x) STR2(x)
#define NAME "bench_" STR(BENCH_INDEX)

#define BUILTIN_NAME(j) "_" NAME "_f" #j,
#define NATIVE_NAME(j) NAME "::f" #j,
static const char *const builtin_names[] = {BENCH_EACH(BUILTIN_NAME)};
static const char *const native_names[] = {BENCH_EACH(NATIVE_NAME)};

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, NAME, "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    weft_param_desc params[2] = {WEFT_INIT_PARAM_DESC, WEFT_INIT_PARAM_DESC};
    params[0].name = "x";
    params[0].type = "float32";
    params[1].name = "n";
    params[1].type = "int32";
    for (unsigned j = 0; j < sizeof builtin_names / sizeof builtin_names[0]; ++j) {
        weft_builtin_desc b = WEFT_INIT_BUILTIN_DESC;
        b.name = builtin_names[j];
        b.params = params;
        b.param_count = 2;
        b.result_type = "float32";
        b.native_name = native_names[j];
        b.doc = "generated";
        weft_status s = api->register_builtin(api->ctx, &b);
        if (s != WEFT_OK) return s;
    }
    return WEFT_OK;
}
