// Semantic versions and the constraints a manifest's `requires` table uses.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

struct Version {
    unsigned major = 0;
    unsigned minor = 0;
    unsigned patch = 0;
    std::string prerelease; // "" for a release

    /// Strict semver "MAJOR.MINOR.PATCH[-pre][+build]"; nullopt otherwise.
    static std::optional<Version> parse(std::string_view text);
    std::string str() const;

    friend int compare(const Version &a, const Version &b);
    friend bool operator==(const Version &a, const Version &b) { return compare(a, b) == 0; }
    friend bool operator<(const Version &a, const Version &b) { return compare(a, b) < 0; }
};

/// A conjunction of comparators: ">=1.2, <2", "^1.4", "~1.2.3", "=1.0.0", "1.0.0", "*".
/// Partial versions are allowed in comparators ("<2" means "<2.0.0").
class VersionConstraint {
public:
    /// Throws UserError with the offending comparator.
    static VersionConstraint parse(std::string_view text);
    bool satisfied_by(const Version &v) const;
    const std::string &text() const { return text_; }

private:
    enum class Op { Eq, Lt, Le, Gt, Ge };
    struct Term {
        Op op;
        Version version;
    };
    std::string text_;
    std::vector<Term> terms_;
};

} // namespace weft
