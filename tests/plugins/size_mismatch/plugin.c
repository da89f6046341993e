/* A builtin whose native function takes three doubles where the kernel type
 * is vec3 (three float32): the descriptor states the C++ size, and the host
 * rejects the builtin naming it and the parameter. (The C++ layer rejects the
 * same mistake at compile time: WEFT_KERNEL_TYPE(acme::double3, "vec3").) */
#include <weft/plugin.h>

typedef struct double3 { double x, y, z; } double3;

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "size_mismatch", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    weft_param_desc params[2] = {WEFT_INIT_PARAM_DESC, WEFT_INIT_PARAM_DESC};
    params[0].name = "scale";
    params[0].type = "float32";
    params[0].cpp_size = sizeof(float);
    params[1].name = "v";
    params[1].type = "vec3";
    params[1].cpp_size = sizeof(double3);
    weft_builtin_desc desc = WEFT_INIT_BUILTIN_DESC;
    desc.name = "_sm_scaled";
    desc.params = params;
    desc.param_count = 2;
    desc.result_type = "float32";
    desc.result_cpp_size = sizeof(float);
    desc.native_name = "acme::scaled";
    return api->register_builtin(api->ctx, &desc);
}
