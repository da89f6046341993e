#include "test_support.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/check/check.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <stdexcept>

using namespace weft;
using weft::test::plugin_dir;
using weft::test::test_host_options;

namespace {
using fs_path = std::filesystem::path;

CheckOptions options(bool isolate = false) {
    CheckOptions o;
    o.host = test_host_options();
    o.isolate = isolate;
    o.helper = WEFT_PLUGIN_PROBE;
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

namespace {
/// A temporary cache, so smoke modules neither read nor fill the user's.
struct CheckCache {
    std::filesystem::path path;
    explicit CheckCache(const std::string &name)
        : path(std::filesystem::temp_directory_path() / ("weft_check_" + name)) {
        std::filesystem::remove_all(path);
    }
    ~CheckCache() { std::filesystem::remove_all(path); }
};

CheckOptions compiling(const CheckCache &cache, bool isolate = false) {
    CheckOptions o = options(isolate);
    o.host.cache_dir = cache.path;
    o.compile = true;
    return o;
}

const PluginCheck &named(const CheckReport &r, const std::string &name) {
    for (const PluginCheck &p : r.plugins)
        if (p.plugin == name) return p;
    throw std::runtime_error("no plugin " + name + " in the report");
}
} // namespace

TEST_CASE("check: build options that do not resolve fail the plugin, naming plugin and option") {
    const CheckReport r = check_plugins({plugin_dir("bad_options"), plugin_dir("wt_color")}, options());
    CHECK_FALSE(r.ok());
    const PluginCheck &bad = named(r, "bad_options");
    CHECK_FALSE(bad.ok);
    CHECK_THAT(bad.message, Catch::StartsWith("plugin 'bad_options': invalid module build options:"));
    CHECK_THAT(bad.message, Catch::Contains("cpu_include_dirs: 'include' (from plugin 'bad_options'): not absolute"));
    CHECK_THAT(bad.message, Catch::Contains("bad_options/missing_header.h' (from plugin 'bad_options'): does not exist"));
    CHECK_THAT(bad.message, Catch::Contains("  build_dependencies: '"));
    CHECK(named(r, "wt_color").ok);
    // The same through the helper process, message lines intact.
    const CheckReport isolated = check_plugins({plugin_dir("bad_options")}, options(true));
    REQUIRE(isolated.plugins.size() == 1);
    CHECK(isolated.plugins[0].message == bad.message);
}

TEST_CASE("smoke_module_source calls every builtin and constructs every native type") {
    Host host(test_host_options());
    const std::string source = smoke_module_source(host.load(plugin_dir("wt_color")));
    CHECK_THAT(source, Catch::Contains("def call__test_native_scale_0(a0: warp_test.Color, a1: wp.float32):\n"
                                       "    r = wp._test_native_scale(a0, a1)\n"));
    CHECK_THAT(source, Catch::Contains("def call_add_1(a0: warp_test.Color, a1: warp_test.Color):\n    r = wp.add(a0, a1)\n"));
    CHECK_THAT(source, Catch::Contains("    r = wp._test_image_handle(a0)\n"));
    // An aggregate: default-constructed, every exposed field written, built from its fields, stored.
    CHECK_THAT(source, Catch::Contains("(v: warp_test.Color, out: wp.array(dtype=warp_test.Color)):\n"
                                       "    d = warp_test.Color()\n"
                                       "    d.r = v.r\n    d.g = v.g\n    d.b = v.b\n"
                                       "    out[0] = d\n"
                                       "    out[1] = warp_test.Color(v.r, v.g, v.b)\n"));
    // Opaque: default construction only.
    CHECK_THAT(source, Catch::Contains("    d = warp_test.Image()\n    out[0] = d\n\n"));
}

TEST_CASE("check --compile: a native function whose C++ signature differs from the registered one is named") {
    CheckCache cache("compile_narrowing");
    CheckOptions options = compiling(cache);
    options.compile_cuda = false;
    const CheckReport r = check_plugins({plugin_dir("wt_narrowing")}, options);
    REQUIRE(r.plugins.size() == 1);
    CHECK_FALSE(r.ok());
    CHECK_THAT(r.plugins[0].message,
               Catch::Contains("plugin 'wt_narrowing': builtin _narrow_scale(x: float32, n: int64) -> float32: its native "
                               "function wt_narrowing::scale must be exactly weft::float32(weft::float32, weft::int64)"));
    // A module that merely uses the plugin is not held to it (the conversion is C++'s).
    Host host(test_host_options());
    host.load(plugin_dir("wt_narrowing"));
    CHECK_NOTHROW(host.load_module_source("narrowing_use", "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n"
                                                           "    i = wp.tid()\n    x[i] = wp._narrow_scale(x[i], wp.int64(3))\n"));
}

TEST_CASE("check --compile: a plugin whose header matches its declarations builds on every backend") {
    CheckCache cache("compile_ok");
    const CheckReport r = check_plugins({fs_path(WEFT_BUNDLED_PLUGIN_DIR) / "colors"}, compiling(cache));
    REQUIRE(r.plugins.size() == 1);
    INFO(r.plugins[0].message);
    CHECK(r.ok());
    // The smoke source stays in the cache, for the user to open.
    int kept = 0;
    for (const auto &e : std::filesystem::recursive_directory_iterator(cache.path))
        kept += e.path().filename() == "colors_smoke.py" && e.path().parent_path().filename() == "plugin-check";
    CHECK(kept == 1);
    // philox's header needs no system include dir, so NVRTC builds it too.
    const CheckReport p = check_plugins({fs_path(WEFT_BUNDLED_PLUGIN_DIR) / "philox"}, compiling(cache));
    REQUIRE(p.plugins.size() == 1);
    INFO(p.plugins[0].message);
    CHECK(p.ok());
}

TEST_CASE("check --compile: a layout the header contradicts fails, naming plugin, type and field") {
    CheckCache cache("compile_lying");
    for (bool isolate : {false, true}) {
        const CheckReport r =
            check_plugins({plugin_dir("lying_offset"), plugin_dir("lying_layout"), plugin_dir("wt_color")}, compiling(cache, isolate));
        CHECK_FALSE(r.ok());
        const std::string offset = named(r, "lying_offset").message;
        CHECK_THAT(offset, Catch::StartsWith("plugin 'lying_offset': its smoke module "));
        CHECK_THAT(offset, Catch::Contains("does not build on the CPU:"));
        CHECK_THAT(offset, Catch::Contains("plugin 'lying_offset': native type lie::Pair, field 'a': the plugin declares "
                                           "offset 0, the header disagrees"));
        const std::string layout = named(r, "lying_layout").message;
        CHECK_THAT(layout, Catch::Contains("plugin 'lying_layout': native type lay::Typed, field 'a': the plugin declares type"));
        CHECK_THAT(layout, Catch::Contains("plugin 'lying_layout': native type lay::Sized: the plugin declares size 8"));
        if (weft::backend::nvrtc_available()) {
            CHECK_THAT(offset, Catch::Contains("does not build with NVRTC (cuda-compute_"));
            CHECK_THAT(layout, Catch::Contains("does not build with NVRTC (cuda-compute_"));
        }
        // wt_color declares builtins its preamble never defines: a plugin that cannot ship either.
        CHECK_FALSE(named(r, "wt_color").ok);
        CHECK_THAT(named(r, "wt_color").message, Catch::Contains("warp_test"));
        // Without --compile all three load and resolve their options.
        CHECK(check_plugins({plugin_dir("lying_offset"), plugin_dir("lying_layout"), plugin_dir("wt_color")}, options()).ok());
    }
}

TEST_CASE("check --isolate: a plugin that ends the process without a report is a failure") {
    const CheckReport r = check_plugins({plugin_dir("exits_quietly"), plugin_dir("wt_color")}, options(true));
    CHECK_FALSE(r.ok());
    REQUIRE(r.plugins.size() == 2);
    CHECK(r.plugins[0].plugin == "exits_quietly");
    CHECK_FALSE(r.plugins[0].ok);
    CHECK(r.plugins[0].message ==
          "plugin 'exits_quietly': the process loading it exited with status 0 without reporting a result "
          "(did the plugin end the process?)");
    CHECK(r.plugins[1].ok);
}

TEST_CASE("check --isolate: a helper that is not there is an error, not a crash") {
    CheckOptions o = options(true);
    o.helper = "/nonexistent/weft-plugin-probe";
    CHECK_THAT(weft::test::message_of<UserError>([&] { check_plugins({plugin_dir("wt_color")}, o); }),
               Catch::Contains("/nonexistent/weft-plugin-probe, which does not exist"));
}

TEST_CASE("check: a conflict through a requirement is a conflict naming both plugins") {
    // conflict_user requires conflict_a (found on the search path), which conflicts with conflict_b.
    for (bool isolate : {false, true}) {
        const CheckReport r = check_plugins({plugin_dir("conflict_b"), plugin_dir("conflict_user")}, options(isolate));
        CHECK_FALSE(r.ok());
        REQUIRE(r.conflicts.size() == 1);
        CHECK(r.conflicts[0].first == "conflict_a");
        CHECK(r.conflicts[0].second == "conflict_b");
        CHECK(r.conflicts[0].subject == "builtin _cf_value(x: float32)");
        CHECK_THAT(r.conflicts[0].message,
                   Catch::StartsWith("plugins 'conflict_a' and 'conflict_b' conflict on builtin overload _cf_value"));
        CHECK_THAT(r.conflicts[0].message,
                   Catch::EndsWith("; 'conflict_a' is loaded as a requirement of 'conflict_user'"));
        // Both load alone; the combined failure is the conflict, reported once.
        CHECK(r.plugins[0].ok);
        CHECK(r.plugins[1].ok);
        CHECK(r.combined_failures.empty());
    }
}

TEST_CASE("check: two plugins of one name are told apart by path and fail together") {
    const std::filesystem::path copy = std::filesystem::temp_directory_path() / "weft_check_twin" / "wt_color";
    std::filesystem::remove_all(copy.parent_path());
    std::filesystem::create_directories(copy);
    std::filesystem::copy(plugin_dir("wt_color"), copy, std::filesystem::copy_options::recursive);
    const CheckReport r = check_plugins({copy, plugin_dir("wt_color")}, options());
    std::filesystem::remove_all(copy.parent_path());
    REQUIRE(r.plugins.size() == 2);
    CHECK(r.plugins[0].ok);
    CHECK(r.plugins[1].ok);
    // Sorted by name, then path.
    CHECK(r.plugins[0].path < r.plugins[1].path);
    CHECK(r.conflicts.empty());
    REQUIRE(r.combined_failures.size() == 1);
    CHECK_THAT(r.combined_failures[0].message, Catch::Contains("plugin 'wt_color': given twice"));
    CHECK_FALSE(r.ok());
}
