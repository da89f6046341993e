#include "weft/support/error.hpp"
#include "weft/manifest/semver.hpp"

#include <catch2/catch.hpp>

using namespace weft;

namespace {
bool sat(const char *constraint, const char *version) {
    return VersionConstraint::parse(constraint).satisfied_by(*Version::parse(version));
}
} // namespace

TEST_CASE("semantic versions parse strictly") {
    const auto v = Version::parse("1.20.3-rc.1+build5");
    REQUIRE(v);
    CHECK(v->major == 1);
    CHECK(v->minor == 20);
    CHECK(v->patch == 3);
    CHECK(v->prerelease == "rc.1");
    CHECK(v->str() == "1.20.3-rc.1");
    for (const char *bad : {"1.2", "1", "01.2.3", "1.2.3.4", "a.b.c", "", "1.2.3-", "1..3"})
        CHECK_FALSE(Version::parse(bad).has_value());
}

TEST_CASE("versions order with pre-releases first") {
    CHECK(*Version::parse("1.0.0-alpha") < *Version::parse("1.0.0"));
    CHECK(*Version::parse("1.9.9") < *Version::parse("1.10.0"));
    CHECK(*Version::parse("2.0.0") == *Version::parse("2.0.0+other"));
}

TEST_CASE("constraints") {
    CHECK(sat(">=1.0, <2", "1.2.0"));
    CHECK_FALSE(sat(">=1.0, <2", "2.0.0"));
    CHECK_FALSE(sat(">=1.0, <2", "0.9.9"));
    CHECK(sat("^1.2", "1.9.0"));
    CHECK_FALSE(sat("^1.2", "2.0.0"));
    CHECK_FALSE(sat("^1.2", "1.1.9"));
    CHECK(sat("^0.2.3", "0.2.9"));
    CHECK_FALSE(sat("^0.2.3", "0.3.0"));
    CHECK(sat("~1.2.3", "1.2.9"));
    CHECK_FALSE(sat("~1.2.3", "1.3.0"));
    CHECK(sat("=1.2", "1.2.7"));
    CHECK_FALSE(sat("=1.2", "1.3.0"));
    CHECK(sat("1.0.0", "1.0.0"));
    CHECK_FALSE(sat("1.0.0", "1.0.1"));
    CHECK(sat("*", "0.0.1"));
    CHECK(sat("<=1.2", "1.2.5"));
    CHECK_FALSE(sat(">1.2", "1.2.5"));
    CHECK(sat(">1.2", "1.3.0"));
}

TEST_CASE("malformed constraints name the bad comparator") {
    CHECK_THROWS_WITH(VersionConstraint::parse(">=1.x"), Catch::Contains("invalid version constraint '>=1.x'"));
    CHECK_THROWS_WITH(VersionConstraint::parse(""), Catch::Contains("empty version constraint"));
    CHECK_THROWS_WITH(VersionConstraint::parse(">=1.0, ~"), Catch::Contains("'~'"));
}

TEST_CASE("pre-releases: ordered by identifier, and only chosen by ranges that name one") {
    CHECK(*Version::parse("1.0.0-alpha.2") < *Version::parse("1.0.0-alpha.10"));
    CHECK(*Version::parse("1.0.0-alpha") < *Version::parse("1.0.0-alpha.1"));
    CHECK(*Version::parse("1.0.0-1") < *Version::parse("1.0.0-alpha"));
    CHECK(*Version::parse("1.0.0-beta") < *Version::parse("1.0.0-rc.1"));
    CHECK_FALSE(sat("^1.0", "2.0.0-alpha"));
    CHECK_FALSE(sat(">=1.0", "1.5.0-beta"));
    CHECK(sat(">=1.5.0-alpha", "1.5.0-beta"));
    CHECK_FALSE(sat(">=1.5.0-alpha", "1.6.0-beta"));
    CHECK(sat(">=1.5.0-alpha", "1.6.0"));
}
