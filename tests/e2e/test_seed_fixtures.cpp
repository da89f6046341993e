// End-to-end: the native-type and preamble tests of NVIDIA Warp's external
// builds (warp/tests/test_external_build.py, described in the seed) run through
// weft. The seed_fixtures test plugin registers warp_test::Color, Pixel, Image
// and PaddedValue, the builtins and the preamble; seed_fixtures.py holds the
// seed's kernels. Each case launches kernels on the CPU and checks the seed's
// values exactly.
#include "weft/modules/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"

// The same definitions the plugin measures and kernels compile against.
#define CUDA_CALLABLE
#include "seed_fixtures.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

using namespace weft;
namespace fs = std::filesystem;

namespace {

const fs::path plugin_path = fs::path(WEFT_TEST_PLUGIN_DIR) / "seed_fixtures";
const fs::path kernel_file = fs::path(WEFT_E2E_KERNEL_DIR) / "seed_fixtures.py";

std::string read_file(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// A fresh artifact cache for this run (under WEFT_CACHE_DIR when set, which
/// CTest points into the build tree), removed at exit.
struct TempCache {
    fs::path path;
    TempCache() {
        const char *base = std::getenv("WEFT_CACHE_DIR");
        const fs::path root = base && *base ? fs::path(base) : fs::temp_directory_path();
        path = root / ("weft-e2e-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempCache() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    TempCache(const TempCache &) = delete;
    TempCache &operator=(const TempCache &) = delete;
};

HostOptions host_options(const fs::path &cache_dir) {
    HostOptions o;
    o.use_environment = false; // no WEFT_PLUGIN_PATH
    o.cache_dir = cache_dir;
    o.quiet = true;
    return o;
}

/// One host with the plugin and the module, shared by the cases (compiled once).
struct Fixture {
    TempCache cache;
    Host host{host_options(cache.path)};
    const LoadedPlugin &plugin = host.load(plugin_path);
    CompiledModule module = host.load_module(kernel_file);

    Type native(const char *name) const {
        const NativeTypeInfo *t = host.registry().native_type(name);
        REQUIRE(t != nullptr);
        return t->type();
    }
};

Fixture &fixture() {
    static Fixture f;
    return f;
}

std::vector<float> channel(const std::vector<warp_test::Color> &colors, float warp_test::Color::*member) {
    std::vector<float> out;
    for (const warp_test::Color &c : colors) out.push_back(c.*member);
    return out;
}

/// The host-side value of the kernels' @wp.struct NativeContainer.
struct NativeContainer {
    warp_test::Color color;
};

} // namespace

TEST_CASE("the seed's native value types: arrays, builtins, a struct field and opaque values") {
    Fixture &f = fixture();
    CHECK_FALSE(f.module.from_cache()); // a fresh cache: compiled

    const Type pixel_t = f.native("warp_test::Pixel");
    const Type image_t = f.native("warp_test::Image");
    const Type color_t = f.native("warp_test::Color");
    Array pixels = Array::zeros(pixel_t, {2});
    Array images = Array::from_vector(image_t, std::vector<warp_test::Image>{{11}, {29}});
    Array colors = Array::zeros(color_t, {2});
    Array handles = Array::zeros(Type::scalar(Scalar::UInt64), {2});

    f.module.kernel("native_array_kernel").launch({2}, {pixels, images, colors, handles});

    CHECK(handles.to_vector<std::uint64_t>() == std::vector<std::uint64_t>{11, 29});
    const std::vector<warp_test::Color> c = colors.to_vector<warp_test::Color>();
    CHECK(channel(c, &warp_test::Color::r) == std::vector<float>{0.0f, 2.0f});
    CHECK(channel(c, &warp_test::Color::g) == std::vector<float>{1.0f, 1.0f});
    CHECK(channel(c, &warp_test::Color::b) == std::vector<float>{6.0f, 6.0f});
    const std::vector<warp_test::Pixel> p = pixels.to_vector<warp_test::Pixel>();
    REQUIRE(p.size() == 2);
    CHECK(p[0].index == 0);
    CHECK(p[1].index == 1);
    CHECK(p[0].color.g == 0.5f);
    CHECK(p[1].color.g == 0.5f);

    // A @wp.struct with a native field and an opaque native value as arguments (native_struct_kernel).
    const Type container_t =
        Type::structure(StructLayout::make("NativeContainer", {StructLayout::Field{"color", color_t, 0}}));
    const NativeContainer container{warp_test::Color{4.0f, 5.0f, 6.0f}};
    f.module.kernel("native_struct_kernel")
        .launch({1}, {KernelArg::of(container_t, container), KernelArg::of(image_t, warp_test::Image{41}), colors,
                      handles});

    const std::vector<warp_test::Color> after = colors.to_vector<warp_test::Color>();
    CHECK(after[0].r == 4.0f);
    CHECK(after[0].g == 5.0f);
    CHECK(after[0].b == 6.0f);
    CHECK(handles.to_vector<std::uint64_t>()[0] == 41);
    // Element 1 is left as native_array_kernel wrote it.
    CHECK(after[1].r == 2.0f);
    CHECK(handles.to_vector<std::uint64_t>()[1] == 29);
}

TEST_CASE("a padded native type round-trips byte-exactly, padding included") {
    Fixture &f = fixture();
    const Type padded_t = f.native("warp_test::PaddedValue");
    REQUIRE(padded_t.size() == sizeof(warp_test::PaddedValue));

    // Two PaddedValue{tag 7, value 13}, with distinct non-zero padding bytes (1..3).
    const std::vector<warp_test::PaddedValue> values(2, warp_test::PaddedValue{7, 13});
    std::vector<unsigned char> bytes(values.size() * sizeof(warp_test::PaddedValue));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    const unsigned char padding[2][3] = {{0xA5, 0x5A, 0xC3}, {0x3C, 0x96, 0x69}};
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t b = 0; b < 3; ++b) bytes[i * sizeof(warp_test::PaddedValue) + 1 + b] = padding[i][b];

    Array src = Array::from_host(padded_t, {2}, bytes.data(), bytes.size());
    std::vector<unsigned char> host_copy(bytes.size());
    src.copy_to_host(host_copy.data(), host_copy.size());
    CHECK(host_copy == bytes);

    Array dst = Array::zeros(padded_t, {2});
    f.module.kernel("padded_copy").launch({2}, {src, dst});
    std::vector<unsigned char> copied(bytes.size());
    dst.copy_to_host(copied.data(), copied.size());
    CHECK(copied == bytes);
    for (const warp_test::PaddedValue &v : dst.to_vector<warp_test::PaddedValue>()) {
        CHECK(int{v.tag} == 7);
        CHECK(v.value == 13u);
    }
}

TEST_CASE("the preamble follows weft's headers and precedes codegen macros") {
    Fixture &f = fixture();
    Array out = Array::zeros(Type::scalar(Scalar::Float32), {1});
    f.module.kernel("preamble_kernel").launch({1}, {out});
    CHECK(out.to_vector<float>() == std::vector<float>{3.0f}); // preamble_double(1.5)
    f.module.kernel("preamble_cast_kernel").launch({1}, {out});
    CHECK(out.to_vector<float>() == std::vector<float>{7.0f}); // preamble_cast(7)
}

TEST_CASE("the plugin's preamble is seed_fixtures.h, and the generated source checks the fields") {
    Fixture &f = fixture();
    const std::string header = read_file(WEFT_SEED_FIXTURES_HEADER);
    REQUIRE(f.plugin.build_options.size() == 1);
    CHECK(f.plugin.build_options[0].extra_cpu_preamble == header);
    CHECK(f.plugin.build_options[0].extra_cuda_preamble == header);

    const std::string source = read_file(f.module.generated_source_path());
    CHECK_THAT(source, Catch::Contains(header));
    // warp_test::Color::r, and the nested native field warp_test::Pixel::color.
    CHECK_THAT(source, Catch::Contains("weft_same_<decltype(((warp_test::Color *)0)->r), weft::float32>::value"));
    CHECK_THAT(source, Catch::Contains("native type warp_test::Color, field 'r': the plugin declares type float32"));
    CHECK_THAT(source, Catch::Contains("weft_same_<decltype(((warp_test::Pixel *)0)->color), warp_test::Color>::value"));
    CHECK_THAT(source,
               Catch::Contains("native type warp_test::Pixel, field 'color': the plugin declares type warp_test::Color"));
}

TEST_CASE("a second host loads the same module from the artifact cache") {
    Fixture &f = fixture();
    Host second(host_options(f.cache.path));
    second.load(plugin_path);
    CompiledModule again = second.load_module(kernel_file);
    CHECK(again.from_cache());
    CHECK(again.hash() == f.module.hash());

    Array out = Array::zeros(Type::scalar(Scalar::Float32), {1});
    again.kernel("preamble_kernel").launch({1}, {out});
    CHECK(out.to_vector<float>() == std::vector<float>{3.0f});
}
