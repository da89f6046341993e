#include "weft/host/host.hpp"
#include "loader_internal.hpp"
#include "weft/manifest/manifest.hpp"
#include "weft/host/search_path.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace weft {

namespace fs = std::filesystem;

namespace {

/// Something named plugin.toml is there, file or not: reading it says what is
/// wrong with it, where skipping it would hide a FIFO or a directory by that name.
bool manifest_entry_exists(const fs::path &p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

} // namespace

fs::path locate_manifest(const fs::path &path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        fs::path candidate = path / "plugin.toml";
        if (manifest_entry_exists(candidate)) return candidate;
        throw UserError(path.string() + ": directory has no plugin.toml");
    }
    if (!fs::exists(path, ec)) {
        const std::string kind = describe_file_kind(path);
        throw UserError(path.string() + ": " +
                        (kind.rfind("nothing", 0) == 0 ? std::string("no such file or directory") : "it is " + kind));
    }
    if (path.extension() == ".toml") return path;
    // A library: its manifest is the plugin.toml beside it.
    fs::path beside = path.parent_path() / "plugin.toml";
    if (manifest_entry_exists(beside)) return beside;
    throw UserError(path.string() + ": no plugin.toml beside this library");
}

PluginManifest read_plugin_manifest(const fs::path &path) {
    // The usual argument is a plugin directory: its plugin.toml is opened
    // straight away instead of after locate_manifest's stat and lstat, two of
    // the few system calls a plugin load makes besides dlopen's
    // (bench/plugin_load). When nothing is there, locate_manifest decides, and
    // reports, as before.
    if (path.filename() != "plugin.toml" && path.extension() != ".toml")
        if (std::optional<PluginManifest> m = read_manifest_if_present(path / "plugin.toml")) return std::move(*m);
    return read_manifest(locate_manifest(path));
}

/// Manifests directly in DIR and one level below, in a stable order.
std::vector<fs::path> manifests_in(const fs::path &dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (manifest_entry_exists(dir / "plugin.toml")) out.push_back(dir / "plugin.toml");
    std::vector<fs::path> subdirs;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && manifest_entry_exists(it->path() / "plugin.toml")) subdirs.push_back(it->path());
    std::sort(subdirs.begin(), subdirs.end());
    for (const fs::path &d : subdirs) out.push_back(d / "plugin.toml");
    return out;
}

Discovery discover_plugins(const std::vector<fs::path> &search_path) {
    Discovery result;
    std::map<std::string, PluginManifest> by_name;
    const std::vector<fs::path> defaults = default_plugin_search_path();
    for (const fs::path &dir : search_path) {
        const bool default_dir = std::find(defaults.begin(), defaults.end(), dir) != defaults.end();
        for (const fs::path &file : manifests_in(dir)) {
            try {
                PluginManifest m = read_manifest(file);
                auto it = by_name.find(m.name);
                if (it != by_name.end()) {
                    (default_dir ? result.notes : result.errors)
                        .push_back(m.path.string() + ": plugin '" + m.name + "' is shadowed by " +
                                   it->second.path.string() + " (earlier on the search path)");
                    continue;
                }
                by_name.emplace(m.name, std::move(m));
            } catch (const UserError &e) {
                result.errors.push_back(e.what());
            } catch (const std::exception &e) {
                // One unreadable manifest must not hide the rest of the search path.
                result.errors.push_back(file.string() + ": cannot read plugin manifest: " + e.what());
            }
        }
    }
    for (auto &[_, m] : by_name) result.plugins.push_back(std::move(m));
    return result;
}

// What to load when a kernel calls an unknown function: the plugins on the
// search path whose builtin prefixes cover it, from their manifests alone.
namespace {
std::string without_warp_prefix(std::string name) {
    for (const char *alias : {"wp.", "warp."})
        if (name.rfind(alias, 0) == 0) return name.substr(std::string_view(alias).size());
    return name;
}

/// The plugins of `found` that `host` has not loaded and whose builtin prefixes `name` starts with.
std::vector<PluginManifest> unloaded_plugins_for(const Host &host, const Discovery &found, const std::string &name) {
    std::vector<PluginManifest> out;
    for (const PluginManifest &m : found.plugins) {
        if (host.plugin(m.name)) continue;
        for (const std::string &prefix : m.prefixes.builtin_prefixes)
            if (!prefix.empty() && name.rfind(prefix, 0) == 0) {
                out.push_back(m);
                break;
            }
    }
    return out;
}
} // namespace

std::vector<PluginManifest> Host::unloaded_plugins_for(std::string_view function) const {
    return weft::unloaded_plugins_for(*this, discover(), without_warp_prefix(std::string(function)));
}

std::vector<kernel::Diagnostic> plugin_notes(const Host &host, const std::vector<kernel::Diagnostic> &diagnostics) {
    std::vector<kernel::Diagnostic> notes;
    std::set<std::string> named;
    std::optional<Discovery> found;
    for (const kernel::Diagnostic &d : diagnostics) {
        static constexpr std::string_view unknown = "unknown function '";
        if (d.severity != kernel::Diagnostic::Severity::Error || d.message.rfind(unknown, 0) != 0) continue;
        const std::string name =
            without_warp_prefix(d.message.substr(unknown.size(), d.message.find('\'', unknown.size()) - unknown.size()));
        if (!named.insert(name).second) continue;
        if (!found) found = host.discover(); // once, and only when a function is unknown
        for (const PluginManifest &m : unloaded_plugins_for(host, *found, name)) {
            std::string prefix;
            for (const std::string &p : m.prefixes.builtin_prefixes)
                if (p.size() > prefix.size() && name.rfind(p, 0) == 0) prefix = p;
            kernel::Diagnostic note;
            note.severity = kernel::Diagnostic::Severity::Note;
            note.location = d.location;
            note.message = "'" + name + "' has the prefix '" + prefix + "' of plugin '" + m.name + "' (" +
                           m.path.string() + "), which this host has not loaded: load it first (Host::load_by_name(\"" +
                           m.name + "\"), or --plugin " + m.name + ")";
            notes.push_back(std::move(note));
        }
    }
    return notes;
}

} // namespace weft
