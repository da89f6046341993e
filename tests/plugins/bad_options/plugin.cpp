// Loads fine; only resolving its build options for a module fails, which
// `weft plugin check` must report before a user's build does.
#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &r) {
    weft::plugin::BuildOptions o;
    o.cpu_include_dirs = {"include"};
    o.build_dependencies = {r.plugin_directory() + "/missing_header.h"};
    o.cpu_preamble = "#define BAD_OPTIONS 1";
    r.add(o);
}
WEFT_PLUGIN("bad_options", "1.0.0", init)
