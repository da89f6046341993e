// What a plugin vendor hits first (issue 10, "SDK and packaging"): builtins
// over arrays, vectors and matrices, end to end on the CPU; C++ sizes checked
// against kernel types; [requires] weft; newer descriptors with unknown bytes;
// the default plugin search path.
#include "test_support.hpp"

#include "weft/host/host.hpp"
#include "weft/host/search_path.hpp"
#include "weft/manifest/manifest.hpp"
#include "weft/registry/registry.hpp"
#include "weft/support/error.hpp"
#include "weft/support/version.hpp"

#include <weft/plugin.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace weft;
using weft::test::message_of;
using weft::test::plugin_dir;
namespace fs = std::filesystem;

namespace {

std::string load_error(Host &host, const std::string &name) {
    return message_of<PluginError>([&] { host.load(plugin_dir(name)); });
}

BuiltinSpec spec(std::string name, std::vector<ParameterSpec> params, std::string result = "") {
    return BuiltinSpec{std::move(name), std::move(params), std::move(result), "vk::f", "", {}};
}

/// Sets (or with nullopt unsets) an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
        if (const char *old = std::getenv(name)) old_ = old;
        if (value) setenv(name, value->c_str(), 1);
        else unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) setenv(name_, old_->c_str(), 1);
        else unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
    const char *name_;
    std::optional<std::string> old_;
};

} // namespace

// ---------------------------------------------------------------------------
// Array, vector and matrix parameters

TEST_CASE("builtin parameters may be arrays of any dtype and ndim, vectors and matrices") {
    Registry r;
    auto tx = r.begin("vk");
    NativeTypeSpec color{"vk::Color", 12, 4, {{"r", 0, 4, 0}, {"g", 4, 4, 0}, {"b", 8, 4, 0}}, {}, Initializer::None, "", false, ""};
    tx.add_native_type(color);
    const BuiltinOverload o = tx.add_builtin(spec("vk_f",
                                                  {{"a", "array(float32)"},
                                                   {"b", "array(dtype=vec3, ndim=2)"},
                                                   {"c", "wp.array3d(dtype=wp.int64)"},
                                                   {"d", "array(vk.Color, ndim=4)"},
                                                   {"e", "mat33d"},
                                                   {"f", "vec4i"}},
                                                  "vec3"));
    REQUIRE(o.params.size() == 6);
    CHECK(o.params[0].type == Type::array(Type::scalar(Scalar::Float32), 1));
    CHECK(o.params[1].type == Type::array(Type::vector(Scalar::Float32, 3), 2));
    CHECK(o.params[2].type == Type::array(Type::scalar(Scalar::Int64), 3));
    CHECK(o.params[3].type.element().native_name() == "vk::Color");
    CHECK(o.params[3].type.ndim() == 4);
    CHECK(o.signature() == "vk_f(a: array(dtype=float32), b: array(dtype=vec3, ndim=2), c: array(dtype=int64, ndim=3), "
                           "d: array(dtype=vk::Color, ndim=4), e: mat33d, f: vec4i) -> vec3");
    // The canonical spelling parses back to the same type.
    CHECK(tx.parse_type(o.params[1].type.name()) == o.params[1].type);
}

TEST_CASE("malformed array type names are rejected with the reason") {
    Registry r;
    auto tx = r.begin("vk");
    auto error = [&](const std::string &type) {
        return message_of<RegistrationError>([&] { tx.add_builtin(spec("vk_g", {{"a", type}})); });
    };
    CHECK(error("array(float32, ndim=5)") == "builtin 'vk_g': parameter 'a': unknown kernel type 'array(float32, ndim=5)': "
                                             "ndim must be 1 to 4");
    CHECK(error("array()") == "builtin 'vk_g': parameter 'a': unknown kernel type 'array()': expected "
                              "array(dtype=T, ndim=N)");
    CHECK(error("array(shape=3)") ==
          "builtin 'vk_g': parameter 'a': unknown kernel type 'array(shape=3)': expected array(dtype=T, ndim=N)");
    CHECK(error("array(Colour)") == "builtin 'vk_g': parameter 'a': unknown kernel type 'Colour'");
    CHECK(error("array(array(float32))") ==
          "builtin 'vk_g': parameter 'a': unknown kernel type 'array(array(float32))': an array's dtype cannot be an array");
    CHECK(error("array2d(float32, ndim=3)") ==
          "builtin 'vk_g': parameter 'a': unknown kernel type 'array2d(float32, ndim=3)': ndim given twice");
}

TEST_CASE("a plugin builtin taking an array and a vec3 runs in a CPU kernel") {
    const fs::path cache = fs::temp_directory_path() / "weft_vendor_kit_arrays";
    fs::remove_all(cache);
    {
        HostOptions o = weft::test::test_host_options();
        o.cache_dir = cache;
        o.quiet = true;
        Host host(o);
        host.load(plugin_dir("wt_arrays"));
        const Type f32 = Type::scalar(Scalar::Float32);
        const Type i32 = Type::scalar(Scalar::Int32);
        const Type v3 = Type::vector(Scalar::Float32, 3);
        CompiledModule m = host.load_module_source("arrays", R"(import warp as wp

@wp.kernel
def use_arrays(xs: wp.array(dtype=float), grid: wp.array2d(dtype=wp.int32), points: wp.array(dtype=wp.vec3),
               out: wp.array(dtype=float), counts: wp.array(dtype=wp.int64)):
    out[0] = _arr_sum_plus(xs, wp.vec3(1.0, 2.0, 3.0))
    counts[0] = wp._arr_shape_and_sum(grid)
    _arr_transform_all(points, wp.mat33(2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, -1.0))
)");
        Array xs = Array::from_vector(f32, std::vector<float>{10, 20, 30.5f});
        const std::vector<int> g{1, 2, 3, 4, 5, 6};
        Array grid = Array::from_host(i32, {2, 3}, g.data(), g.size() * sizeof(int));
        const std::vector<float> p{1, 1, 1, 1, 2, 3};
        Array points = Array::from_host(v3, {2}, p.data(), p.size() * sizeof(float));
        Array out = Array::zeros(f32, {1});
        Array counts = Array::zeros(Type::scalar(Scalar::Int64), {1});
        m.kernel("use_arrays").launch({1}, {xs, grid, points, out, counts});
        CHECK(out.to_vector<float>() == std::vector<float>{66.5f}); // 10 + 20 + 30.5 + 1 + 2 + 3
        CHECK(counts.to_vector<std::int64_t>() == std::vector<std::int64_t>{2 * 1000000 + 6 * 1000 + 21});
        std::vector<float> moved(6);
        points.copy_to_host(moved.data(), moved.size() * sizeof(float));
        CHECK(moved == std::vector<float>{2, 3, -1, 2, 6, -3});
    }
    fs::remove_all(cache);
}

TEST_CASE("a kernel passing the wrong array dtype or ndim to a plugin builtin is a checker error") {
    Host host(weft::test::test_host_options());
    host.load(plugin_dir("wt_arrays"));
    const std::string message = message_of<UserError>([&] {
        host.load_module_source("wrong", R"(import warp as wp

@wp.kernel
def k(xs: wp.array(dtype=wp.float64), out: wp.array(dtype=float)):
    out[0] = _arr_sum_plus(xs, wp.vec3(1.0, 2.0, 3.0))
)");
    });
    CHECK_THAT(message, Catch::Contains(":5:14: error: no overload of '_arr_sum_plus' matches the argument types"));
    CHECK_THAT(message, Catch::Contains("array(dtype=float64)"));
    CHECK_THAT(message, Catch::Contains("_arr_sum_plus(a: array(dtype=float32), v: vec3) -> float32"));
}

// ---------------------------------------------------------------------------
// C++ sizes against kernel types

TEST_CASE("the SDK names vector, matrix and array parameters and checks sizes at compile time") {
    namespace sdk = weft::plugin;
    CHECK(std::string(sdk::kernel_type_name<sdk::vec3>()) == "vec3");
    CHECK(std::string(sdk::kernel_type_name<sdk::vec4d>()) == "vec4d");
    CHECK(std::string(sdk::kernel_type_name<sdk::vec2i>()) == "vec2i");
    CHECK(std::string(sdk::kernel_type_name<sdk::mat44>()) == "mat44");
    CHECK(std::string(sdk::kernel_type_name<sdk::quatd>()) == "quatd");
    CHECK(std::string(sdk::kernel_type_name<sdk::array_t<float>>()) == "array(dtype=float32)");
    CHECK(std::string(sdk::kernel_type_name<sdk::array_t<sdk::mat33, 3>>()) == "array(dtype=mat33, ndim=3)");
    CHECK_FALSE(sdk::detail::has_kernel_type<sdk::vec_t<3, short>>::value); // weft has no such vector
    static_assert(sdk::detail::builtin_kernel_type_size("vec3") == 12);
    static_assert(sdk::detail::builtin_kernel_type_size("wp.mat44d") == 128);
    static_assert(sdk::detail::builtin_kernel_type_size("quath") == 8);
    static_assert(sdk::detail::builtin_kernel_type_size("array(dtype=vec3, ndim=2)") == 64);
    static_assert(sdk::detail::builtin_kernel_type_size("acme::double3") == 0); // a native type: the host checks
    static_assert(sizeof(sdk::mat33) == 36 && sizeof(sdk::vec3d) == 24);
    // Every kernel type name the SDK produces has the size the host gives it.
    CHECK(parse_builtin_type("mat44d")->size() == 128);
    CHECK(parse_builtin_type("quath")->size() == 8);
}

TEST_CASE("a stated C++ size that differs from the kernel type's is a registration error") {
    Registry r;
    auto tx = r.begin("vk");
    CHECK(message_of<RegistrationError>([&] {
              tx.add_builtin(spec("vk_h", {{"scale", "float32", 4}, {"v", "vec3", 24}}, "float32"));
          }) == "builtin 'vk_h': parameter 'v': the C++ type is 24 bytes but kernel type vec3 is 12 bytes");
    BuiltinSpec result = spec("vk_h", {{"v", "vec3", 12}}, "vec3");
    result.result_cpp_size = 16;
    CHECK(message_of<RegistrationError>([&] { tx.add_builtin(result); }) ==
          "builtin 'vk_h': result: the C++ type is 16 bytes but kernel type vec3 is 12 bytes");
    result.result_cpp_size = 12;
    CHECK(tx.add_builtin(result).signature() == "vk_h(v: vec3) -> vec3");
    // Arrays are passed as the 64-byte view.
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("vk_i", {{"a", "array(float32)", 8}})); }),
               Catch::Contains("parameter 'a': the C++ type is 8 bytes but kernel type array(dtype=float32) is 64 bytes"));
}

TEST_CASE("a plugin whose descriptor states a 24-byte C++ type for vec3 fails naming plugin, builtin and parameter") {
    Host host(weft::test::test_host_options());
    CHECK(load_error(host, "size_mismatch") ==
          "plugin 'size_mismatch': registration rejected: builtin '_sm_scaled': parameter 'v': the C++ type is 24 bytes "
          "but kernel type vec3 is 12 bytes; nothing of the plugin was registered");
    CHECK_FALSE(host.registry().has_builtin("_sm_scaled"));
}

// ---------------------------------------------------------------------------
// Descriptors from a newer SDK; ABI enums

TEST_CASE("a newer descriptor's unknown bytes must be zero") {
    Host host(weft::test::test_host_options());
    CHECK(load_error(host, "future_fields") ==
          "plugin 'future_fields': registration rejected: builtin parameters: weft_param_desc has struct_size " +
              std::to_string(sizeof(weft_param_desc) + 8) + ", larger than the " + std::to_string(sizeof(weft_param_desc)) +
              " bytes this host knows, and byte " + std::to_string(sizeof(weft_param_desc)) +
              " is not zero (a field this host does not support is set); nothing of the plugin was registered");
    // The same layout with the unknown field left zero loads (tests/plugins/struct_sizes).
    Host other(weft::test::test_host_options());
    CHECK(other.load(plugin_dir("struct_sizes")).name() == "struct_sizes");
}

TEST_CASE("a newer plugin info record's unknown bytes must be zero too") {
    Host host(weft::test::test_host_options());
    CHECK_THAT(load_error(host, "future_info"),
               Catch::Contains("weft_plugin_info has struct_size " + std::to_string(sizeof(weft_plugin_info) + 8) +
                               ", larger than the " + std::to_string(sizeof(weft_plugin_info)) +
                               " bytes this host knows, and byte " + std::to_string(sizeof(weft_plugin_info)) +
                               " is not zero (a field this host does not support is set)"));
    CHECK(host.plugin("future_info") == nullptr);
    CHECK(host.load(plugin_dir("wt_color")).name() == "wt_color"); // the host stays usable
}

TEST_CASE("ABI enums are 32 bits wide") {
    CHECK(sizeof(weft_status) == 4);
    CHECK(sizeof(weft_log_level) == 4);
    CHECK(sizeof(weft_initializer) == 4);
    CHECK(static_cast<long long>(WEFT_INITIALIZER_FORCE_32BIT) == 0x7fffffff);
}

// ---------------------------------------------------------------------------
// [requires] weft

TEST_CASE("[requires] weft constrains the host version, not a plugin named weft") {
    const PluginManifest m = parse_manifest(R"(name = "p"
version = "1.0.0"
abi = 1
library = "libp.so"
[requires]
weft = ">=0.1, <1"
other = "^2"
)",
                                            "/x/plugin.toml");
    REQUIRE(m.requires_host);
    CHECK(m.requires_host->text() == ">=0.1, <1");
    REQUIRE(m.requires_.size() == 1);
    CHECK(m.requires_[0].name == "other");
    CHECK(message_of<UserError>([] {
              parse_manifest("name = \"weft\"\nversion = \"1.0.0\"\nabi = 1\nlibrary = \"l.so\"\n", "/x/plugin.toml");
          }) == "/x/plugin.toml:1:8: plugin name 'weft' is reserved: [requires] weft names the host");
}

TEST_CASE("an unsatisfied [requires] weft fails naming plugin, requirement and host version") {
    Host host(weft::test::test_host_options());
    CHECK(load_error(host, "wants_host") == "plugin 'wants_host': requires weft >=99.0, but this host is weft " +
                                                std::string(version_string) + " (" +
                                                (plugin_dir("wants_host") / "plugin.toml").string() + ")");
    // A satisfied one loads.
    CHECK(host.load(plugin_dir("wt_arrays")).name() == "wt_arrays");
}

// ---------------------------------------------------------------------------
// Default search path

TEST_CASE("the default search path is the per-user directory, then the installation's") {
    ScopedEnv system("WEFT_PLUGIN_SYSTEM_PATH", std::nullopt);
    {
        ScopedEnv xdg("XDG_DATA_HOME", "/data/home");
        CHECK(user_plugin_dir() == fs::path("/data/home/weft/plugins"));
    }
    {
        ScopedEnv xdg("XDG_DATA_HOME", "relative/ignored");
        ScopedEnv home("HOME", "/home/someone");
        CHECK(user_plugin_dir() == fs::path("/home/someone/.local/share/weft/plugins"));
        const std::vector<fs::path> d = default_plugin_search_path();
        REQUIRE(d.size() == 2);
        CHECK(d[0] == fs::path("/home/someone/.local/share/weft/plugins"));
        CHECK(d[1] == system_plugin_dir());
    }
    // Relative to the binary this test runs in: <dir>/../lib/weft/plugins.
    const fs::path exe = fs::read_symlink("/proc/self/exe");
    CHECK(system_plugin_dir() == (exe.parent_path().parent_path() / "lib" / "weft" / "plugins"));
}

TEST_CASE("WEFT_PLUGIN_PATH comes first, WEFT_PLUGIN_SYSTEM_PATH replaces the defaults") {
    ScopedEnv xdg("XDG_DATA_HOME", "/data/home");
    ScopedEnv path("WEFT_PLUGIN_PATH", "/first:/second");
    {
        ScopedEnv system("WEFT_PLUGIN_SYSTEM_PATH", std::nullopt);
        HostOptions o;
        o.search_path = {"/given"};
        Host host(o);
        CHECK(host.search_path() == std::vector<fs::path>{"/given", "/first", "/second", "/data/home/weft/plugins",
                                                          system_plugin_dir()});
    }
    {
        ScopedEnv system("WEFT_PLUGIN_SYSTEM_PATH", "/opt/a:/opt/b");
        CHECK(Host(HostOptions{}).search_path() == std::vector<fs::path>{"/first", "/second", "/opt/a", "/opt/b"});
    }
    {
        ScopedEnv system("WEFT_PLUGIN_SYSTEM_PATH", "");
        CHECK(Host(HostOptions{}).search_path() == std::vector<fs::path>{"/first", "/second"});
    }
    // Without the environment, nothing is added.
    HostOptions o;
    o.use_environment = false;
    CHECK(Host(o).search_path().empty());
}

TEST_CASE("a plugin in the per-user directory is found by name") {
    const fs::path data = fs::temp_directory_path() / "weft_vendor_kit_xdg";
    fs::remove_all(data);
    fs::create_directories(data / "weft" / "plugins");
    fs::create_directory_symlink(plugin_dir("wt_color"), data / "weft" / "plugins" / "wt_color");
    {
        ScopedEnv system("WEFT_PLUGIN_SYSTEM_PATH", std::nullopt);
        ScopedEnv xdg("XDG_DATA_HOME", data.string());
        ScopedEnv path("WEFT_PLUGIN_PATH", std::nullopt);
        Host host(HostOptions{});
        CHECK(host.load_by_name("wt_color").manifest.path ==
              data / "weft" / "plugins" / "wt_color" / "plugin.toml");
    }
    fs::remove_all(data);
}

TEST_CASE("a per-user plugin overriding an installed one is a note, a duplicate elsewhere an error") {
    const fs::path root = fs::temp_directory_path() / "weft_vendor_kit_override";
    fs::remove_all(root);
    for (const char *d : {"user/weft/plugins", "system", "other_a", "other_b"}) fs::create_directories(root / d);
    fs::create_directory_symlink(plugin_dir("wt_color"), root / "user/weft/plugins/wt_color");
    fs::create_directory_symlink(plugin_dir("wt_color"), root / "system/wt_color");
    {
        ScopedEnv system("WEFT_PLUGIN_SYSTEM_PATH", (root / "user/weft/plugins").string() + ":" + (root / "system").string());
        ScopedEnv path("WEFT_PLUGIN_PATH", std::nullopt);
        Host host(HostOptions{});
        const Discovery d = host.discover();
        CHECK(d.errors.empty());
        REQUIRE(d.notes.size() == 1);
        CHECK_THAT(d.notes[0], Catch::Contains("system/wt_color/plugin.toml: plugin 'wt_color' is shadowed by"));
    }
    fs::create_directory_symlink(plugin_dir("wt_color"), root / "other_a/wt_color");
    fs::create_directory_symlink(plugin_dir("wt_color"), root / "other_b/wt_color");
    {
        ScopedEnv system("WEFT_PLUGIN_SYSTEM_PATH", std::string());
        ScopedEnv path("WEFT_PLUGIN_PATH", (root / "other_a").string() + ":" + (root / "other_b").string());
        Host host(HostOptions{});
        const Discovery d = host.discover();
        CHECK(d.notes.empty());
        REQUIRE(d.errors.size() == 1);
        CHECK_THAT(d.errors[0], Catch::Contains("other_b/wt_color/plugin.toml: plugin 'wt_color' is shadowed by"));
    }
    fs::remove_all(root);
}

// ---------------------------------------------------------------------------
// The plugin author guide: its examples are files the build compiles

namespace {

std::string read_text(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE(in);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Every fenced block preceded by a line `<!-- file: PATH -->`: {PATH, block text}.
std::vector<std::pair<std::string, std::string>> marked_blocks(const std::string &markdown) {
    std::vector<std::pair<std::string, std::string>> out;
    const std::string marker = "<!-- file: ";
    for (std::size_t at = markdown.find(marker); at != std::string::npos; at = markdown.find(marker, at + 1)) {
        const std::size_t end = markdown.find(" -->\n", at);
        REQUIRE(end != std::string::npos);
        const std::string path = markdown.substr(at + marker.size(), end - at - marker.size());
        const std::size_t fence = end + 5;
        REQUIRE(markdown.compare(fence, 3, "```") == 0);
        const std::size_t body = markdown.find('\n', fence) + 1;
        const std::size_t close = markdown.find("\n```\n", body - 1);
        REQUIRE(close != std::string::npos);
        out.emplace_back(path, markdown.substr(body, close + 1 - body));
    }
    return out;
}

} // namespace

TEST_CASE("the plugin author guide's code blocks are the files the build compiles and the tests run") {
    const fs::path root = WEFT_SOURCE_DIR;
    const auto blocks = marked_blocks(read_text(root / "docs" / "plugin-author-guide.md"));
    std::vector<std::string> paths;
    for (const auto &[path, text] : blocks) {
        paths.push_back(path);
        INFO("docs/plugin-author-guide.md block for " << path);
        CHECK(text == read_text(root / path));
    }
    // Each is built by the build (plugins/, tests/plugins/), run by a test below, or
    // built out of tree against an installed prefix (install.prefix).
    for (const char *expected : {"plugins/colors/plugin.toml", "plugins/colors/colors.cpp",
                                 "plugins/colors/include/weft_colors.h", "docs/examples/colors_kernel.py",
                                 "tests/plugins/colors_c/plugin.c", "plugin-sdk/example/CMakeLists.txt"})
        CHECK(std::find(paths.begin(), paths.end(), expected) != paths.end());
}

TEST_CASE("the README's embedding example is the application install.embedding builds and runs") {
    const fs::path root = WEFT_SOURCE_DIR;
    std::vector<std::string> paths;
    for (const auto &[path, text] : marked_blocks(read_text(root / "README.md"))) {
        paths.push_back(path);
        INFO("README.md block for " << path);
        CHECK(text == read_text(root / path));
    }
    for (const char *expected : {"examples/embedding/CMakeLists.txt", "examples/embedding/main.cpp"})
        CHECK(std::find(paths.begin(), paths.end(), expected) != paths.end());
}

TEST_CASE("the guide's kernel runs with the bundled colors plugin") {
    const fs::path cache = fs::temp_directory_path() / "weft_vendor_kit_guide";
    fs::remove_all(cache);
    {
        HostOptions o = weft::test::test_host_options();
        o.cache_dir = cache;
        o.quiet = true;
        Host host(o);
        host.load(fs::path(WEFT_BUNDLED_PLUGIN_DIR) / "colors");
        CompiledModule m = host.load_module_source(
            "colors_kernel", read_text(fs::path(WEFT_SOURCE_DIR) / "docs" / "examples" / "colors_kernel.py"));
        const Type color = host.registry().parse_type("colors::Color");
        const std::vector<float> rgb{1, 2, 3};
        Array pixels = Array::from_host(color, {1}, rgb.data(), rgb.size() * sizeof(float));
        Array luma = Array::zeros(Type::scalar(Scalar::Float32), {1});
        m.kernel("grade").launch({1}, {pixels, 2.0f, luma});
        std::vector<float> out(3);
        pixels.copy_to_host(out.data(), out.size() * sizeof(float));
        CHECK(out[0] == Approx(2.1f));
        CHECK(out[1] == Approx(4.05f));
        CHECK(out[2] == Approx(3.0f));
        CHECK(luma.to_vector<float>()[0] == Approx(0.2126f * 2.1f + 0.7152f * 4.05f + 0.0722f * 3.0f));
    }
    fs::remove_all(cache);
}

TEST_CASE("the guide's C plugin registers the same contract as the C++ colors plugin") {
    Host host(weft::test::test_host_options());
    host.load(fs::path(WEFT_BUNDLED_PLUGIN_DIR) / "colors");
    host.load(plugin_dir("colors_c")); // identical registrations are shared, not conflicts
    const NativeTypeInfo *t = host.registry().native_type("colors::Color");
    REQUIRE(t);
    CHECK(t->code == "nt9f45d53b074d417d");
    CHECK(t->owners == std::vector<std::string>{"colors", "colors_c"});
}
