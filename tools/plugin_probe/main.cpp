// weft-plugin-probe: the process `weft plugin check --isolate` loads each
// plugin in, so a plugin that crashes or ends the process is reported rather
// than fatal. Installed next to `weft`; not meant to be run by hand.
#include "weft/check/check.hpp"

// A plugin that crashes must kill this process by its signal, which the parent
// reports ("crashed with signal 11"). In sanitizer builds AddressSanitizer would
// catch the signal and exit with status 1 instead; it reads these defaults at
// start-up (ASAN_OPTIONS still overrides them). Unused in other builds.
extern "C" const char *__asan_default_options();
extern "C" const char *__asan_default_options() {
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";
}

int main(int argc, char **argv) { return weft::plugin_probe_main(argc, argv); }
