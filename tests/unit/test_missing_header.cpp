// A preamble header that is not found: the compile error lists the include
// directories that were searched (issue 19, vendor kit round 2).
#include "test_support.hpp"

#include "weft/backend/cpu_compiler.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace weft;
namespace fs = std::filesystem;

TEST_CASE("a missing preamble header lists the include directories searched") {
    const fs::path root = fs::temp_directory_path() / "weft_missing_header";
    fs::remove_all(root);
    fs::create_directories(root / "include");
    HostOptions o = test::test_host_options();
    o.cache_dir = root / "cache";
    o.quiet = true;
    Host host(o);
    ModuleBuildOptions options;
    options.extra_cpu_include_dirs = {(root / "include").string()};
    options.extra_cpu_preamble = "#include <vendor_missing_header.h>\n";
    host.set_module_options("needs_header", options);
    const std::string message = test::message_of<backend::CompileError>([&] {
        host.load_module_source("needs_header", "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n"
                                                "    a[wp.tid()] = 1.0\n");
    });
    CHECK_THAT(message, Catch::Contains("'vendor_missing_header.h' file not found"));
    CHECK_THAT(message, Catch::Contains("(include directories searched:\n  " + (root / "cache" / "v1" / "runtime-headers").string()));
    CHECK_THAT(message, Catch::Contains("\n  " + (root / "include").string() + ")\n(generated source, for reference: "));
    fs::remove_all(root);
}
