#include "weft/build/build_options.hpp"

#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string_view>

namespace weft {

namespace fs = std::filesystem;

void append_preamble(std::string &text, const std::string &piece) {
    if (piece.empty()) return;
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += piece;
}

namespace {

template <class T, class Key> void add_unique(std::vector<T> &out, const T &item, Key key) {
    if (std::none_of(out.begin(), out.end(), [&](const T &x) { return key(x) == key(item); })) out.push_back(item);
}

/// The 1-based line of the first line-control directive (`#line N "file"` or
/// GNU `# N "file"`) in a preamble, or 0. Such a directive would make compiler
/// errors in the rest of the preamble, or in code after it, name another file.
/// Backslash-newlines are spliced and comments between '#' and the name skipped,
/// as the preprocessor does; a string that merely contains "#line" is not a directive.
std::size_t line_directive_at(std::string_view text) {
    std::size_t line = 1, i = 0;
    bool in_block_comment = false;
    auto skip_splices = [&] {
        while (i + 1 < text.size() && text[i] == '\\' && text[i + 1] == '\n') {
            i += 2;
            ++line;
        }
    };
    auto skip_space_and_comments = [&] {
        for (;;) {
            skip_splices();
            if (i < text.size() && (text[i] == ' ' || text[i] == '\t')) {
                ++i;
            } else if (i + 1 < text.size() && text[i] == '/' && text[i + 1] == '*') {
                const std::size_t end = text.find("*/", i + 2);
                const std::size_t stop = end == std::string_view::npos ? text.size() : end + 2;
                line += static_cast<std::size_t>(std::count(text.begin() + i, text.begin() + stop, '\n'));
                i = stop;
            } else {
                return;
            }
        }
    };
    while (i < text.size()) {
        const std::size_t start_line = line;
        if (!in_block_comment) {
            skip_space_and_comments();
            if (i < text.size() && text[i] == '#') {
                ++i;
                skip_space_and_comments();
                std::string word;
                while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
                    word += text[i++];
                    skip_splices();
                }
                if (word == "line" || (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0]))))
                    return start_line;
            }
        }
        // To the end of this logical line, tracking block comments that span lines.
        while (i < text.size() && text[i] != '\n') {
            if (!in_block_comment && i + 1 < text.size() && text[i] == '/' && text[i + 1] == '*') {
                in_block_comment = true;
                i += 2;
            } else if (in_block_comment && i + 1 < text.size() && text[i] == '*' && text[i + 1] == '/') {
                in_block_comment = false;
                i += 2;
            } else if (!in_block_comment && i + 1 < text.size() && text[i] == '/' && text[i + 1] == '/') {
                while (i < text.size() && text[i] != '\n') {
                    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') ++line, ++i;
                    ++i;
                }
            } else {
                if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') ++line, ++i;
                ++i;
            }
        }
        ++i;
        ++line;
    }
    return 0;
}

} // namespace

ModuleBuildOptions ModuleBuildOptions::merge_all(std::initializer_list<const ModuleBuildOptions *> parts) {
    ModuleBuildOptions out;
    auto key = [](const std::string &s) -> const std::string & { return s; };
    for (const ModuleBuildOptions *p : parts) {
        for (const std::string &d : p->extra_cuda_include_dirs) add_unique(out.extra_cuda_include_dirs, d, key);
        for (const std::string &d : p->extra_cpu_include_dirs) add_unique(out.extra_cpu_include_dirs, d, key);
        for (const std::string &d : p->extra_build_dependencies) add_unique(out.extra_build_dependencies, d, key);
        append_preamble(out.extra_cuda_preamble, p->extra_cuda_preamble);
        append_preamble(out.extra_cpu_preamble, p->extra_cpu_preamble);
    }
    return out;
}

EffectiveBuildOptions EffectiveBuildOptions::merge(const std::vector<BuildOptionsSource> &sources) {
    EffectiveBuildOptions out;
    auto key = [](const SourcedValue &s) -> const std::string & { return s.value; };
    for (const BuildOptionsSource &src : sources) {
        const ModuleBuildOptions &o = src.options;
        for (const std::string &d : o.extra_cuda_include_dirs) add_unique(out.cuda_include_dirs, {d, src.label}, key);
        for (const std::string &d : o.extra_cpu_include_dirs) add_unique(out.cpu_include_dirs, {d, src.label}, key);
        for (const std::string &d : o.extra_build_dependencies)
            add_unique(out.build_dependencies, {d, src.label}, key);
        if (!o.extra_cuda_preamble.empty()) out.cuda_preamble.push_back({o.extra_cuda_preamble, src.label});
        if (!o.extra_cpu_preamble.empty()) out.cpu_preamble.push_back({o.extra_cpu_preamble, src.label});
        if (src.verified && std::find(out.verified.begin(), out.verified.end(), *src.verified) == out.verified.end())
            out.verified.push_back(*src.verified);
    }
    return out;
}

ModuleBuildOptions EffectiveBuildOptions::flattened() const {
    ModuleBuildOptions o;
    for (const SourcedValue &v : cuda_include_dirs) o.extra_cuda_include_dirs.push_back(v.value);
    for (const SourcedValue &v : cpu_include_dirs) o.extra_cpu_include_dirs.push_back(v.value);
    for (const SourcedValue &v : build_dependencies) o.extra_build_dependencies.push_back(v.value);
    for (const SourcedValue &v : cuda_preamble) append_preamble(o.extra_cuda_preamble, v.value);
    for (const SourcedValue &v : cpu_preamble) append_preamble(o.extra_cpu_preamble, v.value);
    return o;
}

namespace {

std::string joined(const std::vector<SourcedValue> &pieces) {
    std::string out;
    for (const SourcedValue &p : pieces) out += p.value; // each already ends with "\n"
    return out;
}

std::string file_digest(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UserError(path.string() + ": cannot read build dependency");
    Sha256 h;
    char buffer[1 << 16];
    while (in) {
        in.read(buffer, sizeof buffer);
        h.update(buffer, static_cast<std::size_t>(in.gcount()));
    }
    return h.hex();
}

} // namespace

std::string ResolvedBuildOptions::cuda_preamble_text() const { return joined(cuda_preamble); }
std::string ResolvedBuildOptions::cpu_preamble_text() const { return joined(cpu_preamble); }

ResolvedBuildOptions resolve(const EffectiveBuildOptions &options) {
    ResolvedBuildOptions out;
    std::vector<std::string> problems;
    // A plugin set its options through the SDK's weft_build_options, whose
    // fields have no "extra_" prefix: its errors use those names (issue 19).
    auto bad = [&](const char *option, const SourcedValue &v, const char *reason) {
        const bool from_plugin = v.source.rfind("plugin '", 0) == 0;
        const std::string name = from_plugin && std::string_view(option).rfind("extra_", 0) == 0 ? option + 6 : option;
        problems.push_back(name + ": '" + v.value + "' (from " + v.source + "): " + reason);
    };
    auto dirs = [&](const char *option, const std::vector<SourcedValue> &in, std::vector<fs::path> &result) {
        for (const SourcedValue &v : in) {
            const fs::path p(v.value);
            std::error_code ec;
            if (!p.is_absolute())
                bad(option, v, "not absolute");
            else if (!fs::exists(p, ec))
                bad(option, v, "does not exist");
            else if (!fs::is_directory(p, ec))
                bad(option, v, "not a directory");
            else
                result.push_back(p.lexically_normal());
        }
    };
    dirs("extra_cuda_include_dirs", options.cuda_include_dirs, out.cuda_include_dirs);
    dirs("extra_cpu_include_dirs", options.cpu_include_dirs, out.cpu_include_dirs);
    for (const SourcedValue &v : options.build_dependencies) {
        const fs::path p(v.value);
        std::error_code ec;
        if (!p.is_absolute())
            bad("extra_build_dependencies", v, "not absolute");
        else if (!fs::exists(p, ec))
            bad("extra_build_dependencies", v, "does not exist");
        else if (!fs::is_regular_file(p, ec))
            bad("extra_build_dependencies", v, "not a file");
        else
            out.build_dependencies.push_back({p.lexically_normal(), file_digest(p), v.source});
    }
    // A plugin's headers are code: one edited since its trust check is not built.
    for (const trust::VerifiedDirectory &v : options.verified) {
        try {
            if (const trust::FileDifference d = v.changes(); !d.empty())
                problems.push_back("plugin '" + v.plugin + "': " + d.reason + " (" + d.file.string() + ")");
        } catch (const UserError &e) {
            problems.push_back("plugin '" + v.plugin + "': " + e.what());
        }
    }
    for (const auto *preambles : {&options.cpu_preamble, &options.cuda_preamble})
        for (const SourcedValue &v : *preambles)
            if (const std::size_t line = line_directive_at(v.value)) {
                const bool from_plugin = v.source.rfind("plugin '", 0) == 0;
                const std::string name = std::string(from_plugin ? "" : "extra_") +
                                         (preambles == &options.cpu_preamble ? "cpu_preamble" : "cuda_preamble");
                problems.push_back(name + " (from " + v.source + "): line " + std::to_string(line) +
                                   " is a #line directive, which would make compiler errors name another file "
                                   "than the preamble");
            }
    if (!problems.empty()) {
        std::string message = "invalid module build options:";
        for (const std::string &p : problems) message += "\n  " + p;
        throw UserError(message);
    }
    // Each piece ends with "\n": concatenating them is then the merge rule plus
    // the trailing "\n" resolving adds, and "X" and "X\n" hash alike.
    auto normalize = [](const std::vector<SourcedValue> &in) {
        std::vector<SourcedValue> result = in;
        for (SourcedValue &v : result)
            if (v.value.back() != '\n') v.value += '\n';
        return result;
    };
    out.cuda_preamble = normalize(options.cuda_preamble);
    out.cpu_preamble = normalize(options.cpu_preamble);
    return out;
}

} // namespace weft
