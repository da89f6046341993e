#include "weft/manifest/semver.hpp"

#include "weft/support/error.hpp"

#include <algorithm>
#include <charconv>

namespace weft {

namespace {

bool parse_number(std::string_view &text, unsigned &out) {
    if (text.empty() || text[0] < '0' || text[0] > '9') return false;
    if (text[0] == '0' && text.size() > 1 && text[1] >= '0' && text[1] <= '9') return false; // no leading zeros
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec != std::errc{}) return false;
    text.remove_prefix(static_cast<std::size_t>(ptr - text.data()));
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

/// "1", "1.2", "1.2.3", "1.2.3-pre"; returns the number of components given.
int parse_partial(std::string_view text, Version &v) {
    if (!parse_number(text, v.major)) return 0;
    int parts = 1;
    for (unsigned *slot : {&v.minor, &v.patch}) {
        if (text.empty() || text[0] != '.') break;
        text.remove_prefix(1);
        if (!parse_number(text, *slot)) return 0;
        ++parts;
    }
    if (!text.empty() && text[0] == '-' && parts == 3) {
        text.remove_prefix(1);
        const auto end = text.find('+');
        v.prerelease = std::string(text.substr(0, end));
        if (v.prerelease.empty()) return 0;
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end);
    }
    if (!text.empty() && text[0] == '+' && parts == 3) text = {};
    return text.empty() ? parts : 0;
}

} // namespace

std::optional<Version> Version::parse(std::string_view text) {
    Version v;
    if (parse_partial(text, v) != 3) return std::nullopt;
    return v;
}

std::string Version::str() const {
    std::string s = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    if (!prerelease.empty()) s += "-" + prerelease;
    return s;
}

int compare(const Version &a, const Version &b) {
    if (a.major != b.major) return a.major < b.major ? -1 : 1;
    if (a.minor != b.minor) return a.minor < b.minor ? -1 : 1;
    if (a.patch != b.patch) return a.patch < b.patch ? -1 : 1;
    // A pre-release sorts before its release; identifiers compare field by
    // field, numeric ones as numbers and below alphanumeric ones (semver 11).
    if (a.prerelease == b.prerelease) return 0;
    if (a.prerelease.empty()) return 1;
    if (b.prerelease.empty()) return -1;
    std::string_view x = a.prerelease, y = b.prerelease;
    auto numeric = [](std::string_view s) {
        return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
    };
    while (!x.empty() && !y.empty()) {
        const auto dx = x.find('.'), dy = y.find('.');
        const std::string_view fx = x.substr(0, dx), fy = y.substr(0, dy);
        if (fx != fy) {
            if (numeric(fx) && numeric(fy))
                return fx.size() != fy.size() ? (fx.size() < fy.size() ? -1 : 1) : (fx < fy ? -1 : 1);
            if (numeric(fx) != numeric(fy)) return numeric(fx) ? -1 : 1;
            return fx < fy ? -1 : 1;
        }
        x = dx == std::string_view::npos ? std::string_view{} : x.substr(dx + 1);
        y = dy == std::string_view::npos ? std::string_view{} : y.substr(dy + 1);
    }
    return x.empty() == y.empty() ? 0 : (x.empty() ? -1 : 1);
}

VersionConstraint VersionConstraint::parse(std::string_view text) {
    VersionConstraint c;
    c.text_ = std::string(trim(text));
    std::string_view rest = text;
    if (trim(rest).empty()) throw UserError("empty version constraint");
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        std::string_view term = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        const std::string original(term);
        if (term == "*") continue;

        enum class Kind { Eq, Lt, Le, Gt, Ge, Caret, Tilde } kind = Kind::Eq;
        for (auto [prefix, k] : {std::pair{">=", Kind::Ge}, {"<=", Kind::Le}, {">", Kind::Gt}, {"<", Kind::Lt},
                                 {"=", Kind::Eq}, {"^", Kind::Caret}, {"~", Kind::Tilde}}) {
            std::string_view p(prefix);
            if (term.substr(0, p.size()) == p) {
                kind = k;
                term = trim(term.substr(p.size()));
                break;
            }
        }
        Version v;
        const int parts = parse_partial(term, v);
        if (parts == 0) throw UserError("invalid version constraint '" + original + "'");

        auto bump = [](Version base, int level) {
            base.prerelease.clear();
            if (level == 0) base = {base.major + 1, 0, 0, {}};
            else if (level == 1) base = {base.major, base.minor + 1, 0, {}};
            else base = {base.major, base.minor, base.patch + 1, {}};
            return base;
        };
        switch (kind) {
        case Kind::Ge: c.terms_.push_back({Op::Ge, v}); break;
        case Kind::Gt: c.terms_.push_back({parts == 3 ? Op::Gt : Op::Ge, parts == 3 ? v : bump(v, parts - 1)}); break;
        case Kind::Lt: c.terms_.push_back({Op::Lt, v}); break;
        case Kind::Le:
            if (parts == 3) c.terms_.push_back({Op::Le, v});
            else c.terms_.push_back({Op::Lt, bump(v, parts - 1)});
            break;
        case Kind::Eq:
            if (parts == 3) {
                c.terms_.push_back({Op::Eq, v});
            } else { // "=1.2" means 1.2.x
                c.terms_.push_back({Op::Ge, v});
                c.terms_.push_back({Op::Lt, bump(v, parts - 1)});
            }
            break;
        case Kind::Caret: { // ^1.2.3 := >=1.2.3 <2.0.0; ^0.2.3 := <0.3.0; ^0.0.3 := <0.0.4
            int level = v.major != 0 ? 0 : (v.minor != 0 || parts < 3 ? 1 : 2);
            if (v.major == 0 && parts == 1) level = 0;
            c.terms_.push_back({Op::Ge, v});
            c.terms_.push_back({Op::Lt, bump(v, level)});
            break;
        }
        case Kind::Tilde: // ~1.2.3 := >=1.2.3 <1.3.0; ~1 := <2.0.0
            c.terms_.push_back({Op::Ge, v});
            c.terms_.push_back({Op::Lt, bump(v, parts == 1 ? 0 : 1)});
            break;
        }
    }
    return c;
}

bool VersionConstraint::satisfied_by(const Version &v) const {
    // As in npm and Cargo: a pre-release satisfies a range only when some
    // comparator names a pre-release of the same MAJOR.MINOR.PATCH, so
    // ">=1.0" never picks up "2.0.0-alpha".
    if (!v.prerelease.empty()) {
        const bool opted_in = std::any_of(terms_.begin(), terms_.end(), [&](const Term &t) {
            return !t.version.prerelease.empty() && t.version.major == v.major && t.version.minor == v.minor &&
                   t.version.patch == v.patch;
        });
        if (!opted_in) return false;
    }
    for (const Term &t : terms_) {
        const int r = compare(v, t.version);
        const bool ok = t.op == Op::Eq ? r == 0
                        : t.op == Op::Lt ? r < 0
                        : t.op == Op::Le ? r <= 0
                        : t.op == Op::Gt ? r > 0
                                         : r >= 0;
        if (!ok) return false;
    }
    return true;
}

} // namespace weft
