#include "weft/manifest/manifest.hpp"

#include "weft/support/error.hpp"

#include <toml++/toml.h>

#include <fstream>
#include <set>
#include <sstream>

namespace weft {

namespace {

class Reader {
public:
    explicit Reader(const std::filesystem::path &path) : file_(path.string()) {}

    [[noreturn]] void fail(const toml::source_region &at, const std::string &message) const {
        throw UserError(where(at) + ": " + message);
    }
    std::string where(const toml::source_region &at) const {
        return file_ + ":" + std::to_string(at.begin.line) + ":" + std::to_string(at.begin.column);
    }
    std::string where_file() const { return file_ + ":1:1"; }

    const toml::node &required(const toml::table &t, std::string_view key) const {
        const toml::node *n = t.get(key);
        if (!n) throw UserError(where_file() + ": missing required key '" + std::string(key) + "'");
        return *n;
    }

    std::string string(const toml::node &n, std::string_view key) const {
        if (!n.is_string()) fail(n.source(), "'" + std::string(key) + "' must be a string");
        return std::string(*n.value<std::string_view>());
    }

    std::vector<std::string> strings(const toml::node &n, std::string_view key) const {
        if (n.is_string()) return {string(n, key)};
        const toml::array *a = n.as_array();
        if (!a) fail(n.source(), "'" + std::string(key) + "' must be a string or an array of strings");
        std::vector<std::string> out;
        for (const toml::node &item : *a) out.push_back(string(item, key));
        return out;
    }

private:
    std::string file_;
};

} // namespace

PluginManifest parse_manifest(std::string_view text, const std::filesystem::path &path) {
    Reader r(path);
    toml::table doc;
    try {
        doc = toml::parse(text, std::string_view(path.string()));
    } catch (const toml::parse_error &e) {
        r.fail(e.source(), std::string(e.description()));
    }

    PluginManifest m;
    m.path = path;

    static const std::set<std::string, std::less<>> known{"name",     "version",  "abi",     "library",
                                                          "description", "prefixes", "requires"};
    for (const auto &[key, node] : doc)
        if (!known.count(key.str()))
            m.warnings.push_back(r.where(key.source()) + ": unknown key '" + std::string(key.str()) + "' ignored");

    const toml::node &name = r.required(doc, "name");
    m.name = r.string(name, "name");
    if (!is_identifier(m.name)) r.fail(name.source(), "plugin name '" + m.name + "' is not a valid identifier");

    const toml::node &version = r.required(doc, "version");
    const std::string version_text = r.string(version, "version");
    auto v = Version::parse(version_text);
    if (!v) r.fail(version.source(), "version '" + version_text + "' is not a semantic version (MAJOR.MINOR.PATCH)");
    m.version = *v;

    const toml::node &abi = r.required(doc, "abi");
    auto abi_value = abi.value<std::int64_t>();
    if (!abi.is_integer() || !abi_value || *abi_value < 1)
        r.fail(abi.source(), "'abi' must be a positive integer");
    m.abi = static_cast<unsigned>(*abi_value);

    const toml::node &library = r.required(doc, "library");
    m.library = r.string(library, "library");
    if (m.library.empty()) r.fail(library.source(), "'library' is empty");
    std::filesystem::path lib(m.library);
    m.library_path = lib.is_absolute() ? lib : path.parent_path() / lib;

    if (const toml::node *d = doc.get("description")) m.description = r.string(*d, "description");

    if (const toml::node *p = doc.get("prefixes")) {
        const toml::table *t = p->as_table();
        if (!t) r.fail(p->source(), "'prefixes' must be a table with 'builtins' and 'native'");
        for (const auto &[key, node] : *t) {
            if (key == "builtins")
                m.prefixes.builtin_prefixes = r.strings(node, "prefixes.builtins");
            else if (key == "native")
                m.prefixes.native_prefixes = r.strings(node, "prefixes.native");
            else
                m.warnings.push_back(r.where(key.source()) + ": unknown key 'prefixes." + std::string(key.str()) +
                                     "' ignored");
        }
        for (const std::string &prefix : m.prefixes.builtin_prefixes)
            if (prefix.empty()) r.fail(p->source(), "an empty builtin prefix would own every name");
        for (const std::string &prefix : m.prefixes.native_prefixes)
            if (prefix.empty() || prefix == "::") r.fail(p->source(), "a native prefix must name a namespace");
    }

    if (const toml::node *req = doc.get("requires")) {
        const toml::table *t = req->as_table();
        if (!t) r.fail(req->source(), "'requires' must be a table of plugin = \"version constraint\"");
        for (const auto &[key, node] : *t) {
            const std::string dep(key.str());
            if (!is_identifier(dep)) r.fail(key.source(), "required plugin name '" + dep + "' is not a valid identifier");
            if (dep == m.name) r.fail(key.source(), "plugin '" + m.name + "' requires itself");
            const std::string constraint = r.string(node, "requires." + dep);
            try {
                m.requires_.push_back({dep, VersionConstraint::parse(constraint)});
            } catch (const UserError &e) {
                r.fail(node.source(), "requires." + dep + ": " + e.what());
            }
        }
    }
    return m;
}

PluginManifest read_manifest(const std::filesystem::path &path) {
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(path, ec).lexically_normal();
    std::ifstream in(absolute, std::ios::binary);
    if (!in) throw UserError(absolute.string() + ": cannot read plugin manifest");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_manifest(text.str(), absolute);
}

} // namespace weft
