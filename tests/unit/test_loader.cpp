#include "test_support.hpp"

#include "weft/support/error.hpp"
#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

#include <dlfcn.h>

using namespace weft;
using weft::test::message_of;
using weft::test::plugin_dir;
using weft::test::test_host_options;

namespace {

std::string load_error(Host &host, const std::string &name) {
    return message_of<PluginError>([&] { host.load(plugin_dir(name)); });
}

/// Whether the dynamic linker still has the library mapped.
bool is_mapped(const std::string &plugin) {
    const std::string lib = (plugin_dir(plugin) / ("lib" + plugin + ".so")).string();
    void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);
    return h != nullptr;
}

HostOptions isolated_options() {
    HostOptions o = test_host_options();
    o.search_path.clear();
    return o;
}

} // namespace

TEST_CASE("a plugin loads and its registrations reach the registry") {
    std::vector<std::string> log;
    Host host(test_host_options(&log));
    const LoadedPlugin &p = host.load(plugin_dir("wt_color"));
    CHECK(p.name() == "wt_color");
    CHECK(p.manifest.version.str() == "1.2.0");
    CHECK(p.abi_version == 1);
    CHECK(p.sdk_version == "0.1.0");
    REQUIRE(p.builtins.size() == 3);
    // The plugin's record is the registry's records, in call order.
    std::vector<std::string> registered;
    for (const BuiltinOverload &b : p.builtins) registered.push_back(b.native_name);
    CHECK(registered == std::vector<std::string>{"warp_test::scale", "warp_test::add", "warp_test::handle"});
    CHECK(&p.builtins[0] == &host.registry().overloads("_test_native_scale")[0]);
    CHECK(p.native_types.size() == 3);
    REQUIRE(p.build_options.size() == 1);
    CHECK(p.build_options[0].extra_cpu_preamble == "#define WT_COLOR 1");

    const Registry &r = host.registry();
    const NativeTypeInfo *color = r.native_type("warp_test::Color");
    REQUIRE(color);
    CHECK(color->size == 12);
    CHECK(color->alignment == 4);
    CHECK(color->initializer == Initializer::Aggregate);
    CHECK(color->owners == std::vector<std::string>{"wt_color"});
    REQUIRE(r.native_type("warp_test::Image"));
    CHECK(r.native_type("warp_test::Image")->opaque());
    // Layout measured by the compiler through WEFT_FIELD, padding included.
    const NativeTypeInfo *padded = r.native_type("warp_test::Padded");
    REQUIRE(padded);
    CHECK(padded->size == 8);
    REQUIRE(padded->exposed.size() == 2);
    CHECK(padded->exposed[0].type.name() == "uint8");
    CHECK(padded->exposed[1].offset == 4);
    CHECK(padded->exposed[1].type.name() == "uint32");

    REQUIRE(r.overloads("_test_native_scale").size() == 1);
    const BuiltinOverload &scale = r.overloads("_test_native_scale")[0];
    CHECK(scale.signature() == "_test_native_scale(value: warp_test::Color, factor: float32) -> warp_test::Color");
    CHECK(scale.native_namespace == "warp_test::");
    CHECK(scale.native_function == "scale");
    CHECK(scale.doc == "Scales a color.");
    // The overload on core `add` sits beside core's own.
    CHECK(r.overloads("add").back().owners == std::vector<std::string>{"wt_color"});
    CHECK(r.overloads("add").front().owners == std::vector<std::string>{"core"});

    CHECK(std::find(log.begin(), log.end(), "loader: loaded plugin 'wt_color' 1.2.0: 3 builtins, 3 native types") != log.end());
}

TEST_CASE("a plugin can be named by manifest, directory or library") {
    Host host(test_host_options());
    CHECK(host.load(plugin_dir("wt_color") / "plugin.toml").name() == "wt_color");
    CHECK(&host.load(plugin_dir("wt_color")) == &host.load(plugin_dir("wt_color") / "libwt_color.so"));
    CHECK(host.plugins().size() == 1);
}

TEST_CASE("requirements load first - a nested native type resolves to the requirement's") {
    Host host(test_host_options());
    host.load(plugin_dir("wt_pixel"));
    const auto loaded = host.plugins();
    REQUIRE(loaded.size() == 2);
    CHECK(loaded[0]->name() == "wt_color");
    CHECK(loaded[1]->name() == "wt_pixel");
    const NativeTypeInfo *pixel = host.registry().native_type("warp_test::Pixel");
    REQUIRE(pixel);
    REQUIRE(pixel->exposed.size() == 2);
    CHECK(pixel->exposed[0].type.code() == host.registry().native_type("warp_test::Color")->code);
    CHECK(pixel->exposed[1].offset == 12);
}

TEST_CASE("load order depends on the plugin set, not the argument order") {
    Host a(test_host_options());
    Host b(test_host_options());
    const LoadReport ra = a.load_all({plugin_dir("wt_pixel"), plugin_dir("same_b"), plugin_dir("wt_color"), plugin_dir("same_a")});
    const LoadReport rb = b.load_all({plugin_dir("same_a"), plugin_dir("wt_color"), plugin_dir("same_b"), plugin_dir("wt_pixel")});
    REQUIRE(ra.ok());
    REQUIRE(rb.ok());
    std::vector<std::string> na, nb;
    for (auto *p : a.plugins()) na.push_back(p->name());
    for (auto *p : b.plugins()) nb.push_back(p->name());
    CHECK(na == std::vector<std::string>{"same_a", "same_b", "wt_color", "wt_pixel"});
    CHECK(na == nb);
}

TEST_CASE("a missing requirement is an error naming both plugins") {
    Host host(isolated_options());
    const std::string msg = load_error(host, "wt_pixel");
    CHECK_THAT(msg, Catch::Contains("plugin 'wt_pixel': requires 'wt_color' >=1.0, <2, which is not loaded, not given and not on the search path"));
    CHECK(host.plugins().empty());
    CHECK_THAT(load_error(host, "missing_req"), Catch::Contains("plugin 'missing_req': requires 'nowhere' >=1.0"));
}

TEST_CASE("an unsatisfied version constraint names both plugins and both versions") {
    Host host(test_host_options());
    CHECK_THAT(load_error(host, "wants_v2"),
               Catch::Contains("plugin 'wants_v2': requires 'wt_color' ^2.0, but plugin 'wt_color' is 1.2.0"));
}

TEST_CASE("a requirement cycle is reported") {
    Host host(test_host_options());
    CHECK_THAT(load_error(host, "cycle_a"), Catch::Contains("requirement cycle: cycle_a -> cycle_b -> cycle_a"));
    CHECK(host.plugins().empty());
}

TEST_CASE("conflicting plugins: the second is rejected naming both, the first stays") {
    Host host(test_host_options());
    host.load(plugin_dir("conflict_a"));
    const std::string msg = load_error(host, "conflict_b");
    CHECK_THAT(msg, Catch::StartsWith("plugin 'conflict_b': registration rejected: conflicting builtin overload "
                                      "_cf_value(x: float32) -> float64"));
    CHECK_THAT(msg, Catch::Contains("plugin 'conflict_a' registered _cf_value(x: float32) -> float32"));
    CHECK(host.plugins().size() == 1);
    REQUIRE(host.registry().overloads("_cf_value").size() == 1);
    CHECK(host.registry().overloads("_cf_value")[0].result->name() == "float32");
    CHECK(host.registry().has_builtin("_cf_other"));
}

TEST_CASE("two plugins registering identical contracts both load and share ownership") {
    Host host(test_host_options());
    host.load(plugin_dir("same_a"));
    host.load(plugin_dir("same_b"));
    const Registry &r = host.registry();
    REQUIRE(r.overloads("_same_twice").size() == 1);
    CHECK(r.overloads("_same_twice")[0].owners == std::vector<std::string>{"same_a", "same_b"});
    CHECK(r.native_type("same::Pair")->owners == std::vector<std::string>{"same_a", "same_b"});
    CHECK(r.native_type_count() == 1); // same::Pair, registered twice, stored once
    // Each plugin's list names the one shared record, as the registry holds it now.
    const LoadedPlugin *a = host.plugin("same_a");
    const LoadedPlugin *b = host.plugin("same_b");
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(a->builtins.size() == 2);
    REQUIRE(b->builtins.size() == 2);
    CHECK(&a->builtins[0] == &r.overloads("_same_twice")[0]);
    CHECK(&b->builtins[0] == &r.overloads("_same_twice")[0]);
    CHECK(&b->builtins[1] == &r.overloads("_same_first")[0]);
    CHECK(a->builtins[0].owners == std::vector<std::string>{"same_a", "same_b"});
}

TEST_CASE("an unsupported ABI is refused from the manifest, before any plugin code runs") {
    Host host(test_host_options());
    // future_abi's init calls abort(): reaching it would end this test run.
    const std::string msg = load_error(host, "future_abi");
    CHECK_THAT(msg, Catch::Contains("plugin 'future_abi': built for plugin ABI 99"));
    CHECK_THAT(msg, Catch::Contains("this host supports ABI 1"));
    CHECK_FALSE(is_mapped("future_abi"));
}

TEST_CASE("the library's info record must agree with the manifest") {
    Host host(test_host_options());
    CHECK_THAT(load_error(host, "lying_abi"),
               Catch::Contains("plugin 'lying_abi': library is built for plugin ABI 7; this host supports ABI 1"));
    CHECK_THAT(load_error(host, "name_mismatch"),
               Catch::Contains("library reports name 'someone_else' but manifest"));
    CHECK_THAT(load_error(host, "no_entry"), Catch::Contains("does not export weft_plugin_get_info"));
    CHECK(host.plugins().empty());
    CHECK_FALSE(is_mapped("no_entry"));
    CHECK_FALSE(is_mapped("name_mismatch"));
}

TEST_CASE("a plugin whose registration fails mid-way leaves nothing behind - another still loads") {
    Host host(test_host_options());
    const std::size_t builtins_before = host.registry().builtin_count();
    const std::string msg = load_error(host, "init_fails");
    CHECK_THAT(msg, Catch::Contains("plugin 'init_fails': registration rejected: conflicting builtin overload add(a: float32, b: float32)"));
    CHECK_THAT(msg, Catch::Contains("core registered add(a: float32, b: float32) -> float32"));
    CHECK_THAT(msg, Catch::Contains("nothing of the plugin was registered"));
    CHECK(host.registry().native_type("init_fails::Thing") == nullptr);
    CHECK_FALSE(host.registry().has_builtin("_if_one"));
    CHECK_FALSE(host.registry().has_builtin("_if_two"));
    CHECK(host.registry().builtin_count() == builtins_before);
    CHECK(host.plugin("init_fails") == nullptr);
    CHECK_FALSE(is_mapped("init_fails"));

    CHECK(host.load(plugin_dir("wt_color")).name() == "wt_color");
    CHECK(host.registry().builtin_count() == builtins_before + 3);
}

TEST_CASE("init's own failure is reported with its message and rolls everything back") {
    Host host(test_host_options());
    CHECK_THAT(load_error(host, "init_error"),
               Catch::Contains("plugin 'init_error': init failed (status 6): license file not found; nothing of the plugin was registered"));
    CHECK_FALSE(host.registry().has_builtin("_ie_a"));
    CHECK_THAT(load_error(host, "throws"), Catch::Contains("uncaught exception: device table missing"));
    CHECK_FALSE(host.registry().has_builtin("_th_f"));
}

TEST_CASE("a rejected registration fails the plugin even when init ignores the status") {
    Host host(test_host_options());
    CHECK_THAT(load_error(host, "ignores_rejection"),
               Catch::Contains("registration rejected: builtin '_ir_bad': native name 'ir::bad-name' is not a valid qualified C++ identifier"));
    CHECK_FALSE(host.registry().has_builtin("_ir_good"));
}

TEST_CASE("registrations outside the plugin's prefix are rejected") {
    Host host(test_host_options());
    CHECK_THAT(load_error(host, "out_of_prefix"),
               Catch::Contains("builtin 'stolen_name': name is outside the builtin prefixes plugin 'out_of_prefix' owns ('_op_')"));
    CHECK_FALSE(host.registry().has_builtin("_op_fine"));
}

TEST_CASE("descriptors shorter or longer than v1 are read up to their struct_size") {
    Host host(test_host_options());
    host.load(plugin_dir("struct_sizes"));
    const Registry &r = host.registry();
    REQUIRE(r.overloads("_ss_old").size() == 1);
    CHECK(r.overloads("_ss_old")[0].doc.empty()); // past struct_size: zero, not the 0x7f garbage
    CHECK(r.overloads("_ss_old")[0].signature() == "_ss_old() -> int32");
    REQUIRE(r.overloads("_ss_new").size() == 1);
    CHECK(r.overloads("_ss_new")[0].signature() == "_ss_new(a: float32, b: vec3) -> vec3");
    CHECK(r.overloads("_ss_new")[0].doc == "from a newer SDK");
    CHECK(r.has_builtin("_ss_by_name")); // registered through get_proc_address
}

TEST_CASE("two hosts in one process are independent") {
    Host one(test_host_options());
    Host two(test_host_options());
    one.load(plugin_dir("conflict_a"));
    two.load(plugin_dir("conflict_b"));
    CHECK(one.registry().overloads("_cf_value")[0].result->name() == "float32");
    CHECK(two.registry().overloads("_cf_value")[0].result->name() == "float64");
    CHECK(one.plugin("conflict_b") == nullptr);
    CHECK_FALSE(two.registry().has_builtin("_cf_other"));
}

TEST_CASE("destroying a host drops its registrations, then unloads its plugins") {
    {
        Host host(test_host_options());
        host.load(plugin_dir("wt_pixel"));
        CHECK(is_mapped("wt_pixel"));
        CHECK(is_mapped("wt_color"));
    }
    CHECK_FALSE(is_mapped("wt_pixel"));
    CHECK_FALSE(is_mapped("wt_color"));
}

TEST_CASE("discovery reads manifests only") {
    Host host(test_host_options());
    const Discovery d = host.discover();
    std::vector<std::string> names;
    for (const PluginManifest &m : d.plugins) names.push_back(m.name);
    CHECK(std::is_sorted(names.begin(), names.end()));
    CHECK(std::find(names.begin(), names.end(), "future_abi") != names.end());
    CHECK(std::find(names.begin(), names.end(), "wt_color") != names.end());
    CHECK(d.errors.empty());
    CHECK_FALSE(is_mapped("wt_color"));
    CHECK_FALSE(is_mapped("crasher"));
}

TEST_CASE("load_by_name finds a plugin on the search path") {
    Host host(test_host_options());
    CHECK(host.load_by_name("wt_color").name() == "wt_color");
    CHECK_THAT(message_of<PluginError>([&] { host.load_by_name("nope"); }),
               Catch::Contains("plugin 'nope': not found on the search path"));
}

TEST_CASE("a plugin not found by name lists every directory searched, in order") {
    HostOptions o = test_host_options();
    o.search_path.push_back("/nonexistent/weft-plugins");
    Host host(o);
    CHECK(message_of<PluginError>([&] { host.load_by_name("nope"); }) ==
          "plugin 'nope': not found on the search path; searched:\n  " + std::string(WEFT_TEST_PLUGIN_DIR) +
              "\n  /nonexistent/weft-plugins (no such directory)");
    o.search_path.clear();
    CHECK(message_of<PluginError>([&] { Host(o).load_by_name("nope"); }) ==
          "plugin 'nope': not found on the search path; the search path is empty");
}

TEST_CASE("WEFT_PLUGIN_PATH feeds the search path") {
    setenv("WEFT_PLUGIN_PATH", (std::string(WEFT_TEST_PLUGIN_DIR) + "::/nonexistent").c_str(), 1);
    HostOptions o;
    Host host(o);
    unsetenv("WEFT_PLUGIN_PATH");
    REQUIRE(host.search_path().size() >= 2); // then the default directories (test_vendor_kit.cpp)
    CHECK(host.search_path()[0] == WEFT_TEST_PLUGIN_DIR);
    CHECK(host.search_path()[1] == "/nonexistent");
    CHECK(host.load_by_name("wt_color").name() == "wt_color");
}
