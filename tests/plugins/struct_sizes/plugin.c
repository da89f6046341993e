/* Descriptors as an older and a newer SDK would fill them: the host reads
 * only what struct_size covers and zero-fills the rest; a newer SDK's fields
 * the host does not know are left zero (their defaults), so they are accepted.
 * tests/plugins/future_fields sets one and is rejected. */
#include <weft/plugin.h>
#include <stddef.h>
#include <string.h>

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "struct_sizes", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}

/* A newer SDK's parameter descriptor: two more fields at the end. */
typedef struct future_param {
    weft_param_desc v1;
    const char *default_value;
    uint64_t flags;
} future_param;

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    /* Old: ends before `doc`, so the host must not read the garbage there. */
    weft_builtin_desc old_desc;
    memset(&old_desc, 0x7f, sizeof old_desc);
    old_desc.struct_size = (uint32_t)offsetof(weft_builtin_desc, doc);
    old_desc.name = "_ss_old";
    old_desc.params = NULL;
    old_desc.param_count = 0;
    old_desc.result_type = "int32";
    old_desc.native_name = "ss::old_fn";
    if (api->register_builtin(api->ctx, &old_desc) != WEFT_OK) return WEFT_ERROR_INTERNAL;

    /* New: a longer builtin descriptor and a params array with a larger stride. */
    future_param params[2];
    memset(params, 0, sizeof params);
    params[0].v1.struct_size = sizeof(future_param);
    params[0].v1.name = "a";
    params[0].v1.type = "float32";
    params[1].v1.struct_size = sizeof(future_param);
    params[1].v1.name = "b";
    params[1].v1.type = "vec3";
    struct {
        weft_builtin_desc v1;
        const char *future_field;
    } new_desc;
    memset(&new_desc, 0, sizeof new_desc);
    new_desc.v1.struct_size = sizeof new_desc;
    new_desc.v1.name = "_ss_new";
    new_desc.v1.params = &params[0].v1;
    new_desc.v1.param_count = 2;
    new_desc.v1.result_type = "vec3";
    new_desc.v1.native_name = "ss::new_fn";
    new_desc.v1.doc = "from a newer SDK";
    new_desc.future_field = NULL; /* the newer field's default: a v1 host may ignore it */
    if (api->register_builtin(api->ctx, &new_desc.v1) != WEFT_OK) return WEFT_ERROR_INTERNAL;

    /* get_proc_address reaches the same functions by name. */
    typedef weft_status (*register_fn)(weft_host_context *, const weft_builtin_desc *);
    register_fn reg = (register_fn)api->get_proc_address("weft_register_builtin");
    if (!reg || api->get_proc_address("weft_no_such_function") != NULL) return WEFT_ERROR_INTERNAL;
    weft_builtin_desc by_name = WEFT_INIT_BUILTIN_DESC;
    by_name.name = "_ss_by_name";
    by_name.native_name = "ss::by_name";
    return reg(api->ctx, &by_name);
}
