// Its headers live in a sibling of its directory: a file there is outside
// what a signature or an allow-listed digest covers, so a trust policy refuses
// the plugin rather than compile it.
#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &r) {
    weft::plugin::BuildOptions o;
    o.cpu_include_dirs = {r.plugin_directory() + "/../shared_include"};
    r.add(o);
}
WEFT_PLUGIN("outside_include", "1.0.0", init)
