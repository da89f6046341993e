#include "weft/host/search_path.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string_view>
#include <system_error>

#ifndef WEFT_PLUGIN_DIR_FROM_BINDIR
#error "WEFT_PLUGIN_DIR_FROM_BINDIR must be defined by the build (host/CMakeLists.txt)"
#endif

namespace weft {

namespace fs = std::filesystem;

namespace {


/// The file this code was linked into: dladdr names a shared library by its
/// path, but the main program only by argv[0], which may be relative or a bare
/// name found through PATH; /proc/self/exe is exact for it.
fs::path own_binary() {
    std::error_code ec;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&system_plugin_dir), &info) && info.dli_fname && info.dli_fname[0] == '/') {
        fs::path p = fs::canonical(info.dli_fname, ec);
        if (!ec) return p;
    }
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe;
}

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
    if (const char *xdg = std::getenv("XDG_DATA_HOME"); xdg && xdg[0] == '/') return fs::path(xdg) / "weft" / "plugins";
    if (const char *home = std::getenv("HOME"); home && home[0])
        return fs::path(home) / ".local" / "share" / "weft" / "plugins";
    return {};
}

fs::path system_plugin_dir() {
    static const fs::path dir = [] {
        const fs::path binary = own_binary();
        if (binary.empty()) return fs::path();
        return (binary.parent_path() / WEFT_PLUGIN_DIR_FROM_BINDIR).lexically_normal();
    }();
    return dir;
}

std::vector<fs::path> default_plugin_search_path() {
    if (const char *system = std::getenv("WEFT_PLUGIN_SYSTEM_PATH")) return split_path_list(system);
    std::vector<fs::path> out;
    if (fs::path user = user_plugin_dir(); !user.empty()) out.push_back(std::move(user));
    if (fs::path system = system_plugin_dir(); !system.empty() && (out.empty() || out.back() != system))
        out.push_back(std::move(system));
    return out;
}

} // namespace weft
