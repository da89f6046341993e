// The plugin trust policy: allow-list and signed plugins, checked on the
// bytes that are loaded, before any plugin code runs.
#include "test_support.hpp"

#include "host/loader_internal.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/trust/plugin_trust.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace weft;
using weft::test::message_of;

namespace {

std::string slurp(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const fs::path &p, const std::string &bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A scratch directory with copies of test plugins and keys made by the
/// openssl command line, as the docs tell users to make them.
struct TrustFixture {
    fs::path root;
    explicit TrustFixture(const std::string &name) : root(fs::temp_directory_path() / ("weft_trust_" + name)) {
        fs::remove_all(root);
        fs::create_directories(root / "keys");
        fs::create_directories(root / "other_keys");
        make_key("trusted", root / "keys");
        make_key("stranger", root / "other_keys");
    }
    ~TrustFixture() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    void make_key(const std::string &name, const fs::path &public_dir) {
        const fs::path key = root / (name + ".pem");
        const std::string gen = "openssl genpkey -algorithm ed25519 -out '" + key.string() + "' 2>/dev/null && " +
                                "openssl pkey -in '" + key.string() + "' -pubout -out '" +
                                (public_dir / (name + ".pem")).string() + "' 2>/dev/null";
        REQUIRE(std::system(gen.c_str()) == 0);
    }
    /// A copy of a test plugin: <root>/<dir>/plugin.toml and its library.
    fs::path copy(const std::string &plugin, const std::string &dir) {
        const fs::path to = root / dir;
        fs::create_directories(to);
        for (const auto &e : fs::directory_iterator(test::plugin_dir(plugin)))
            if (e.is_regular_file()) fs::copy_file(e.path(), to / e.path().filename());
        return to;
    }
    /// What the trust check reads of a plugin directory.
    static trust::PluginBytes bytes(const fs::path &dir) {
        const PluginManifest m = read_manifest(dir / "plugin.toml");
        trust::PluginBytes b{m.name, m.path, slurp(m.path), m.library_path, slurp(m.library_path), {}};
        b.files = trust::scan_other_files(b);
        return b;
    }
    void sign(const fs::path &dir, const std::string &key) {
        const trust::PrivateKey k = trust::PrivateKey::load_pem(root / (key + ".pem"));
        spit(dir / "plugin.toml.sig", trust::make_signature_file(k, bytes(dir)));
    }
    HostOptions signed_options() const {
        HostOptions o = test::test_host_options();
        o.plugin_trust.mode = trust::TrustMode::Signed;
        o.plugin_trust.trusted_keys_dir = root / "keys";
        return o;
    }
    fs::path library(const fs::path &dir) const { return read_manifest(dir / "plugin.toml").library_path; }
};

/// WEFT_TEST_MARKER set for one test, so ctor_marker's constructor says whether it ran.
struct Marker {
    fs::path path;
    explicit Marker(fs::path p) : path(std::move(p)) {
        fs::remove(path);
        setenv("WEFT_TEST_MARKER", path.c_str(), 1);
    }
    ~Marker() { unsetenv("WEFT_TEST_MARKER"); }
    bool written() const { return fs::exists(path); }
};

} // namespace

TEST_CASE("trust: a signed plugin loads under the signed policy and records its signer") {
    TrustFixture f("signed_loads");
    const fs::path dir = f.copy("wt_color", "wt_color");
    f.sign(dir, "trusted");
    Host host(f.signed_options());
    const LoadedPlugin &p = host.load(dir);
    CHECK(p.name() == "wt_color");
    CHECK(p.signed_by == "trusted.pem");
    CHECK(p.builtins.size() == 3);
    CHECK(host.registry().native_type("warp_test::Color") != nullptr);
}

TEST_CASE("trust: a byte flipped in the library refuses the plugin - naming the library") {
    TrustFixture f("flipped_library");
    const fs::path dir = f.copy("wt_color", "wt_color");
    f.sign(dir, "trusted");
    std::string lib = slurp(f.library(dir));
    lib[lib.size() / 2] = static_cast<char>(lib[lib.size() / 2] ^ 0x01);
    spit(f.library(dir), lib);
    Host host(f.signed_options());
    const std::string message = message_of<PluginError>([&] { host.load(dir); });
    CHECK_THAT(message, Catch::StartsWith("plugin 'wt_color': refused by trust policy 'signed': the library does not "
                                          "match its signature (sha256 "));
    CHECK_THAT(message, Catch::EndsWith("(" + f.library(dir).string() + ")"));
    CHECK(host.plugin("wt_color") == nullptr);
}

TEST_CASE("trust: a byte changed in the manifest refuses the plugin - naming the manifest") {
    TrustFixture f("flipped_manifest");
    const fs::path dir = f.copy("wt_color", "wt_color");
    f.sign(dir, "trusted");
    std::string manifest = slurp(dir / "plugin.toml");
    const auto at = manifest.find("version = \"1.2.0\"");
    REQUIRE(at != std::string::npos);
    manifest[at + 13] = '3'; // 1.2.0 -> 1.3.0: still a valid manifest
    spit(dir / "plugin.toml", manifest);
    Host host(f.signed_options());
    const std::string message = message_of<PluginError>([&] { host.load(dir); });
    CHECK_THAT(message, Catch::StartsWith("plugin 'wt_color': refused by trust policy 'signed': the manifest does not "
                                          "match its signature"));
    CHECK_THAT(message, Catch::EndsWith("(" + (dir / "plugin.toml").string() + ")"));
}

TEST_CASE("trust: a signature by a key that is not trusted refuses the plugin") {
    TrustFixture f("untrusted_key");
    const fs::path dir = f.copy("wt_color", "wt_color");
    f.sign(dir, "stranger");
    const std::string stranger = trust::PrivateKey::load_pem(f.root / "stranger.pem").id();
    Host host(f.signed_options());
    CHECK(message_of<PluginError>([&] { host.load(dir); }) ==
          "plugin 'wt_color': refused by trust policy 'signed': signed by key " + stranger +
              ", which is not among the 1 trusted keys in " + (f.root / "keys").string() + " (" +
              (dir / "plugin.toml.sig").string() + ")");
}

TEST_CASE("trust: a plugin without a signature is refused - naming the missing file") {
    TrustFixture f("missing_signature");
    const fs::path dir = f.copy("wt_color", "wt_color");
    Host host(f.signed_options());
    CHECK(message_of<PluginError>([&] { host.load(dir); }) ==
          "plugin 'wt_color': refused by trust policy 'signed': the signature file is missing (sign with `weft plugin "
          "sign --key KEY DIR`) (" + (dir / "plugin.toml.sig").string() + ")");
}

TEST_CASE("trust: a forged signature value is refused") {
    TrustFixture f("forged_signature");
    const fs::path dir = f.copy("wt_color", "wt_color");
    f.sign(dir, "trusted");
    std::string sig = slurp(dir / "plugin.toml.sig");
    const auto at = sig.rfind("\nsignature ") + 11;
    sig[at] = sig[at] == '0' ? '1' : '0';
    spit(dir / "plugin.toml.sig", sig);
    Host host(f.signed_options());
    CHECK(message_of<PluginError>([&] { host.load(dir); }) ==
          "plugin 'wt_color': refused by trust policy 'signed': the signature is not valid for key trusted.pem (" +
              trust::PrivateKey::load_pem(f.root / "trusted.pem").id() + ") (" + (dir / "plugin.toml.sig").string() +
              ")");
}

TEST_CASE("trust: a refused plugin is never opened - so its constructor leaves no marker") {
    TrustFixture f("constructor_marker");
    Marker marker(f.root / "marker");
    const fs::path dir = f.copy("ctor_marker", "ctor_marker");
    {
        Host host(f.signed_options());
        CHECK_THAT(message_of<PluginError>([&] { host.load(dir); }),
                   Catch::Contains("refused by trust policy 'signed': the signature file is missing"));
    }
    CHECK_FALSE(marker.written());
    // The control: the same file under the default policy runs its constructor.
    Host open(test::test_host_options());
    open.load(dir);
    CHECK(marker.written());
}

TEST_CASE("trust: a library replaced after verification is not what runs") {
    TrustFixture f("replaced_after_verify");
    Marker marker(f.root / "marker");
    const fs::path dir = f.copy("wt_color", "wt_color");
    f.sign(dir, "trusted");
    const fs::path evil = f.copy("ctor_marker", "evil") / "libctor_marker.so";
    HostOptions o = f.signed_options();
    int hooks = 0;
    o.fault_hook = [&](std::string_view point) {
        REQUIRE(point == "plugin-verified");
        ++hooks;
        fs::rename(evil, f.library(dir)); // swapped in between the check and the load
    };
    Host host(o);
    const LoadedPlugin &p = host.load(dir);
    CHECK(hooks == 1);
    CHECK(p.name() == "wt_color"); // the checked bytes were loaded
    CHECK(p.builtins.size() == 3);
    CHECK_FALSE(marker.written()); // the replacement never ran
}

TEST_CASE("trust: a library rewritten in place after verification is not what runs") {
    TrustFixture f("rewritten_after_verify");
    Marker marker(f.root / "marker");
    const fs::path dir = f.copy("wt_color", "wt_color");
    f.sign(dir, "trusted");
    const std::string evil = slurp(test::plugin_dir("ctor_marker") / "libctor_marker.so");
    HostOptions o = f.signed_options();
    o.fault_hook = [&](std::string_view) {
        // The same inode, new contents: a descriptor opened before would see them.
        const int fd = ::open(f.library(dir).c_str(), O_WRONLY | O_TRUNC);
        REQUIRE(fd >= 0);
        REQUIRE(::write(fd, evil.data(), evil.size()) == static_cast<ssize_t>(evil.size()));
        ::close(fd);
    };
    Host host(o);
    CHECK(host.load(dir).name() == "wt_color");
    CHECK_FALSE(marker.written());
}

TEST_CASE("trust: the allow-list admits listed digests only") {
    TrustFixture f("allow_list");
    const fs::path color = f.copy("wt_color", "wt_color");
    const fs::path marker_dir = f.copy("ctor_marker", "ctor_marker");
    const std::string digest = trust::plugin_digest(TrustFixture::bytes(color));
    spit(f.root / "allowed.txt", "# plugins this host may load\n" + digest + "  # wt_color\n");
    HostOptions o = test::test_host_options();
    o.plugin_trust.mode = trust::TrustMode::AllowList;
    o.plugin_trust.allow_list_file = f.root / "allowed.txt";
    Host host(o);
    CHECK(host.load(color).name() == "wt_color");
    const std::string other = trust::plugin_digest(TrustFixture::bytes(marker_dir));
    CHECK(message_of<PluginError>([&] { host.load(marker_dir); }) ==
          "plugin 'ctor_marker': refused by trust policy 'allow-list': its digest " + other + " (manifest " +
              (marker_dir / "plugin.toml").string() + " and this library) is not on the allow-list (" +
              f.library(marker_dir).string() + ")");
}

TEST_CASE("trust: a policy that cannot be read fails host construction - naming the file") {
    TrustFixture f("bad_policy");
    HostOptions o = test::test_host_options();
    o.plugin_trust.mode = trust::TrustMode::Signed;
    o.plugin_trust.trusted_keys_dir = f.root / "no_keys";
    CHECK(message_of<UserError>([&] { Host h(o); }) ==
          "trusted keys directory " + (f.root / "no_keys").string() + " does not exist");
    spit(f.root / "keys" / "junk.pem", "not a key\n");
    o.plugin_trust.trusted_keys_dir = f.root / "keys";
    CHECK_THAT(message_of<UserError>([&] { Host h(o); }),
               Catch::StartsWith((f.root / "keys" / "junk.pem").string() + ": not a PEM Ed25519 public key"));
    o.plugin_trust.mode = trust::TrustMode::AllowList;
    spit(f.root / "allowed.txt", "abc\n");
    o.plugin_trust.allow_list_file = f.root / "allowed.txt";
    CHECK_THAT(message_of<UserError>([&] { Host h(o); }),
               Catch::StartsWith((f.root / "allowed.txt").string() + ":1: 'abc' is not a plugin digest"));
}

TEST_CASE("trust: the configuration file sets the policy - paths relative to the file") {
    TrustFixture f("config_file");
    spit(f.root / "weft.toml", "[plugins]\ntrust = \"signed\"\ntrusted_keys = \"keys\"\n[cache]\ndir = \"cache\"\n");
    HostOptions o;
    apply_config_file(o, f.root / "weft.toml");
    CHECK(o.plugin_trust.mode == trust::TrustMode::Signed);
    CHECK(o.plugin_trust.trusted_keys_dir == f.root / "keys");
    CHECK(o.cache_dir == f.root / "cache");
    spit(f.root / "bad.toml", "[plugins]\ntrust = \"maybe\"\n");
    CHECK(message_of<UserError>([&] { apply_config_file(o, f.root / "bad.toml"); }) ==
          (f.root / "bad.toml").string() +
              ":2:9: unknown plugin trust policy 'maybe' (expected any, allow-list or signed)");
    spit(f.root / "typo.toml", "[plugins]\ntrusted_key = \"keys\"\n");
    CHECK_THAT(message_of<UserError>([&] { apply_config_file(o, f.root / "typo.toml"); }),
               Catch::EndsWith("unknown key 'plugins.trusted_key' (known: trust, trusted_keys, allow_list, allow)"));
}

namespace {

/// A copy of the bundled colors plugin (manifest, library, include/weft_colors.h).
fs::path copy_colors(const TrustFixture &f) {
    const fs::path dir = f.root / "colors";
    fs::copy(fs::path(WEFT_BUNDLED_PLUGIN_DIR) / "colors", dir, fs::copy_options::recursive);
    return dir;
}

const char *const colors_kernel = R"(
import warp as wp

@wp.kernel
def gray(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.colors_luminance(colors.Color(x[i], x[i], x[i]))
)";

} // namespace

TEST_CASE("trust: a signature covers the plugin's headers - an edited, added or removed file refuses it, naming it") {
    TrustFixture f("headers");
    const fs::path dir = copy_colors(f);
    const fs::path header = dir / "include" / "weft_colors.h";
    f.sign(dir, "trusted");
    {
        Host host(f.signed_options());
        const LoadedPlugin &p = host.load(dir);
        REQUIRE(p.verified_files);
        CHECK(p.verified_files->files.size() == 1);
        CHECK(p.verified_files->files[0].path == "include/weft_colors.h");
    }
    const std::string original = slurp(header);
    // The attack of issue 39: an inline function in a header runs whatever it likes.
    spit(header, original + "\n#include <stdlib.h>\ninline int colors_evil() { return system(\"true\"); }\n");
    auto refusal = [&] {
        Host host(f.signed_options());
        return message_of<PluginError>([&] { host.load(dir); });
    };
    CHECK_THAT(refusal(), Catch::StartsWith("plugin 'colors': refused by trust policy 'signed': the file "
                                            "include/weft_colors.h does not match the signature (sha256 ") &&
                              Catch::EndsWith("(" + header.string() + ")"));
    spit(header, original);
    spit(dir / "include" / "extra.h", "// added after signing\n");
    CHECK(refusal() == "plugin 'colors': refused by trust policy 'signed': the file include/extra.h is not covered "
                       "by the signature (added since) (" + (dir / "include" / "extra.h").string() + ")");
    fs::remove(dir / "include" / "extra.h");
    fs::remove(header);
    CHECK(refusal() == "plugin 'colors': refused by trust policy 'signed': the file include/weft_colors.h covered "
                       "by the signature is missing (" + header.string() + ")");
    spit(header, original);
    fs::create_symlink(header, dir / "include" / "link.h");
    CHECK_THAT(refusal(), Catch::Contains((dir / "include" / "link.h").string() + ": a symbolic link in a plugin's directory"));
    fs::remove(dir / "include" / "link.h");
    Host host(f.signed_options());
    CHECK(host.load(dir).name() == "colors");
}

TEST_CASE("trust: a header edited after the plugin loaded is not compiled - the build names the file") {
    TrustFixture f("headers_after_load");
    const fs::path dir = copy_colors(f);
    const fs::path header = dir / "include" / "weft_colors.h";
    f.sign(dir, "trusted");
    HostOptions o = f.signed_options();
    o.cache_dir = f.root / "cache";
    Host host(o);
    host.load(dir);
    // Built once with the verified header: the module's options are resolved.
    CHECK(host.load_module_source("gray", colors_kernel).kernel("gray").name() == "gray");
    spit(header, slurp(header) + "\n// edited after the load\n");
    // The next build of the module (its source changed) compares the files again.
    const std::string edited = std::string(colors_kernel) + "\n# edited\n";
    CHECK_THAT(message_of<UserError>([&] { host.load_module_source("gray", edited); }),
               Catch::Contains("plugin 'colors': the file include/weft_colors.h does not match what trust policy "
                               "'signed' verified when plugin 'colors' was loaded (sha256 ") &&
                   Catch::Contains("(" + header.string() + ")"));
}

TEST_CASE("trust: the allow-list digest covers the plugin's other files") {
    TrustFixture f("allow_list_files");
    const fs::path dir = copy_colors(f);
    spit(f.root / "allowed.txt", trust::plugin_digest(TrustFixture::bytes(dir)) + "\n");
    HostOptions o = test::test_host_options();
    o.plugin_trust.mode = trust::TrustMode::AllowList;
    o.plugin_trust.allow_list_file = f.root / "allowed.txt";
    CHECK(Host(o).load(dir).name() == "colors");
    spit(dir / "include" / "weft_colors.h", "// replaced\n");
    Host host(o);
    CHECK_THAT(message_of<PluginError>([&] { host.load(dir); }),
               Catch::Contains("(manifest " + (dir / "plugin.toml").string() +
                               ", the 1 other file in its directory and this library) is not on the allow-list"));
}

TEST_CASE("trust: include directories outside a verified plugin's directory are refused at load") {
    TrustFixture f("outside_dirs");
    const fs::path dir = f.copy("outside_include", "outside_include");
    fs::create_directories(f.root / "shared_include");
    f.sign(dir, "trusted");
    Host host(f.signed_options());
    CHECK(message_of<PluginError>([&] { host.load(dir); }) ==
          "plugin 'outside_include': refused by trust policy 'signed': cpu_include_dirs: '" + dir.string() +
              "/../shared_include' lies outside the plugin's directory " + dir.string() +
              ", which is all that its trust check covers (ship the files in it); nothing of the plugin was registered");
    CHECK(host.plugins().empty());
    // Under `any` nothing is checked, as before.
    CHECK(Host(test::test_host_options()).load(dir).name() == "outside_include");
}

TEST_CASE("trust: trusted keys or an allow-list with the policy 'any' are refused, not ignored") {
    TrustFixture f("any_with_keys");
    HostOptions o = test::test_host_options();
    o.plugin_trust.trusted_keys_dir = f.root / "keys";
    CHECK(message_of<UserError>([&] { Host h(o); }) ==
          "plugin trust policy 'any' loads every plugin, but trusted keys (" + (f.root / "keys").string() +
              ") are named: set the policy to 'signed' to check them, or name none");
    trust::TrustPolicy p = o.plugin_trust;
    trust::imply_trust_mode(p);
    CHECK(p.mode == trust::TrustMode::Signed);
    p = {};
    p.allowed_digests.insert(std::string(64, 'a'));
    trust::imply_trust_mode(p);
    CHECK(p.mode == trust::TrustMode::AllowList);
    p.mode = trust::TrustMode::Any;
    p.trusted_keys_dir = f.root / "keys";
    CHECK_THAT(message_of<UserError>([&] { trust::imply_trust_mode(p); }),
               Catch::Contains("and an allow-list are named but no plugin trust policy"));
    // A configuration file that names keys without `trust` means `signed`.
    spit(f.root / "weft.toml", "[plugins]\ntrusted_keys = \"keys\"\n");
    HostOptions c;
    apply_config_file(c, f.root / "weft.toml");
    CHECK(c.plugin_trust.mode == trust::TrustMode::Signed);
}

TEST_CASE("trust: a library that needs one outside the system directories is refused before anything is mapped") {
    TrustFixture f("needs_dep");
    const fs::path dir = f.copy("needs_dep", "needs_dep");
    f.sign(dir, "trusted");
    // The dependency's constructor marks whether it ran: swapped for a hostile
    // copy after signing, it would run at load. It never is loaded.
    Marker marker(f.root / "dep_ran");
    {
        Host host(f.signed_options());
        CHECK_THAT(message_of<PluginError>([&] { host.load(dir); }),
                   Catch::StartsWith("plugin 'needs_dep': refused by trust policy 'signed': its library needs "
                                     "libneeds_dep_lib.so") &&
                       Catch::Contains("and searches '" + test::plugin_dir("needs_dep_lib").string() +
                                       "' for them (RUNPATH or RPATH), outside the system library directories"));
        CHECK(host.plugins().empty());
    }
    CHECK_FALSE(marker.written());
    // Under `any` nothing is checked: the control, which loads it and runs the constructor.
    Host open(test::test_host_options());
    CHECK(open.load(dir).name() == "needs_dep");
    CHECK(marker.written());
}

TEST_CASE("trust: library dependencies are read from the ELF dynamic section") {
    const auto bytes = [](const fs::path &p) { return slurp(p); };
    const LibraryDependencies color = read_library_dependencies(bytes(TrustFixture::bytes(test::plugin_dir("wt_color")).library_path));
    CHECK(std::find(color.needed.begin(), color.needed.end(), "libc.so.6") != color.needed.end());
    CHECK(color.search_dirs.empty());
    CHECK(untrusted_dependency(color).empty());
    const LibraryDependencies dep = read_library_dependencies(bytes(read_manifest(test::plugin_dir("needs_dep") / "plugin.toml").library_path));
    CHECK(std::find(dep.needed.begin(), dep.needed.end(), "libneeds_dep_lib.so") != dep.needed.end());
    CHECK(dep.search_dirs == std::vector<std::string>{test::plugin_dir("needs_dep_lib").string()});
    CHECK(untrusted_dependency({{"libc.so.6"}, {"/usr/lib/x86_64-linux-gnu"}}).empty());
    CHECK_THAT(untrusted_dependency({{"/opt/x/libx.so"}, {}}), Catch::Contains("by path"));
    CHECK_THAT(untrusted_dependency({{"libnot-anywhere-weft.so"}, {}}), Catch::Contains("not in a system library directory"));
    CHECK_THAT(message_of<UserError>([] { read_library_dependencies("not an ELF file"); }),
               Catch::Contains("not a valid shared library"));
}
