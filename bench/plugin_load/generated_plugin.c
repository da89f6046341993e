/* One generated benchmark plugin: BENCH_REGISTRATIONS builtins named
 * _bench_<i>_f<j>(x: float32, n: int32) -> float32, built BENCH_PLUGINS times. */
#include <weft/plugin.h>
#include <stdio.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#define NAME "bench_" STR(BENCH_INDEX)

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
    for (int j = 0; j < BENCH_REGISTRATIONS; ++j) {
        char name[64], native[64];
        snprintf(name, sizeof name, "_" NAME "_f%d", j);
        snprintf(native, sizeof native, NAME "::f%d", j);
        weft_builtin_desc b = WEFT_INIT_BUILTIN_DESC;
        b.name = name; /* a stack buffer: the host copies during the call */
        b.params = params;
        b.param_count = 2;
        b.result_type = "float32";
        b.native_name = native;
        b.doc = "generated";
        weft_status s = api->register_builtin(api->ctx, &b);
        if (s != WEFT_OK) return s;
    }
    return WEFT_OK;
}
