#include "weft/host/search_path.hpp"
#include "weft/support/environment.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <string_view>
#include <system_error>

// Both are compiled in: the same object file goes into executables (the CLI,
// tests) and into libweft.so, and which one applies is known only at run time.
#if !defined(WEFT_PLUGIN_DIR_FROM_BINDIR) || !defined(WEFT_PLUGIN_DIR_FROM_LIBDIR) || \
    !defined(WEFT_PREBUILT_DIR_FROM_BINDIR) || !defined(WEFT_PREBUILT_DIR_FROM_LIBDIR)
#error "WEFT_{PLUGIN,PREBUILT}_DIR_FROM_{BINDIR,LIBDIR} must be defined by the build (host/CMakeLists.txt)"
#endif

namespace weft {

namespace fs = std::filesystem;

namespace {

/// An object of this file, for dladdr to say which loaded file holds this code.
const char anchor = 0;

/// The installed plugins, relative to the file this code was loaded from: a
/// shared library (libweft.so, or any library an application linked weft's
/// static layers into) looks from its own directory, whichever executable
/// loaded it; an executable (the `weft` tool) looks from bin/.
fs::path installed_dir(const char *from_libdir, const char *from_bindir) {
    std::error_code ec;
    Dl_info info{};
    link_map *map = nullptr;
    // The main program's link_map has an empty name; dli_fname would be argv[0] there.
    if (dladdr1(&anchor, &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP) && map && map->l_name &&
        map->l_name[0]) {
        const fs::path library = fs::canonical(map->l_name, ec);
        return ec ? fs::path() : (library.parent_path() / from_libdir).lexically_normal();
    }
    const fs::path exe = fs::canonical("/proc/self/exe", ec);
    return ec ? fs::path() : (exe.parent_path() / from_bindir).lexically_normal();
}

fs::path installed_plugin_dir() { return installed_dir(WEFT_PLUGIN_DIR_FROM_LIBDIR, WEFT_PLUGIN_DIR_FROM_BINDIR); }

} // namespace

std::vector<fs::path> split_path_list(std::string_view list) {
    std::vector<fs::path> out;
    while (!list.empty()) {
        const auto colon = list.find(':');
        const std::string_view dir = list.substr(0, colon);
        if (!dir.empty()) out.emplace_back(std::string(dir));
        if (colon == std::string_view::npos) break;
        list.remove_prefix(colon + 1);
    }
    return out;
}

fs::path user_plugin_dir() {
    // The XDG Base Directory rule: a relative XDG_DATA_HOME is invalid and ignored.
    if (const char *xdg = environment_override("XDG_DATA_HOME"); xdg && xdg[0] == '/') return fs::path(xdg) / "weft" / "plugins";
    if (const char *home = environment_override("HOME"); home && home[0])
        return fs::path(home) / ".local" / "share" / "weft" / "plugins";
    return {};
}

fs::path system_plugin_dir() {
    static const fs::path dir = installed_plugin_dir();
    return dir;
}

fs::path installed_prebuilt_dir() {
    static const fs::path dir = installed_dir(WEFT_PREBUILT_DIR_FROM_LIBDIR, WEFT_PREBUILT_DIR_FROM_BINDIR);
    return dir;
}

std::vector<fs::path> default_plugin_search_path() {
    if (const char *system = environment_override("WEFT_PLUGIN_SYSTEM_PATH")) return split_path_list(system);
    std::vector<fs::path> out;
    if (fs::path user = user_plugin_dir(); !user.empty()) out.push_back(std::move(user));
    if (fs::path system = system_plugin_dir(); !system.empty() && (out.empty() || out.back() != system))
        out.push_back(std::move(system));
    return out;
}

std::string searched_directories(const std::vector<fs::path> &search_path) {
    if (search_path.empty()) return "the search path is empty";
    std::string out = "searched:";
    for (const fs::path &dir : search_path) {
        std::error_code ec;
        const fs::file_status st = fs::status(dir, ec);
        out += "\n  " + dir.string() +
               (fs::is_directory(st) ? "" : fs::exists(st) ? " (not a directory)" : " (no such directory)");
    }
    return out;
}

} // namespace weft
