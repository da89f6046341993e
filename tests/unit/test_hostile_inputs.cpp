// Inputs built to break the host: out-of-range manifest values, nesting that
// overflows a recursive parser, files that are not files, truncated and foreign
// libraries, strings from plugins that are not UTF-8, and kernel sources full
// of bytes that do not belong in source. Each case once crashed, hung or
// misreported; each must now be one clear error that leaves the host usable.
#include "test_support.hpp"

#include "weft/kernel/frontend.hpp"
#include "weft/manifest/manifest.hpp"
#include "weft/registry/registry.hpp"
#include "weft/support/error.hpp"
#include "weft/support/text.hpp"

#include <catch2/catch.hpp>
#include <weft/plugin.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

using namespace weft;
using weft::test::message_of;
using weft::test::plugin_dir;
using weft::test::test_host_options;

namespace fs = std::filesystem;

namespace {

const fs::path here = "/plugins/demo/plugin.toml";
const std::string header = "name = \"demo\"\nversion = \"1.0.0\"\n";

std::string manifest_error(const std::string &text) {
    return message_of<UserError>([&] { parse_manifest(text, here); });
}

/// A fresh directory under the system's temporary directory, removed afterwards.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string &name) {
        path = fs::temp_directory_path() / ("weft_hostile_" + name + "_" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
};

void write_file(const fs::path &p, const std::string &text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

std::string read_file(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Unblocks a reader stuck opening `fifo` (the bug under test), so that a
/// regression fails the test instead of hanging the suite.
class FifoRescuer {
public:
    explicit FifoRescuer(fs::path fifo)
        : thread_([this, fifo = std::move(fifo)] {
              const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
              while (!done_ && std::chrono::steady_clock::now() < deadline) {
                  // Succeeds only while a reader has the FIFO open.
                  const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
                  if (fd >= 0) {
                      ::close(fd);
                      return;
                  }
                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
              }
          }) {}
    ~FifoRescuer() {
        done_ = true;
        thread_.join();
    }

private:
    std::atomic<bool> done_{false};
    std::thread thread_;
};

/// The manifest of a test plugin, with its library name resolved (as built).
std::string built_manifest(const std::string &plugin) { return read_file(plugin_dir(plugin) / "plugin.toml"); }

std::string library_name_of(const std::string &plugin) {
    return read_manifest(plugin_dir(plugin) / "plugin.toml").library;
}

std::vector<std::string> kernel_errors(const std::string &source, std::size_t limit = 50) {
    Host host(test_host_options());
    kernel::FrontendOptions o;
    o.error_limit = limit;
    const kernel::FrontendResult r = kernel::check_module(kernel::SourceFile("k.py", source), host.registry(), o);
    std::vector<std::string> out;
    for (const kernel::Diagnostic &d : r.diagnostics)
        if (d.severity == kernel::Diagnostic::Severity::Error)
            out.push_back(std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " + d.message);
    return out;
}

kernel::FrontendResult check_text(const std::string &source, std::size_t limit = 50) {
    Host host(test_host_options());
    kernel::FrontendOptions o;
    o.error_limit = limit;
    return kernel::check_module(kernel::SourceFile("k.py", source), host.registry(), o);
}

} // namespace

// ---------------------------------------------------------------------------
// Manifests

TEST_CASE("hostile manifest: an abi past 32 bits is an error naming the field, not its truncation") {
    // 4294967297 = 2^32 + 1 was accepted as ABI 1.
    CHECK_THAT(manifest_error(header + "abi = 4294967297\nlibrary = \"l.so\"\n"),
               Catch::Contains("plugin.toml:3:7: 'abi' = 4294967297 is out of range (1 to 4294967295)"));
    CHECK(parse_manifest(header + "abi = 4294967295\nlibrary = \"l.so\"\n", here).abi == 4294967295u);
    // Past int64 is toml++'s own error, still at the value's position.
    CHECK_THAT(manifest_error(header + "abi = 99999999999999999999\nlibrary = \"l.so\"\n"), Catch::StartsWith("/plugins/demo/plugin.toml:3:"));
}

TEST_CASE("hostile manifest: deep dotted keys and brackets are refused before toml++ recurses") {
    std::string deep = "a";
    for (int i = 0; i < 50000; ++i) deep += ".a";
    CHECK(manifest_error(header + deep + " = 1\n") ==
          "/plugins/demo/plugin.toml:3:66: dotted key nested more than 32 levels deep");
    CHECK_THAT(manifest_error(header + "[" + deep + "]\n"), Catch::Contains("dotted key nested more than 32 levels deep"));
    CHECK_THAT(manifest_error(header + "x = " + std::string(50000, '[') + "\n"),
               Catch::Contains("plugin.toml:3:37: brackets nested more than 32 levels deep"));
    CHECK_THAT(manifest_error(header + "x = " + std::string(50000, '{') + "\n"),
               Catch::Contains("brackets nested more than 32 levels deep"));
    const std::string huge = header + "description = \"" + std::string(2 << 20, 'x') + "\"\n";
    CHECK_THAT(manifest_error(huge), Catch::Contains("plugin manifest is " + std::to_string(huge.size()) +
                                                     " bytes, more than the limit of 1048576"));

    // Dots in strings, comments, floats and dates are not key depth.
    std::string floats = "[";
    for (int i = 0; i < 100; ++i) floats += "1.5, ";
    const std::string dotted_text(100, '.');
    const PluginManifest m = parse_manifest(header + "abi = 1\nlibrary = \"l.so\"\ndescription = \"" + dotted_text +
                                                "\" # " + dotted_text + "\nfloats = " + floats + "2.5]\nwhen = 1979-05-27T07:32:00.999\n" +
                                                "'lit' = '''" + dotted_text + "'''\n",
                                            here);
    CHECK(m.description == dotted_text);
    CHECK(m.warnings.size() == 3); // floats, when, lit: unknown keys, parsed
}

TEST_CASE("hostile manifest: discovery reports one bad manifest and lists the rest") {
    TempDir dir("discovery");
    fs::create_directories(dir.path / "good");
    write_file(dir.path / "good" / "plugin.toml", built_manifest("wt_color"));
    fs::create_directories(dir.path / "deep");
    std::string deep = "name = \"deep\"\na";
    for (int i = 0; i < 50000; ++i) deep += ".a";
    write_file(dir.path / "deep" / "plugin.toml", deep + " = 1\n");
    fs::create_directories(dir.path / "fifo");
    REQUIRE(::mkfifo((dir.path / "fifo" / "plugin.toml").c_str(), 0600) == 0);
    fs::create_directories(dir.path / "dir" / "plugin.toml");

    HostOptions o;
    o.use_environment = false;
    o.search_path = {dir.path};
    Host host(o);
    FifoRescuer rescuer(dir.path / "fifo" / "plugin.toml");
    const Discovery d = host.discover();
    REQUIRE(d.plugins.size() == 1);
    CHECK(d.plugins[0].name == "wt_color");
    REQUIRE(d.errors.size() == 3);
    CHECK_THAT(d.errors[0], Catch::Contains("deep/plugin.toml:2:66: dotted key nested more than 32 levels deep"));
    CHECK_THAT(d.errors[1], Catch::Contains("dir/plugin.toml: cannot read plugin manifest: it is a directory, not a regular file"));
    CHECK_THAT(d.errors[2], Catch::Contains("fifo/plugin.toml: cannot read plugin manifest: it is a FIFO, not a regular file"));
}

TEST_CASE("hostile manifest: a FIFO, a device or an oversized file is refused without reading it") {
    TempDir dir("manifest_files");
    const fs::path fifo = dir.path / "plugin.toml";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    {
        FifoRescuer rescuer(fifo);
        CHECK_THAT(message_of<UserError>([&] { read_manifest(fifo); }),
                   Catch::Contains(fifo.string() + ": cannot read plugin manifest: it is a FIFO, not a regular file"));
    }
    CHECK_THAT(message_of<UserError>([&] { read_manifest("/dev/zero"); }),
               Catch::Contains("/dev/zero: cannot read plugin manifest: it is a character device, not a regular file"));
    const fs::path big = dir.path / "big.toml";
    write_file(big, header + "description = \"" + std::string(2 << 20, 'x') + "\"\n");
    CHECK_THAT(message_of<UserError>([&] { read_manifest(big); }),
               Catch::Contains("big.toml: cannot read plugin manifest: it is larger than the limit of 1048576 bytes"));
    const fs::path loop = dir.path / "loop.toml";
    fs::create_symlink(loop, loop);
    CHECK_THAT(message_of<UserError>([&] { read_manifest(loop); }),
               Catch::Contains("loop.toml: cannot read plugin manifest: it is a symbolic link loop"));
}

// ---------------------------------------------------------------------------
// Libraries

TEST_CASE("hostile library: truncated, foreign or non-ELF files are refused before dlopen") {
    const std::string lib = library_name_of("wt_color");
    const std::string image = read_file(plugin_dir("wt_color") / lib);
    REQUIRE(image.size() > 4096);
    TempDir dir("library");
    write_file(dir.path / "plugin.toml", built_manifest("wt_color"));
    Host host(test_host_options());
    auto load_error = [&](const std::string &bytes) {
        write_file(dir.path / lib, bytes);
        return message_of<PluginError>([&] { host.load(dir.path); });
    };

    // Cut mid-file: the loader would map segments past the end and fault (SIGBUS).
    const std::string cut = load_error(image.substr(0, image.size() / 2));
    CHECK_THAT(cut, Catch::StartsWith("plugin 'wt_color': library " + (dir.path / lib).string() +
                                      ": not a valid shared library: the file is " + std::to_string(image.size() / 2) +
                                      " bytes"));
    CHECK_THAT(cut, Catch::Contains("(truncated?)"));
    CHECK_THAT(load_error(image.substr(0, 40)),
               Catch::Contains("not a valid shared library: the file is 40 bytes, shorter than an ELF header"));
    CHECK_THAT(load_error("#!/bin/sh\necho not a library\n"),
               Catch::Contains("not a valid shared library: no ELF header (the file is 29 bytes and does not start with \\x7FELF)"));
    CHECK_THAT(load_error(""), Catch::Contains("not a valid shared library: no ELF header (the file is 0 bytes"));
    std::string foreign = image;
    foreign[18] = static_cast<char>(0xB7); // e_machine = EM_AARCH64 (183) or, on AArch64, see below
    foreign[19] = 0;
    if (static_cast<unsigned char>(image[18]) == 0xB7) foreign[18] = 62; // EM_X86_64
    CHECK_THAT(load_error(foreign), Catch::Contains("not a valid shared library: it is built for ELF machine"));
    std::string other_class = image;
    other_class[4] = 1; // ELFCLASS32
    CHECK_THAT(load_error(other_class), Catch::Contains("not a valid shared library: it is a 32-bit ELF file; this host is 64-bit"));

    // Nothing of the failures stays behind: the real plugin still loads.
    CHECK(host.plugins().empty());
    CHECK(host.load(plugin_dir("wt_color")).name() == "wt_color");
}

TEST_CASE("hostile library: in a batch of plugins each failure reads as when the plugin loads alone") {
    // A batch goes through load order, requirement failures and one
    // transaction per plugin; each failure must still be the plugin's own,
    // with the message it has alone, and the rest load.
    TempDir dir("batch");
    const std::string lib = library_name_of("wt_narrowing");
    const std::string image = read_file(plugin_dir("wt_narrowing") / lib);
    fs::create_directories(dir.path / "cut");
    write_file(dir.path / "cut" / "plugin.toml", built_manifest("wt_narrowing"));
    write_file(dir.path / "cut" / lib, image.substr(0, image.size() / 2));
    fs::create_directories(dir.path / "missing");
    write_file(dir.path / "missing" / "plugin.toml",
               "name = \"missing_lib\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"libmissing.so\"\n");

    std::vector<fs::path> batch{dir.path / "cut", dir.path / "missing"};
    for (const char *name : {"wt_color", "wt_pixel", "wt_arrays", "wt_adjoint", "struct_sizes",
                             "ansi_description", "future_fields", "same_a", "same_b",
                             "bad_utf8_doc", "bad_utf8_info", "init_fails", "init_error", "name_mismatch", "no_entry",
                             "missing_req", "lying_abi", "future_abi", "out_of_prefix", "ctor_marker"})
        batch.push_back(plugin_dir(name));

    HostOptions options = test_host_options();
    options.search_path.clear();
    Host together(options);
    const LoadReport all = together.load_all(batch);

    std::map<std::string, std::string> alone_failures;
    std::set<std::string> alone_loaded;
    for (const fs::path &p : batch) {
        Host host(options);
        const LoadReport one = host.load_all({p}, batch);
        for (const LoadedPlugin *l : one.loaded) alone_loaded.insert(l->name());
        for (const PluginFailure &f : one.failures) alone_failures[f.plugin] = f.message;
    }
    std::set<std::string> loaded;
    for (const LoadedPlugin *l : all.loaded) loaded.insert(l->name());
    std::map<std::string, std::string> failures;
    for (const PluginFailure &f : all.failures) failures[f.plugin] = f.message;

    for (auto &[k, v] : failures) UNSCOPED_INFO("together " << k << ": " << v);
    for (auto &[k, v] : alone_failures) UNSCOPED_INFO("alone " << k << ": " << v);
    CHECK(loaded == alone_loaded);
    CHECK(failures == alone_failures);
    CHECK(loaded == std::set<std::string>{"ansi_description", "ctor_marker", "same_a", "same_b", "struct_sizes",
                                          "wt_adjoint", "wt_arrays", "wt_color", "wt_pixel"});
    REQUIRE(failures.count("wt_narrowing") == 1);
    CHECK_THAT(failures["wt_narrowing"], Catch::Contains("not a valid shared library: the file is " +
                                                          std::to_string(image.size() / 2) + " bytes"));
    REQUIRE(failures.count("missing_lib") == 1);
    CHECK_THAT(failures["missing_lib"], Catch::EndsWith("libmissing.so named by " +
                                                         (dir.path / "missing" / "plugin.toml").string() +
                                                         " does not exist"));
    // The batch's host is usable: what failed left nothing, what loaded is there.
    CHECK(together.registry().overloads("_bud_good").empty());
    CHECK(together.plugin("wt_color") != nullptr);
}

TEST_CASE("hostile library: a directory, a symlink loop or a dangling link is named for what it is") {
    TempDir dir("library_kind");
    auto with_library = [&](const std::string &name) {
        write_file(dir.path / "plugin.toml",
                   "name = \"kinds\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"" + name + "\"\n");
        Host host(test_host_options());
        return message_of<PluginError>([&] { host.load(dir.path); });
    };
    fs::create_directories(dir.path / "libdir.so");
    CHECK_THAT(with_library("libdir.so"), Catch::Contains("libdir.so named by " + (dir.path / "plugin.toml").string() +
                                                          " is a directory, not a file"));
    fs::create_symlink(dir.path / "libloop.so", dir.path / "libloop.so");
    CHECK_THAT(with_library("libloop.so"), Catch::Contains("libloop.so named by " + (dir.path / "plugin.toml").string() +
                                                           " is a symbolic link loop, not a file"));
    fs::create_symlink(dir.path / "gone.so", dir.path / "libdangling.so");
    CHECK_THAT(with_library("libdangling.so"), Catch::Contains("libdangling.so named by " +
                                                               (dir.path / "plugin.toml").string() +
                                                               " is a dangling symbolic link, not a file"));
    CHECK_THAT(with_library("libmissing.so"), Catch::EndsWith("libmissing.so named by " +
                                                              (dir.path / "plugin.toml").string() + " does not exist"));
}

// ---------------------------------------------------------------------------
// Strings a plugin passes across the ABI

TEST_CASE("hostile plugin: an info string that is not UTF-8 is refused, naming plugin and field") {
    Host host(test_host_options());
    CHECK_THAT(message_of<PluginError>([&] { host.load(plugin_dir("bad_utf8_info")); }),
               Catch::StartsWith("plugin 'bad_utf8_info': library ") &&
                   Catch::EndsWith(": weft_plugin_info.sdk_version is not valid UTF-8 (byte 0xC0 at offset 3)"));
    CHECK(host.plugins().empty());
    CHECK(host.load(plugin_dir("wt_color")).name() == "wt_color");
}

TEST_CASE("hostile plugin: a registered string that is not UTF-8 rejects the plugin and rolls it back") {
    Host host(test_host_options());
    CHECK_THAT(message_of<PluginError>([&] { host.load(plugin_dir("bad_utf8_doc")); }),
               Catch::Contains("plugin 'bad_utf8_doc': registration rejected: builtin '_bud_bad': doc is not valid "
                               "UTF-8 (byte 0xE9 at offset 3); nothing of the plugin was registered"));
    CHECK(host.registry().overloads("_bud_good").empty());
    CHECK(host.load(plugin_dir("wt_color")).name() == "wt_color");
}

TEST_CASE("hostile plugin: a type name nested 30,000 deep is refused at the ABI, not parsed until the stack runs out") {
    Host host(test_host_options());
    CHECK_THAT(message_of<PluginError>([&] { host.load(plugin_dir("deep_type")); }),
               Catch::Contains("plugin 'deep_type': registration rejected: builtin '_dt_deep': parameter type is "
                               "longer than the 1024 bytes a kernel type name may have (starts 'array(array(") &&
                   Catch::EndsWith("nothing of the plugin was registered"));
    CHECK(host.registry().overloads("_dt_deep").empty());
    CHECK(host.load(plugin_dir("wt_color")).name() == "wt_color");
}

TEST_CASE("hostile plugin: a type name that only starts like one checked before in the init is still checked") {
    Host host(test_host_options());
    CHECK_THAT(message_of<PluginError>([&] { host.load(plugin_dir("repeated_types")); }),
               Catch::Contains("plugin 'repeated_types': registration rejected: builtin '_rt_bad': parameter type is "
                               "not valid UTF-8 (byte 0xC0 at offset 7); nothing of the plugin was registered"));
    CHECK(host.registry().overloads("_rt_a").empty());
    CHECK(host.load(plugin_dir("wt_color")).name() == "wt_color");
}

TEST_CASE("registry: an array of arrays is refused before its dtype is resolved, however deep") {
    Registry registry;
    std::string deep;
    for (int i = 0; i < 30000; ++i) deep += "array(";
    deep += "float32" + std::string(30000, ')');
    CHECK_THAT(message_of<RegistrationError>([&] { registry.parse_type(deep); }),
               Catch::EndsWith("': an array's dtype cannot be an array"));
    CHECK_THAT(message_of<RegistrationError>([&] { registry.parse_type("array(dtype=array(float32))"); }),
               Catch::Equals("unknown kernel type 'array(dtype=array(float32))': an array's dtype cannot be an array"));
    CHECK(registry.parse_type("array(dtype=float32, ndim=2)").name() == "array(dtype=float32, ndim=2)");
}

TEST_CASE("hostile plugin: calls through a host context kept past init are refused, not run on a dead frame") {
    TempDir dir("late_caller");
    const fs::path out = dir.path / "late.txt";
    ::setenv("WEFT_TEST_LATE_CALLER_OUT", out.c_str(), 1);
    {
        Host host(test_host_options());
        const LoadedPlugin &p = host.load(plugin_dir("late_caller"));
        CHECK(p.builtins.size() == 1);
        CHECK(host.registry().overloads("_lc_late").empty());
    } // unloads the library: its destructor calls back into the host that is gone
    ::unsetenv("WEFT_TEST_LATE_CALLER_OUT");
    CHECK(read_file(out) == std::to_string(WEFT_ERROR_UNSUPPORTED) +
                                " a host function was called after weft_plugin_init returned: the host API "
                                "accepts calls only during init");
    // The host still loads plugins, the same one included.
    Host host(test_host_options());
    CHECK(host.load(plugin_dir("late_caller")).builtins.size() == 1);
}

TEST_CASE("UTF-8 validation rejects overlong forms, surrogates and values past U+10FFFF") {
    CHECK(find_invalid_utf8("plain ascii") == std::string_view::npos);
    CHECK(find_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF") == std::string_view::npos);
    CHECK(find_invalid_utf8("a\xC0\xAF") == 1);         // overlong '/'
    CHECK(find_invalid_utf8("ab\xE0\x80\xAF") == 2);    // overlong '/' in three bytes
    CHECK(find_invalid_utf8("\xED\xA0\x80") == 0);      // U+D800
    CHECK(find_invalid_utf8("\xF4\x90\x80\x80") == 0);  // U+110000
    CHECK(find_invalid_utf8("x\x80") == 1);             // stray continuation
    CHECK(find_invalid_utf8("xy\xE2\x82") == 2);        // truncated
    // Past the eight-byte ASCII words, at and across their boundaries.
    CHECK(find_invalid_utf8("abcdefgh\x80") == 8);
    CHECK(find_invalid_utf8("abcdefg\xC0\xAF") == 7);
    CHECK(find_invalid_utf8("abcdefghijklmnopq\xE2\x82") == 17);
    CHECK(find_invalid_utf8("abcdef\xC3\xA9ghijklmnop\xFF") == 18);
    CHECK(find_invalid_utf8("abcdefghijklmnop") == std::string_view::npos);
    CHECK(escape_for_display(std::string("a\0b\x1B[31m\tc\x7F\xFF", 12)) == "a\\x00b\\x1B[31m\tc\\x7F\\xFF");
    CHECK(escape_for_display("\xE2\x80\xAE" "evil caf\xC3\xA9") == "\\u202Eevil caf\xC3\xA9");
}

// ---------------------------------------------------------------------------
// Kernel sources

TEST_CASE("hostile kernel source: overlong and surrogate UTF-8 is invalid UTF-8 at its position") {
    // C0 AF decoded leniently is U+002F ('/'), which was reported as an invalid character.
    CHECK(kernel_errors("x = \xC0\xAF\n") ==
          std::vector<std::string>{"1:5: invalid UTF-8 (overlong encoding: bytes C0 AF); kernel source must be UTF-8"});
    CHECK(kernel_errors("x = 1\ny = \xED\xA0\x80\n") ==
          std::vector<std::string>{"2:5: invalid UTF-8 (encoded surrogate: bytes ED A0 80); kernel source must be UTF-8"});
    CHECK(kernel_errors("x = \xF4\x90\x80\x80\n") ==
          std::vector<std::string>{"1:5: invalid UTF-8 (code point beyond U+10FFFF: bytes F4 90 80 80); kernel source must be UTF-8"});
    CHECK(kernel_errors("x = \x80\n") ==
          std::vector<std::string>{"1:5: invalid UTF-8 (unexpected continuation byte: bytes 80); kernel source must be UTF-8"});
    // Python refuses the whole file, comments and strings included.
    CHECK(kernel_errors("x = 1  # caf\xE9\n") ==
          std::vector<std::string>{"1:13: invalid UTF-8 (truncated sequence: bytes E9); kernel source must be UTF-8"});
    CHECK(kernel_errors("X = 'a\xC0\xAF'\n") ==
          std::vector<std::string>{"1:7: invalid UTF-8 (overlong encoding: bytes C0 AF); kernel source must be UTF-8"});
    // Valid UTF-8 in comments and strings is fine; outside them it names the character.
    CHECK(kernel_errors("import warp as wp\n@wp.kernel\ndef k():\n    print('caf\xC3\xA9')  # \xE2\x82\xAC\n").empty());
    CHECK(kernel_errors("x = \xC3\xA9\n") ==
          std::vector<std::string>{"1:5: invalid character U+00E9 (only ASCII is allowed outside strings and comments)"});
    // A backslash before a non-ASCII character keeps the character whole (Python only warns).
    CHECK(kernel_errors("import warp as wp\n@wp.kernel\ndef k():\n    print('\\\xC3\xA9')\n    print(r'C:\\\xC3\x9Crsula')\n")
              .empty());
}

TEST_CASE("hostile kernel source: a lone CR ends a line, as in Python") {
    const std::string cr = "import warp as wp\r@wp.kernel\rdef k(a: wp.array(dtype=float)):\r    i = wp.tid()\r"
                           "    a[i] = undefined_name\r";
    CHECK(kernel_errors(cr) == std::vector<std::string>{"5:12: name 'undefined_name' is not defined"});
    // Mixed endings count one line each; CRLF is one line end, not two.
    const std::string mixed = "import warp as wp\r\n@wp.kernel\rdef k(a: wp.array(dtype=float)):\n    i = wp.tid()\r\n"
                              "\r    a[i] = undefined_name\n";
    CHECK(kernel_errors(mixed) == std::vector<std::string>{"6:12: name 'undefined_name' is not defined"});
    const kernel::SourceFile f("k.py", "one\rtwo\r\nthree\nfour\r");
    CHECK(f.line(1) == "one");
    CHECK(f.line(2) == "two");
    CHECK(f.line(3) == "three");
    CHECK(f.line(4) == "four");
    CHECK(f.line(5).empty());
    const kernel::FrontendResult r = check_text(cr);
    CHECK_THAT(r.formatted, Catch::Contains("k.py:5:12: error: name 'undefined_name' is not defined\n"
                                            "        a[i] = undefined_name\n"
                                            "               ^\n"));
}

TEST_CASE("hostile kernel source: control bytes are escaped in diagnostics, never echoed raw") {
    static const char source[] = "x = 1\ny = \x1B\x07 + \0\n";
    const kernel::FrontendResult r = check_text(std::string(source, sizeof source - 1));
    CHECK(r.formatted.find('\x1B') == std::string::npos);
    CHECK(r.formatted.find('\x07') == std::string::npos);
    CHECK(r.formatted.find('\0') == std::string::npos);
    CHECK_THAT(r.formatted, Catch::Contains("k.py:2:5: error: invalid character U+001B\n"
                                            "    y = \\x1B\\x07 + \\x00\n"
                                            "        ^\n"));
    // The caret counts an escape's width: it sits under the NUL's \x00.
    CHECK_THAT(r.formatted, Catch::Contains("k.py:2:10: error: source code cannot contain null bytes\n"
                                            "    y = \\x1B\\x07 + \\x00\n"
                                            "                   ^\n"));
    // A message that quotes source text is escaped as well.
    kernel::SourceFile f("k.py", "x\n");
    kernel::DiagnosticEngine d(f);
    d.error(kernel::SourceLocation{1, 1}, "name '\x1B]0;pwned\x07' is not defined");
    CHECK(d.format_all() == "k.py:1:1: error: name '\\x1B]0;pwned\\x07' is not defined\n    x\n    ^\n");
}

TEST_CASE("hostile kernel source: a thousand candidates are cut at the message budget") {
    // A module can define any number of overloads, and a failed call lists them all.
    kernel::SourceFile f("k.py", "x\n");
    kernel::DiagnosticEngine d(f);
    d.error(kernel::SourceLocation{1, 1}, "m; candidates:", std::vector<std::string>(1000, std::string(50, 'c')));
    const std::string out = d.format_all();
    CHECK(out.size() < kernel::DiagnosticEngine::max_message_bytes + 200);
    CHECK_THAT(out, Catch::EndsWith("\n    " + std::string(36, 'c') + "...\n    ...\n    x\n    ^\n"));
}

TEST_CASE("hostile kernel source: 100,000 NULs give a bounded report") {
    // One line of NULs: one error for the run, its line shown as a window.
    const kernel::FrontendResult run = check_text("x = " + std::string(100000, '\0') + "\n");
    REQUIRE(run.diagnostics.size() == 1);
    CHECK(run.diagnostics[0].message == "source code cannot contain null bytes (100000 in a row)");
    CHECK(run.formatted.size() < 1000);

    // NULs apart from each other: 50 errors (the default limit), then a line that says so.
    std::string spaced;
    for (int i = 0; i < 100000; ++i) spaced += std::string("\0 ", 2);
    const kernel::FrontendResult r = check_text(spaced + "\n");
    CHECK(r.diagnostics.size() == 50);
    CHECK(r.formatted.size() < 50 * 1000);
    CHECK_THAT(r.formatted, Catch::EndsWith("\nk.py: stopped at the error limit (50 errors)\n"));

    // No limit: every error is kept, and the printed report stops at its byte cap.
    const kernel::FrontendResult all = check_text(spaced + "\n", 0);
    CHECK(all.diagnostics.size() >= 100000);
    CHECK(all.formatted.size() < kernel::DiagnosticEngine::max_report_bytes + 1000);
    CHECK_THAT(all.formatted, Catch::Contains(" more errors not shown (the report is cut at 262144 bytes)\n"));
}

TEST_CASE("error limit 0 keeps every error") {
    std::string source;
    for (int i = 0; i < 120; ++i) source += "x" + std::to_string(i) + " = $\n";
    CHECK(kernel_errors(source, 0).size() == 120);
    CHECK(kernel_errors(source, 7).size() == 7);
}

TEST_CASE("hostile kernel source: a directory, a FIFO or a device is not a kernel file") {
    Host host(test_host_options());
    TempDir dir("kernel_files");
    CHECK_THAT(message_of<UserError>([&] { kernel::check_file(dir.path.string(), host.registry()); }),
               Catch::Contains(dir.path.string() + ": cannot read kernel source: it is a directory, not a regular file"));
    CHECK_THAT(message_of<UserError>([&] { kernel::check_file("/dev/zero", host.registry()); }),
               Catch::Contains("/dev/zero: cannot read kernel source: it is a character device, not a regular file"));
    const fs::path fifo = dir.path / "k.py";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    {
        FifoRescuer rescuer(fifo);
        CHECK_THAT(message_of<UserError>([&] { kernel::check_file(fifo.string(), host.registry()); }),
                   Catch::Contains("k.py: cannot read kernel source: it is a FIFO, not a regular file"));
        CHECK_THAT(message_of<UserError>([&] { host.load_module(fifo); }),
                   Catch::Contains("k.py: cannot read kernel source: it is a FIFO, not a regular file"));
    }
    CHECK_THAT(message_of<UserError>([&] { kernel::check_file((dir.path / "missing.py").string(), host.registry()); }),
               Catch::Contains("missing.py: cannot read kernel source: No such file or directory"));
}

TEST_CASE("hostile module names: paths are not names, and nothing is written for them") {
    const fs::path root = fs::temp_directory_path() / ("weft_hostile_names_" + std::to_string(::getpid()));
    fs::remove_all(root);
    HostOptions o = test_host_options();
    o.cache_dir = root / "cache";
    Host host(o);
    const std::string source = "import warp as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[wp.tid()] = 1.0\n";
    for (const std::string &name : std::vector<std::string>{"../../outside", "/tmp/absolute", "a/b", "a..b", ".a", "a.", "1abc", "", "a-b",
                                   "a\nb", std::string(201, 'a')})
        CHECK_THAT(message_of<UserError>([&] { host.load_module_source(name, source); }),
                   Catch::EndsWith("is not a module name: a module name is identifiers (a letter or '_', then letters, "
                                   "digits or '_') joined by '.', at most 200 characters"));
    CHECK(message_of<UserError>([&] { host.module("../x"); }).rfind("'../x' is not a module name", 0) == 0);
    CHECK_THAT(message_of<UserError>([&] { host.load_module_source("a\nb", source); }), Catch::StartsWith("'a\\x0Ab' is not"));
    CHECK_FALSE(fs::exists(root / "outside"));
    CHECK_FALSE(fs::exists(fs::temp_directory_path() / "outside"));
    // Dotted names (unique kernels' modules are named so) and leading underscores are names.
    CHECK(host.load_module_source("pkg.sub_2._m", source).kernel("k").name() == "k");
    CHECK(is_module_name(std::string(200, 'a')));
    // A file whose stem is not a name is loaded under a name given for it.
    fs::create_directories(root);
    { std::ofstream(root / "my-kernels.py") << source; }
    CHECK_THAT(message_of<UserError>([&] { host.load_module(root / "my-kernels.py"); }),
               Catch::StartsWith("'my-kernels' (the stem of " + (root / "my-kernels.py").string() +
                                 ") is not a module name") && Catch::EndsWith("; name the module explicitly"));
    fs::remove_all(root);
}
