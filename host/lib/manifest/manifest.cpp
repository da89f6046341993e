#include "weft/manifest/manifest.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"

#include <toml++/toml.h>

#include <cctype>
#include <limits>
#include <set>

namespace weft {

namespace {

// Real manifests are a few hundred bytes with keys two or three levels deep.
constexpr std::uintmax_t max_manifest_bytes = 1 << 20;
constexpr std::size_t max_manifest_key_depth = 32;
constexpr std::size_t max_manifest_nesting = 32;

class Reader {
public:
    explicit Reader(const std::filesystem::path &path) : path_(path) {}

    [[noreturn]] void fail(const toml::source_region &at, const std::string &message) const {
        throw UserError(where(at) + ": " + message);
    }
    std::string where(const toml::source_region &at) const {
        return path_.string() + ":" + std::to_string(at.begin.line) + ":" + std::to_string(at.begin.column);
    }
    std::string where_file() const { return path_.string() + ":1:1"; }

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
    const std::filesystem::path &path_; // named only in errors and warnings
};

/// toml++ recurses once per dotted-key segment and per nested bracket; a
/// hostile manifest (`a.a.a...` 50,000 deep) overflows the stack inside it. This
/// scan bounds both before the parser sees the text. It skips strings and
/// comments and counts dots only in runs of key characters, so floats, dates
/// and dotted text in strings do not count.
void check_manifest_bounds(std::string_view text, const std::filesystem::path &path) {
    if (text.size() > max_manifest_bytes)
        throw UserError(path.string() + ": plugin manifest is " + std::to_string(text.size()) +
                        " bytes, more than the limit of " + std::to_string(max_manifest_bytes));
    std::uint32_t line = 1, column = 1;
    std::size_t dots = 0, depth = 0;
    auto too_deep = [&](const char *what, std::size_t limit) {
        throw UserError(path.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what +
                        " nested more than " + std::to_string(limit) + " levels deep");
    };
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            // Strings do not nest; their contents (and newlines in multi-line
            // ones) only move the position.
            const bool multi = text.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
            const std::string_view close = multi ? text.substr(i, 3) : text.substr(i, 1);
            i += close.size();
            column += static_cast<std::uint32_t>(close.size());
            while (i < text.size() && text.substr(i, close.size()) != close) {
                if (c == '"' && text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
                    i += 2;
                    column += 2;
                    continue;
                }
                if (text[i] == '\n') {
                    if (!multi) break;
                    ++line;
                    column = 0;
                }
                ++i;
                ++column;
            }
            // Unterminated: the parser reports it; the newline is scanned as one.
            if (i < text.size() && text[i] == '\n') continue;
            i += close.size();
            column += static_cast<std::uint32_t>(close.size());
            continue;
        }
        if (c == '#') {
            while (i < text.size() && text[i] != '\n') ++i;
            continue;
        }
        if (c == '.') {
            if (++dots > max_manifest_key_depth) too_deep("dotted key", max_manifest_key_depth);
        } else if (c == '[' || c == '{') {
            dots = 0;
            if (++depth > max_manifest_nesting) too_deep("brackets", max_manifest_nesting);
        } else if (c == ']' || c == '}') {
            dots = 0;
            if (depth > 0) --depth;
        } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ' || c == '\t')) {
            dots = 0;
        }
        if (c == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
        ++i;
    }
}

/// True when `p` is absolute and lexically_normal() would return it as it is:
/// no empty, "." or ".." component and no trailing separator. Conservative:
/// false only costs the full normalization.
bool is_absolute_normal(const std::filesystem::path &p) {
    const std::string &s = p.native();
    if (s.size() < 2 || s.front() != '/' || s.back() == '/') return false;
    for (std::size_t start = 1; start <= s.size();) {
        std::size_t end = s.find('/', start);
        if (end == std::string::npos) end = s.size();
        const std::string_view part(s.data() + start, end - start);
        if (part.empty() || part == "." || part == "..") return false;
        start = end + 1;
    }
    return true;
}

/// std::filesystem::absolute(path).lexically_normal(), without splitting a
/// path that is already both (the usual plugin directory) into components.
std::filesystem::path absolute_normal(const std::filesystem::path &path) {
    if (is_absolute_normal(path)) return path;
    std::error_code ec;
    return std::filesystem::absolute(path, ec).lexically_normal();
}

} // namespace

PluginManifest parse_manifest(std::string_view text, const std::filesystem::path &path) {
    Reader r(path);
    check_manifest_bounds(text, path);
    toml::table doc;
    try {
        // No source path for toml++: messages name the file through Reader,
        // and a path would be one more allocation per manifest, shared by
        // every node it parses.
        doc = toml::parse(text);
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
    if (m.name == host_requirement_name)
        r.fail(name.source(), "plugin name 'weft' is reserved: [requires] weft names the host");

    const toml::node &version = r.required(doc, "version");
    const std::string version_text = r.string(version, "version");
    auto v = Version::parse(version_text);
    if (!v) r.fail(version.source(), "version '" + version_text + "' is not a semantic version (MAJOR.MINOR.PATCH)");
    m.version = *v;

    const toml::node &abi = r.required(doc, "abi");
    auto abi_value = abi.value<std::int64_t>();
    if (!abi.is_integer() || !abi_value || *abi_value < 1)
        r.fail(abi.source(), "'abi' must be a positive integer");
    // The library's info record holds the ABI in 32 bits: a larger value would
    // compare equal to its truncation there.
    if (*abi_value > std::int64_t{std::numeric_limits<std::uint32_t>::max()})
        r.fail(abi.source(), "'abi' = " + std::to_string(*abi_value) + " is out of range (1 to " +
                                 std::to_string(std::numeric_limits<std::uint32_t>::max()) + ")");
    m.abi = static_cast<unsigned>(*abi_value);

    const toml::node &library = r.required(doc, "library");
    m.library = r.string(library, "library");
    if (m.library.empty()) r.fail(library.source(), "'library' is empty");
    if (m.library.front() == '/') {
        m.library_path = m.library;
    } else if (is_absolute_normal(path)) {
        // The directory is the text up to the last separator: parent_path()
        // and operator/ split the path into components twice more, a tenth
        // of reading a manifest (bench/plugin_load).
        const std::string &file = path.native();
        m.library_path = file.substr(0, file.rfind('/') + 1) + m.library;
    } else {
        m.library_path = path.parent_path() / m.library;
    }

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
                if (dep == host_requirement_name)
                    m.requires_host = VersionConstraint::parse(constraint); // the host, not a plugin
                else
                    m.requires_.push_back({dep, VersionConstraint::parse(constraint)});
            } catch (const UserError &e) {
                r.fail(node.source(), "requires." + dep + ": " + e.what());
            }
        }
    }
    return m;
}

PluginManifest read_manifest(const std::filesystem::path &path) {
    const std::filesystem::path absolute = absolute_normal(path);
    return parse_manifest(read_input_file(absolute, max_manifest_bytes, "plugin manifest"), absolute);
}

std::optional<PluginManifest> read_manifest_if_present(const std::filesystem::path &path) {
    const std::filesystem::path absolute = absolute_normal(path);
    std::optional<std::string> text = read_input_file_if_present(absolute, max_manifest_bytes, "plugin manifest");
    if (!text) return std::nullopt;
    return parse_manifest(*text, absolute);
}

} // namespace weft
