// Where a host looks for plugins when nobody says: a per-user directory and
// the installation's own, as GStreamer does. Host appends these after
// HostOptions::search_path and WEFT_PLUGIN_PATH when HostOptions::use_environment
// is set, so an installed `weft plugin list` finds the installed plugins.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace weft {

/// The directories of a ':'-separated list (WEFT_PLUGIN_PATH's form); empty items are skipped.
std::vector<std::filesystem::path> split_path_list(std::string_view list);

/// $XDG_DATA_HOME/weft/plugins, else $HOME/.local/share/weft/plugins; empty
/// when neither variable is set (or XDG_DATA_HOME is not absolute and HOME is unset).
std::filesystem::path user_plugin_dir();

/// The installation's plugin directory, `<prefix>/lib/weft/plugins` for a
/// binary in `<prefix>/bin`: found from the location of the executable or shared
/// library libweft is linked into, so a relocated installation still finds its
/// plugins. The relative path from the binary's directory is fixed when weft is
/// configured (GNUInstallDirs' BINDIR and LIBDIR). Empty when the location is unknown.
std::filesystem::path system_plugin_dir();

/// The defaults a host appends to its search path: user_plugin_dir(), then
/// system_plugin_dir() (each only when known). WEFT_PLUGIN_SYSTEM_PATH, when set,
/// replaces both with its ':'-separated directories (empty: no defaults).
std::vector<std::filesystem::path> default_plugin_search_path();

} // namespace weft
