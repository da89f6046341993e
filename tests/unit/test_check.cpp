#include "test_support.hpp"

#include "weft/host/check.hpp"

#include <catch2/catch.hpp>

using namespace weft;
using weft::test::plugin_dir;
using weft::test::test_host_options;

namespace {
CheckOptions options(bool isolate = false) {
    CheckOptions o;
    o.host = test_host_options();
    o.isolate = isolate;
    return o;
}
} // namespace

TEST_CASE("check: a clean set passes") {
    const CheckReport r =
        check_plugins({plugin_dir("wt_pixel"), plugin_dir("wt_color"), plugin_dir("same_a"), plugin_dir("same_b")}, options());
    CHECK(r.ok());
    REQUIRE(r.plugins.size() == 4);
    CHECK(r.plugins[0].plugin == "same_a");
    CHECK(r.plugins[3].plugin == "wt_pixel");
    CHECK(r.conflicts.empty());
}

TEST_CASE("check: conflicts are reported for both plugins, whatever the order") {
    const CheckReport ab = check_plugins({plugin_dir("conflict_a"), plugin_dir("conflict_b")}, options());
    const CheckReport ba = check_plugins({plugin_dir("conflict_b"), plugin_dir("conflict_a")}, options());
    CHECK_FALSE(ab.ok());
    REQUIRE(ab.conflicts.size() == 1);
    REQUIRE(ba.conflicts.size() == 1);
    CHECK(ab.conflicts[0].message == ba.conflicts[0].message);
    CHECK(ab.conflicts[0].first == "conflict_a");
    CHECK(ab.conflicts[0].second == "conflict_b");
    CHECK(ab.conflicts[0].subject == "builtin _cf_value(x: float32)");
    CHECK_THAT(ab.conflicts[0].message,
               Catch::Contains("'conflict_a' registers _cf_value(x: float32) -> float32 [native conflict::value], "
                               "'conflict_b' registers _cf_value(x: float32) -> float64 [native conflict::value]"));
    // Each loads fine alone: the conflict is the only finding, reported once.
    CHECK(ab.plugins[0].ok);
    CHECK(ab.plugins[1].ok);
    CHECK(ab.combined_failures.empty());
}

TEST_CASE("check: every conflict, not just the first") {
    // conflict_a and conflict_b clash; wt_color is clean.
    const CheckReport r = check_plugins({plugin_dir("wt_color"), plugin_dir("conflict_b"), plugin_dir("conflict_a")}, options());
    CHECK(r.conflicts.size() == 1);
    CHECK(r.plugins.size() == 3);
    CHECK(std::count_if(r.plugins.begin(), r.plugins.end(), [](const PluginCheck &p) { return p.ok; }) == 3);
}

TEST_CASE("check: failures are reported per plugin") {
    const CheckReport r = check_plugins(
        {plugin_dir("missing_req"), plugin_dir("future_abi"), plugin_dir("wt_color"), "/nonexistent/plugin"}, options());
    CHECK_FALSE(r.ok());
    REQUIRE(r.plugins.size() == 4);
    std::map<std::string, const PluginCheck *> by;
    for (const PluginCheck &p : r.plugins) by[p.plugin] = &p;
    CHECK(by.at("wt_color")->ok);
    CHECK_THAT(by.at("missing_req")->message, Catch::Contains("requires 'nowhere'"));
    CHECK_THAT(by.at("future_abi")->message, Catch::Contains("built for plugin ABI 99"));
    CHECK_THAT(by.at("/nonexistent/plugin")->message, Catch::Contains("no such file or directory"));
}

TEST_CASE("check --isolate: a crashing plugin is reported, not fatal") {
    const CheckReport r = check_plugins({plugin_dir("crasher"), plugin_dir("wt_pixel")}, options(true));
    REQUIRE(r.plugins.size() == 2);
    CHECK(r.plugins[0].plugin == "crasher");
    CHECK_FALSE(r.plugins[0].ok);
    CHECK_THAT(r.plugins[0].message, Catch::Contains("crashed with signal 11"));
    CHECK(r.plugins[1].ok);
    // Results come back from the child intact: a conflict found across processes.
    const CheckReport c = check_plugins({plugin_dir("conflict_a"), plugin_dir("conflict_b")}, options(true));
    REQUIRE(c.conflicts.size() == 1);
    CHECK(c.conflicts[0].subject == "builtin _cf_value(x: float32)");
}

TEST_CASE("contracts_of lists what a plugin registered") {
    Host host(test_host_options());
    const PluginContracts c = contracts_of(host.load(plugin_dir("wt_color")));
    CHECK(c.plugin == "wt_color");
    CHECK(c.version == "1.2.0");
    CHECK(c.builtins.size() == 3);
    CHECK(c.native_types.size() == 3);
    CHECK(c.native_types[0].name == "warp_test::Color");
}
