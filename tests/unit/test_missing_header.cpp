// A preamble header that is not found: the compile error lists the include
// directories that were searched (issue 19, vendor kit round 2). A preamble
// cannot hang the compile on a file that is not a file, nor make errors blame
// another file (issue 18).
#include "test_support.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/support/error.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

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

namespace {

const char *const kernel_source = "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n"
                                  "    a[wp.tid()] = 1.0\n";

/// A host with a fresh cache under `root` whose module `name` has `preamble`.
struct PreambleHost {
    fs::path root;
    std::unique_ptr<Host> host;
    PreambleHost(const std::string &dir, const std::string &name, const std::string &preamble)
        : root(fs::temp_directory_path() / (dir + "_" + std::to_string(::getpid()))) {
        fs::remove_all(root);
        fs::create_directories(root);
        HostOptions o = test::test_host_options();
        o.cache_dir = root / "cache";
        o.quiet = true;
        host = std::make_unique<Host>(o);
        ModuleBuildOptions options;
        options.extra_cpu_preamble = preamble;
        host->set_module_options(name, options);
    }
    ~PreambleHost() {
        host.reset();
        std::error_code ec;
        fs::remove_all(root, ec);
    }
};

} // namespace

TEST_CASE("a preamble that includes a FIFO is refused as not a regular file, without waiting for a writer") {
    PreambleHost h("weft_preamble_fifo", "reads_fifo", "");
    const fs::path fifo = h.root / "header.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    ModuleBuildOptions options;
    options.extra_cpu_preamble = "#include \"" + fifo.string() + "\"\n";
    h.host->set_module_options("reads_fifo", options);
    // Should the include block (the bug), a writer that comes and goes after a
    // while ends it, so that the test fails instead of hanging.
    std::atomic<bool> done{false};
    std::thread rescuer([&] {
        for (int i = 0; i < 200 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (done) return;
        const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) ::close(fd);
    });
    const std::string message =
        test::message_of<backend::CompileError>([&] { h.host->load_module_source("reads_fifo", kernel_source); });
    done = true;
    rescuer.join();
    CHECK_THAT(message, Catch::Contains("preamble:1:10: error: cannot open file '" + fifo.string() + "'"));
    CHECK_THAT(message, Catch::Contains("note: '" + fifo.string() +
                                        "' is a FIFO, not a regular file: #include reads only regular files"));
    // The host is still usable.
    h.host->set_module_options("reads_fifo", {});
    CHECK_NOTHROW(h.host->load_module_source("reads_fifo", kernel_source));
}

TEST_CASE("a #line directive in a preamble is refused, naming the preamble's owner and line") {
    for (const std::string directive : {"#line 7 \"kernel.py\"", "  # /* c */ 12 \"kernel.py\"", "#\\\nline 3"}) {
        INFO(directive);
        PreambleHost h("weft_preamble_line", "lines", "#define OK 1\n// #line 1 in a comment\n" + directive + "\nint x;\n");
        CHECK_THAT(test::message_of<UserError>([&] { h.host->load_module_source("lines", kernel_source); }),
                   Catch::Contains("invalid module build options:\n  extra_cpu_preamble (from module 'lines'): line 3 "
                                   "is a #line directive, which would make compiler errors name another file than "
                                   "the preamble"));
    }
    PreambleHost ok("weft_preamble_line_ok", "fine", "#define LINE_TEXT \"#line 1\"\n/* #line 2\n#line 3 */\n");
    CHECK_NOTHROW(ok.host->load_module_source("fine", kernel_source));
}

TEST_CASE("a preamble macro that breaks the generated code is named as the preamble's") {
    PreambleHost h("weft_preamble_macro", "macro", "#define weft broken\n");
    const std::string message =
        test::message_of<backend::CompileError>([&] { h.host->load_module_source("macro", kernel_source); });
    CHECK_THAT(message, Catch::Contains("module 'macro' does not compile for cpu:\nmodule 'macro' preamble:3:2: error: "
                                        "this preamble defines the macro weft, a name the generated code uses"));
}
