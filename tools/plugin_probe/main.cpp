// weft-plugin-probe: the process `weft plugin check --isolate` loads each
// plugin in, so a plugin that crashes or ends the process is reported rather
// than fatal. Installed next to `weft`; not meant to be run by hand.
#include "weft/host/check.hpp"

int main(int argc, char **argv) { return weft::plugin_probe_main(argc, argv); }
