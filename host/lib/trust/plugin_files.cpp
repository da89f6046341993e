#include "weft/trust/plugin_files.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/support/sha256.hpp"
#include "weft/support/text.hpp"

#include <algorithm>
#include <map>

namespace weft::trust {

namespace fs = std::filesystem;

std::vector<PluginFile> scan_plugin_files(const fs::path &directory, const std::vector<fs::path> &excluded) {
    std::vector<fs::path> skip;
    for (const fs::path &p : excluded) skip.push_back(p.lexically_normal());
    std::vector<PluginFile> files;
    std::uintmax_t total = 0;
    std::error_code ec;
    // No directory links are followed: a link is refused below, before it could be.
    fs::recursive_directory_iterator it(directory, fs::directory_options::none, ec), end;
    if (ec) throw UserError(directory.string() + ": cannot list the plugin's directory: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec) throw UserError(directory.string() + ": cannot list the plugin's directory: " + ec.message());
        const fs::path path = it->path().lexically_normal();
        const std::string relative = path.lexically_relative(directory.lexically_normal()).generic_string();
        if (std::any_of(relative.begin(), relative.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
            throw UserError(escape_for_display(path.string()) +
                            ": a file name with a control character cannot be covered by a plugin's signature");
        const fs::file_status status = it->symlink_status(ec);
        if (ec) throw UserError(path.string() + ": " + ec.message());
        if (fs::is_directory(status)) continue;
        if (std::find(skip.begin(), skip.end(), path) != skip.end()) continue;
        if (fs::is_symlink(status))
            throw UserError(path.string() +
                            ": a symbolic link in a plugin's directory (a trust policy covers regular files only; "
                            "copy the file it points to, or move it out of the plugin's directory)");
        if (!fs::is_regular_file(status))
            throw UserError(path.string() + ": " + describe_file_kind(path) + " in a plugin's directory (a trust policy "
                            "covers regular files only)");
        if (files.size() == max_plugin_files)
            throw UserError(directory.string() + ": more than " + std::to_string(max_plugin_files) +
                            " files in a plugin's directory (is it a build tree?)");
        const std::string content = read_input_file(path, max_plugin_file_bytes - total, "plugin file");
        total += content.size();
        files.push_back({relative, sha256_hex(content)});
    }
    std::sort(files.begin(), files.end(), [](const PluginFile &a, const PluginFile &b) { return a.path < b.path; });
    return files;
}

FileDifference compare_plugin_files(const fs::path &directory, const std::vector<PluginFile> &verified,
                                    const std::vector<PluginFile> &now, const std::string &verified_as) {
    std::map<std::string, std::string> before, after;
    for (const PluginFile &f : verified) before.emplace(f.path, f.sha256);
    for (const PluginFile &f : now) after.emplace(f.path, f.sha256);
    for (const auto &[path, sha] : after) {
        const auto was = before.find(path);
        if (was == before.end())
            return {"the file " + escape_for_display(path) + " is not covered by " + verified_as + " (added since)",
                    directory / path};
        if (was->second != sha)
            return {"the file " + escape_for_display(path) + " does not match " + verified_as + " (sha256 " + sha +
                        ", expected " + was->second + ")",
                    directory / path};
    }
    for (const auto &[path, sha] : before)
        if (!after.count(path))
            return {"the file " + escape_for_display(path) + " covered by " + verified_as + " is missing",
                    directory / path};
    return {};
}

FileDifference VerifiedDirectory::changes() const {
    return compare_plugin_files(directory, files, scan_plugin_files(directory, excluded),
                                "what trust policy '" + policy + "' verified when plugin '" + plugin + "' was loaded");
}

} // namespace weft::trust
