#include "test_support.hpp"

#include "weft/support/error.hpp"
#include "weft/manifest/manifest.hpp"
#include "weft/support/file.hpp"

#include <fstream>

#include <catch2/catch.hpp>

using namespace weft;
using weft::test::message_of;

namespace {
const std::filesystem::path here = "/plugins/demo/plugin.toml";

std::string error_of(const std::string &text) {
    return message_of<UserError>([&] { parse_manifest(text, here); });
}
} // namespace

TEST_CASE("a complete manifest parses") {
    const PluginManifest m = parse_manifest(R"(
name = "warp_test"
version = "1.2.0"
abi = 1
library = "libwarp_test.so"
description = "test types"
[prefixes]
builtins = ["_test_", "_wt_"]
native = "warp_test::"
[requires]
wt_color = ">=1.0, <2"
base = "^0.3"
)",
                                            here);
    CHECK(m.name == "warp_test");
    CHECK(m.version.str() == "1.2.0");
    CHECK(m.abi == 1);
    CHECK(m.library_path == "/plugins/demo/libwarp_test.so");
    CHECK(m.prefixes.builtin_prefixes == std::vector<std::string>{"_test_", "_wt_"});
    CHECK(m.prefixes.native_prefixes == std::vector<std::string>{"warp_test::"});
    REQUIRE(m.requires_.size() == 2);
    CHECK(m.requires_[0].name == "base"); // sorted by name
    CHECK(m.requires_[1].constraint.text() == ">=1.0, <2");
    CHECK(m.warnings.empty());
}

TEST_CASE("the library path is resolved against the manifest's directory unless it is absolute") {
    auto library_of = [](const std::string &library, const std::filesystem::path &manifest) {
        return parse_manifest("name = \"x\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"" + library + "\"\n", manifest)
            .library_path.native();
    };
    CHECK(library_of("libx.so", "/plugins/demo/plugin.toml") == "/plugins/demo/libx.so");
    CHECK(library_of("lib/x/libx.so", "/plugins/demo/plugin.toml") == "/plugins/demo/lib/x/libx.so");
    CHECK(library_of("/opt/x/libx.so", "/plugins/demo/plugin.toml") == "/opt/x/libx.so");
    CHECK(library_of("libx.so", "/plugin.toml") == "/libx.so");
    // Paths that are not absolute and normal keep parent_path()'s reading.
    CHECK(library_of("libx.so", "demo/plugin.toml") == "demo/libx.so");
    CHECK(library_of("libx.so", "plugin.toml") == "libx.so");
    CHECK(library_of("libx.so", "/plugins/./demo/plugin.toml") == "/plugins/./demo/libx.so");
}

TEST_CASE("manifest errors report file:line:column") {
    CHECK_THAT(error_of("name = \"x\"\nversion = \"1.0\"\nabi = 1\nlibrary = \"l.so\"\n"),
               Catch::Contains("/plugins/demo/plugin.toml:2:11: version '1.0' is not a semantic version"));
    CHECK_THAT(error_of("name = \"x\"\nversion = \"1.0.0\"\nabi = \"one\"\nlibrary = \"l.so\"\n"),
               Catch::Contains("plugin.toml:3:7: 'abi' must be a positive integer"));
    CHECK_THAT(error_of("name = \"bad-name\"\n"), Catch::Contains("plugin.toml:1:8: plugin name 'bad-name' is not a valid identifier"));
    CHECK_THAT(error_of("version = \"1.0.0\"\n"), Catch::Contains("plugin.toml:1:1: missing required key 'name'"));
    CHECK_THAT(error_of("name = \"x\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"l.so\"\n[requires]\ny = \">=1.x\"\n"),
               Catch::Contains("plugin.toml:6:5: requires.y: invalid version constraint '>=1.x'"));
    CHECK_THAT(error_of("name = \"x\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"l.so\"\n[requires]\nx = \"*\"\n"),
               Catch::Contains("requires itself"));
    CHECK_THAT(error_of("name = \"x\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"l.so\"\n[prefixes]\nbuiltins = [\"\"]\n"),
               Catch::Contains("an empty builtin prefix would own every name"));
}

TEST_CASE("TOML syntax errors carry the parser's location") {
    const std::string msg = error_of("name = \"x\"\nversion = = \"1.0.0\"\n");
    CHECK_THAT(msg, Catch::StartsWith("/plugins/demo/plugin.toml:2:"));
}

TEST_CASE("unknown keys are warnings with their location") {
    const PluginManifest m =
        parse_manifest("name = \"x\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"l.so\"\nlicence = \"MIT\"\n", here);
    REQUIRE(m.warnings.size() == 1);
    CHECK_THAT(m.warnings[0], Catch::Contains("plugin.toml:5:1: unknown key 'licence' ignored"));
}

TEST_CASE("read_manifest names an unreadable file") {
    CHECK_THAT(message_of<UserError>([] { read_manifest("/nonexistent/plugin.toml"); }),
               Catch::Contains("/nonexistent/plugin.toml: cannot read plugin manifest"));
}

TEST_CASE("read_manifest_if_present: nothing there is nullopt, anything else reads or fails as read_manifest") {
    weft::test::TempDir dir("manifest_if_present");
    const std::filesystem::path file = dir.path / "plugin.toml";
    CHECK_FALSE(read_manifest_if_present(file).has_value());                 // no such entry
    {
        std::ofstream out(file);
        out << "name = \"demo\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"libdemo.so\"\n";
    }
    CHECK_FALSE(read_manifest_if_present(file / "plugin.toml").has_value()); // a component is a file
    const std::optional<PluginManifest> m = read_manifest_if_present(file);
    REQUIRE(m.has_value());
    CHECK(m->name == "demo");
    CHECK(m->library_path == dir.path / "libdemo.so");
    std::filesystem::create_directory(dir.path / "sub");
    std::filesystem::create_directory(dir.path / "sub" / "plugin.toml");
    CHECK_THAT(message_of<UserError>([&] { read_manifest_if_present(dir.path / "sub" / "plugin.toml"); }),
               Catch::Contains("it is a directory, not a regular file"));
}

TEST_CASE("a manifest read through any spelling of its path records the absolute normal path") {
    weft::test::TempDir dir("manifest_spellings");
    std::filesystem::create_directory(dir.path / "sub");
    const std::filesystem::path file = dir.path / "plugin.toml";
    {
        std::ofstream out(file);
        out << "name = \"demo\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"libdemo.so\"\n";
    }
    const std::string base = dir.path.string();
    for (const std::string &spelling : {base + "/plugin.toml", base + "/./plugin.toml", base + "//plugin.toml",
                                        base + "/sub/../plugin.toml", base + "/sub/./../plugin.toml"}) {
        INFO(spelling);
        const PluginManifest m = read_manifest(spelling);
        CHECK(m.path.native() == base + "/plugin.toml");
        CHECK(m.library_path.native() == base + "/libdemo.so");
        const std::optional<PluginManifest> present = read_manifest_if_present(spelling);
        REQUIRE(present.has_value());
        CHECK(present->path.native() == base + "/plugin.toml");
    }
    // A relative spelling is made absolute against the working directory.
    const std::filesystem::path cwd = std::filesystem::current_path();
    std::filesystem::current_path(dir.path / "sub");
    std::string relative_path;
    try {
        relative_path = read_manifest("../plugin.toml").path.native();
    } catch (...) {
        std::filesystem::current_path(cwd);
        throw;
    }
    std::filesystem::current_path(cwd);
    CHECK(relative_path == base + "/plugin.toml");
}

TEST_CASE("read_input_file reads a file whole in one read or several") {
    weft::test::TempDir dir("read_input_whole");
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{10000}}) {
        const std::filesystem::path file = dir.path / ("f" + std::to_string(size));
        std::string text(size, 'x');
        for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + i % 26);
        {
            std::ofstream out(file, std::ios::binary);
            out << text;
        }
        CHECK(read_input_file(file, 1 << 20, "test input") == text);
        CHECK(read_input_file_if_present(file, 1 << 20, "test input") == text);
        if (size > 0) // exactly at the limit is accepted, one byte past is not
            CHECK(read_input_file(file, size, "test input") == text);
        if (size > 1)
            CHECK_THAT(message_of<UserError>([&] { read_input_file(file, size - 1, "test input"); }),
                       Catch::Contains("larger than the limit"));
    }
}
