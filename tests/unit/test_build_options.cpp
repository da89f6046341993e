#include "test_support.hpp"

#include "weft/build/build_options.hpp"
#include "weft/support/error.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace weft;
using weft::test::message_of;

namespace fs = std::filesystem;

TEST_CASE("merged() follows the seed's example and changes no input") {
    ModuleBuildOptions base;
    base.extra_cuda_include_dirs = {"cuda/base", "shared"};
    base.extra_cuda_preamble = "#define BASE_CUDA 1\n";
    base.extra_cpu_preamble = "#define BASE_CPU 1";
    ModuleBuildOptions addon;
    addon.extra_cuda_include_dirs = {"shared", "cuda/addon"};
    addon.extra_cuda_preamble = "#define ADDON_CUDA 1\n";
    addon.extra_cpu_preamble = "#define ADDON_CPU 1";
    const ModuleBuildOptions base_before = base;
    const ModuleBuildOptions addon_before = addon;

    const ModuleBuildOptions m = base.merged(addon);
    CHECK(m.extra_cuda_include_dirs == std::vector<std::string>{"cuda/base", "shared", "cuda/addon"});
    CHECK(m.extra_cuda_preamble == "#define BASE_CUDA 1\n#define ADDON_CUDA 1\n");
    CHECK(m.extra_cpu_preamble == "#define BASE_CPU 1\n#define ADDON_CPU 1");
    CHECK(base == base_before);
    CHECK(addon == addon_before);
}

TEST_CASE("merged() over several values keeps first occurrences and argument order") {
    ModuleBuildOptions a, b, c;
    a.extra_build_dependencies = {"/x.h"};
    b.extra_build_dependencies = {"/y.h", "/x.h"};
    c.extra_build_dependencies = {"/z.h", "/y.h"};
    a.extra_cpu_include_dirs = {"/i"};
    c.extra_cpu_include_dirs = {"/i", "/j"};
    b.extra_cpu_preamble = "B";
    c.extra_cpu_preamble = "C\n";
    const ModuleBuildOptions m = a.merged(b, c);
    CHECK(m.extra_build_dependencies == std::vector<std::string>{"/x.h", "/y.h", "/z.h"});
    CHECK(m.extra_cpu_include_dirs == std::vector<std::string>{"/i", "/j"});
    CHECK(m.extra_cpu_preamble == "B\nC\n"); // empty pieces add nothing
    CHECK(a.merged().extra_build_dependencies == a.extra_build_dependencies);
}

TEST_CASE("nothing is checked at construction or merge") {
    ModuleBuildOptions o;
    o.extra_cpu_include_dirs = {"relative/dir", "/does/not/exist"};
    CHECK_NOTHROW(o.merged(o));
}

TEST_CASE("resolving checks every path and lists each bad entry with its reason and option") {
    const fs::path dir = fs::temp_directory_path() / "weft_test_resolve";
    fs::create_directories(dir);
    const fs::path file = dir / "dep.h";
    std::ofstream(file) << "#define EXTERNAL_VALUE 1\n";

    EffectiveBuildOptions e;
    e.cpu_include_dirs = {{"relative/include", "module 'm'"}, {dir.string(), "module 'm'"}};
    e.cuda_include_dirs = {{file.string(), "plugin 'colors'"}, {(dir / "missing").string(), "plugin 'colors'"}};
    e.build_dependencies = {{dir.string(), "plugin 'philox'"}, {"dep.h", "module 'm'"}, {file.string(), "module 'm'"}};
    const std::string msg = message_of<UserError>([&] { resolve(e); });
    CHECK_THAT(msg, Catch::Contains("extra_cpu_include_dirs: 'relative/include' (from module 'm'): not absolute"));
    CHECK_THAT(msg, Catch::Contains("cuda_include_dirs: '" + file.string() + "' (from plugin 'colors'): not a directory"));
    CHECK_THAT(msg, Catch::Contains("cuda_include_dirs: '" + (dir / "missing").string() + "' (from plugin 'colors'): does not exist"));
    CHECK_THAT(msg, Catch::Contains("build_dependencies: '" + dir.string() + "' (from plugin 'philox'): not a file"));
    CHECK_THAT(msg, Catch::Contains("extra_build_dependencies: 'dep.h' (from module 'm'): not absolute"));
    CHECK(std::count(msg.begin(), msg.end(), '\n') == 5); // five problems, one line each

    EffectiveBuildOptions good;
    good.cpu_include_dirs = {{dir.string(), "module 'm'"}};
    good.build_dependencies = {{file.string(), "module 'm'"}};
    good.cpu_preamble = {{"#define A 1", "module 'm'"}, {"#define B 2\n", "plugin 'p'"}};
    const ResolvedBuildOptions r = resolve(good);
    CHECK(r.cpu_include_dirs == std::vector<fs::path>{dir});
    REQUIRE(r.build_dependencies.size() == 1);
    CHECK(r.build_dependencies[0].sha256.size() == 64);
    CHECK(r.cpu_preamble_text() == "#define A 1\n#define B 2\n");
    CHECK(r.cpu_preamble[1].source == "plugin 'p'");
    CHECK(r.cuda_preamble_text().empty());
    fs::remove_all(dir);
}

TEST_CASE("effective options keep provenance and equal the plain merge") {
    ModuleBuildOptions own, plugin;
    own.extra_cpu_preamble = "#define OWN 1";
    own.extra_cpu_include_dirs = {"/a"};
    plugin.extra_cpu_preamble = "#include \"p.h\"\n";
    plugin.extra_cpu_include_dirs = {"/a", "/b"};
    const EffectiveBuildOptions e =
        EffectiveBuildOptions::merge({{"module 'm'", own, std::nullopt}, {"plugin 'p'", plugin, std::nullopt}});
    REQUIRE(e.cpu_include_dirs.size() == 2);
    CHECK(e.cpu_include_dirs[0].source == "module 'm'"); // first occurrence wins, with its source
    CHECK(e.cpu_include_dirs[1].source == "plugin 'p'");
    REQUIRE(e.cpu_preamble.size() == 2);
    CHECK(e.cpu_preamble[1].source == "plugin 'p'");
    CHECK(e.flattened() == own.merged(plugin));
}
