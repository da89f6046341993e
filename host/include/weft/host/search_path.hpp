// Where a host looks for plugins when nobody says: a per-user directory and
// the installation's own, as GStreamer does. Host appends these after
// HostOptions::search_path and WEFT_PLUGIN_PATH when HostOptions::use_environment
// is set, so an installed `weft plugin list` finds the installed plugins.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

/// The directories of a ':'-separated list (WEFT_PLUGIN_PATH's form); empty items are skipped.
std::vector<std::filesystem::path> split_path_list(std::string_view list);

/// $XDG_DATA_HOME/weft/plugins, else $HOME/.local/share/weft/plugins; empty
/// when neither variable is set (or XDG_DATA_HOME is not absolute and HOME is unset).
std::filesystem::path user_plugin_dir();

/// The installation's plugin directory, `<prefix>/lib/weft/plugins`, found from
/// the file weft's code was loaded from, so a relocated installation still
/// finds its plugins: from a shared library (libweft.so in `<prefix>/lib`) it
/// is relative to the library's directory, whichever executable loaded it;
/// from an executable weft is linked into (the `weft` tool in `<prefix>/bin`),
/// relative to the executable's. Both relative paths are fixed when weft is
/// configured (GNUInstallDirs' BINDIR and LIBDIR). Empty when the location is unknown.
std::filesystem::path system_plugin_dir();

/// What the build (or an installation) prebuilt for compiles: the runtime
/// headers and their precompiled header (pipeline::prebuild_runtime_pch),
/// <libdir>/weft/prebuilt relative to the file weft's code runs from, as
/// system_plugin_dir(). In a build tree, build/lib/weft/prebuilt.
std::filesystem::path installed_prebuilt_dir();

/// The defaults a host appends to its search path: user_plugin_dir(), then
/// system_plugin_dir() (each only when known). WEFT_PLUGIN_SYSTEM_PATH, when set,
/// replaces both with its ':'-separated directories (empty: no defaults).
std::vector<std::filesystem::path> default_plugin_search_path();

/// For an error about a plugin that is not found: "searched:" and each
/// directory on its own line, in order, those that do not exist marked, so a
/// user sees at once whether the directory they expected was looked at.
std::string searched_directories(const std::vector<std::filesystem::path> &search_path);

} // namespace weft
