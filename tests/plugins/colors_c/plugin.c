#include <weft/plugin.h>
#include <stddef.h>
#include <stdio.h>

/* Must match the struct in weft_colors.h, which kernels include. */
typedef struct Color { float r, g, b; } Color;

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "colors_c", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}

WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    weft_field_desc fields[3] = {WEFT_INIT_FIELD_DESC, WEFT_INIT_FIELD_DESC, WEFT_INIT_FIELD_DESC};
    const char *names[3] = {"r", "g", "b"};
    fields[0].offset = offsetof(Color, r);
    fields[1].offset = offsetof(Color, g);
    fields[2].offset = offsetof(Color, b);
    weft_exposed_field_desc exposed[3] = {WEFT_INIT_EXPOSED_FIELD_DESC, WEFT_INIT_EXPOSED_FIELD_DESC,
                                          WEFT_INIT_EXPOSED_FIELD_DESC};
    for (int i = 0; i < 3; ++i) {
        fields[i].name = names[i];
        fields[i].size = sizeof(float);
        exposed[i].name = names[i];
        exposed[i].type = "float32";
    }
    weft_native_type_desc color = WEFT_INIT_NATIVE_TYPE_DESC;
    color.native_name = "colors::Color";
    color.size = sizeof(Color);
    color.alignment = _Alignof(Color);
    color.fields = fields;
    color.field_count = 3;
    color.exposed = exposed;
    color.exposed_count = 3;
    color.initializer = WEFT_INITIALIZER_AGGREGATE;
    color.doc = "Linear RGB color, three float32 channels.";
    weft_status s = api->register_native_type(api->ctx, &color);
    if (s != WEFT_OK) return s;

    weft_param_desc params[2] = {WEFT_INIT_PARAM_DESC, WEFT_INIT_PARAM_DESC};
    params[0].name = "value";
    params[0].type = "colors::Color";
    params[1].name = "factor";
    params[1].type = "float32";
    weft_builtin_desc scale = WEFT_INIT_BUILTIN_DESC;
    scale.name = "colors_scale";
    scale.params = params;
    scale.param_count = 2;
    scale.result_type = "colors::Color";
    scale.native_name = "colors::scale";
    scale.doc = "Scales every channel.";
    s = api->register_builtin(api->ctx, &scale);
    if (s != WEFT_OK) return s;

    char include[4096];
    if (snprintf(include, sizeof include, "%s/include", api->plugin_directory) >= (int)sizeof include) {
        api->report_error(api->ctx, "plugin directory path too long");
        return WEFT_ERROR_PLUGIN;
    }
    const char *dirs[1] = {include};
    weft_build_options_desc options = WEFT_INIT_BUILD_OPTIONS_DESC;
    options.cpu_include_dirs.items = dirs;
    options.cpu_include_dirs.count = 1;
    options.cuda_include_dirs.items = dirs;
    options.cuda_include_dirs.count = 1;
    options.cpu_preamble = "#include \"weft_colors.h\"\n";
    options.cuda_preamble = "#include \"weft_colors.h\"\n";
    return api->add_build_options(api->ctx, &options);
}
