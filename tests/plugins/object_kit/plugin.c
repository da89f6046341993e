/* A host object type written against weft/plugin.h alone (no C++ layer): a
 * counter whose value lives in memory from the host's callbacks, with methods
 * that change it, change its id and report how many counters were destroyed.
 * OBJECT_KIT_MODE (environment) makes init register something the host must
 * refuse, whole: "outside" (a name outside the prefixes), "null_create",
 * "bad_type" (an unknown parameter type), "twice" (the same type twice). */
#include <weft/plugin.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int destroyed = 0;

typedef struct Counter {
    int64_t *value; /* device memory: what the id points to */
    void *leak;     /* label "leak": memory destroy does not free */
} Counter;

static weft_status fail(const weft_object_api *api, const char *message) {
    api->set_error(api->ctx, message);
    return WEFT_ERROR_INVALID_ARGUMENT;
}

static weft_status create(const weft_object_api *api, const weft_object_arg *args, uint32_t n, void **object,
                          uint64_t *id) {
    /* args[0] start, args[1] label (optional), args[2] source (optional), args[3] other (optional) */
    if (n != 4 || args[0].kind != WEFT_VALUE_INT) return fail(api, "unexpected arguments");
    if (args[0].int_value < 0) return fail(api, "start: must not be negative");
    Counter *c = (Counter *)api->host_alloc(api->ctx, sizeof(Counter));
    if (!c) return WEFT_ERROR_PLUGIN;
    c->value = (int64_t *)api->device_alloc(api->ctx, sizeof(int64_t));
    if (!c->value) return WEFT_ERROR_PLUGIN; /* the host frees c: nothing was constructed */
    int64_t v = args[0].int_value;
    if (args[2].kind == WEFT_VALUE_ARRAY) { /* add the source's float32 elements, read on the host */
        const weft_array_arg *a = args[2].array;
        if (strcmp(a->dtype, "float32") != 0) return fail(api, "source: not float32");
        for (int64_t i = 0; i < a->shape[0]; ++i) v += (int64_t)((const float *)(uintptr_t)a->data)[i];
    }
    if (args[3].kind == WEFT_VALUE_OBJECT) {
        const Counter *other = (const Counter *)args[3].object; /* ours: the handle is given */
        if (!other) return fail(api, "other: not a kit_counter of this plugin");
        v += *other->value;
    }
    api->copy(api->ctx, c->value, &v, sizeof v, WEFT_COPY_HOST_TO_DEVICE);
    c->leak = NULL;
    /* label "huge": a size no device has (a garbage size): the callback must fail, not wrap */
    if (args[1].kind == WEFT_VALUE_STRING && strcmp(args[1].string_value, "huge") == 0) {
        if (api->device_alloc(api->ctx, UINT64_MAX - 10) != NULL) return fail(api, "huge: allocated");
        if (api->host_alloc(api->ctx, UINT64_MAX - 10) != NULL) return fail(api, "huge: allocated on the host");
        return WEFT_ERROR_PLUGIN; /* the callback's own message stands */
    }
    /* label "fail": refuse after allocating, leaving the cleanup to the host */
    if (args[1].kind == WEFT_VALUE_STRING && strcmp(args[1].string_value, "fail") == 0)
        return fail(api, "label: asked to fail after allocating");
    if (args[1].kind == WEFT_VALUE_STRING && strcmp(args[1].string_value, "leak") == 0)
        c->leak = api->device_alloc(api->ctx, 1000);
    *object = c;
    *id = (uint64_t)(uintptr_t)c->value;
    return WEFT_OK;
}

static void destroy(const weft_object_api *api, void *object) {
    Counter *c = (Counter *)object;
    api->device_free(api->ctx, c->value);
    api->host_free(api->ctx, c);
    ++destroyed;
}

static weft_status add(const weft_object_api *api, void *object, const weft_object_arg *args, uint32_t n, uint64_t *id) {
    (void)id;
    if (n != 1) return fail(api, "unexpected arguments");
    Counter *c = (Counter *)object;
    int64_t v = 0;
    api->copy(api->ctx, &v, c->value, sizeof v, WEFT_COPY_DEVICE_TO_HOST);
    v += args[0].int_value;
    if (v > 1000000) return fail(api, "amount: the counter would pass 1000000");
    api->copy(api->ctx, c->value, &v, sizeof v, WEFT_COPY_HOST_TO_DEVICE);
    return WEFT_OK;
}

/* Moves the value to new memory: the id kernels see changes. */
static weft_status rekey(const weft_object_api *api, void *object, const weft_object_arg *args, uint32_t n, uint64_t *id) {
    (void)args;
    (void)n;
    Counter *c = (Counter *)object;
    int64_t *moved = (int64_t *)api->device_alloc(api->ctx, sizeof(int64_t));
    if (!moved) return WEFT_ERROR_PLUGIN;
    api->copy(api->ctx, moved, c->value, sizeof(int64_t), WEFT_COPY_DEVICE_TO_DEVICE);
    api->device_free(api->ctx, c->value);
    c->value = moved;
    *id = (uint64_t)(uintptr_t)moved;
    return WEFT_OK;
}

/* Writes how many counters this library has destroyed into out[0] (int32). */
static weft_status report(const weft_object_api *api, void *object, const weft_object_arg *args, uint32_t n,
                          uint64_t *id) {
    (void)object;
    (void)id;
    if (n != 1 || args[0].kind != WEFT_VALUE_ARRAY) return fail(api, "unexpected arguments");
    ((int32_t *)(uintptr_t)args[0].array->data)[0] = destroyed;
    return WEFT_OK;
}

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "object_kit", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    weft_register_object_type_fn reg =
        (weft_register_object_type_fn)api->get_proc_address(WEFT_REGISTER_OBJECT_TYPE);
    if (!reg) return WEFT_ERROR_UNSUPPORTED;
    const char *mode = getenv("OBJECT_KIT_MODE");
    if (!mode) mode = "";

    weft_object_param_desc ctor[4] = {WEFT_INIT_OBJECT_PARAM_DESC, WEFT_INIT_OBJECT_PARAM_DESC,
                                      WEFT_INIT_OBJECT_PARAM_DESC, WEFT_INIT_OBJECT_PARAM_DESC};
    ctor[0].name = "start";
    ctor[0].type = strcmp(mode, "bad_type") == 0 ? "quaternion_of_doom" : "int64";
    ctor[1].name = "label";
    ctor[1].type = "string";
    ctor[1].flags = WEFT_OBJECT_PARAM_OPTIONAL;
    ctor[2].name = "source";
    ctor[2].type = "array(float32)";
    ctor[2].flags = WEFT_OBJECT_PARAM_OPTIONAL;
    ctor[3].name = "other";
    ctor[3].type = "object(kit_counter)";
    ctor[3].flags = WEFT_OBJECT_PARAM_OPTIONAL;
    weft_object_param_desc amount = WEFT_INIT_OBJECT_PARAM_DESC;
    amount.name = "amount";
    amount.type = "int64";
    weft_object_param_desc out = WEFT_INIT_OBJECT_PARAM_DESC;
    out.name = "out";
    out.type = "array(int32)";
    weft_object_method_desc methods[3] = {WEFT_INIT_OBJECT_METHOD_DESC, WEFT_INIT_OBJECT_METHOD_DESC,
                                          WEFT_INIT_OBJECT_METHOD_DESC};
    methods[0].name = "add";
    methods[0].params = &amount;
    methods[0].param_count = 1;
    methods[0].call = add;
    methods[1].name = "rekey";
    methods[1].call = rekey;
    methods[2].name = "report";
    methods[2].params = &out;
    methods[2].param_count = 1;
    methods[2].call = report;
    weft_object_type_desc type = WEFT_INIT_OBJECT_TYPE_DESC;
    type.name = strcmp(mode, "outside") == 0 ? "elsewhere" : "kit_counter";
    type.params = ctor;
    type.param_count = 4;
    type.create = strcmp(mode, "null_create") == 0 ? NULL : create;
    type.destroy = destroy;
    type.methods = methods;
    type.method_count = 3;
    type.doc = "A counter in device memory; kernels read it by id.";

    /* A builtin first: a refused object type must take it away too. */
    weft_param_desc id = WEFT_INIT_PARAM_DESC;
    id.name = "id";
    id.type = "uint64";
    weft_builtin_desc value = WEFT_INIT_BUILTIN_DESC;
    value.name = "kit_counter_value";
    value.params = &id;
    value.param_count = 1;
    value.result_type = "int64";
    value.native_name = "kit::counter_value";
    weft_status s = api->register_builtin(api->ctx, &value);
    if (s != WEFT_OK) return s;
    s = reg(api->ctx, &type);
    if (s != WEFT_OK) return s;
    if (strcmp(mode, "twice") == 0 && (s = reg(api->ctx, &type)) != WEFT_OK) return s;

    weft_build_options_desc options = WEFT_INIT_BUILD_OPTIONS_DESC;
    const char *preamble = "namespace kit {\n"
                           "WEFT_CALLABLE inline long long counter_value(unsigned long long id) {\n"
                           "    return *reinterpret_cast<const long long *>(id);\n"
                           "}\n"
                           "}\n";
    options.cpu_preamble = preamble;
    options.cuda_preamble = preamble;
    return api->add_build_options(api->ctx, &options);
}
