// The precompiled runtime header the build prebuilds (issue 20): a first
// compile in an empty cache uses it and builds none; one that is not this
// weft's (a damaged PCH, edited headers) is skipped with a warning and the
// cache's is built; an empty prebuilt_dir turns it off.
#include "test_support.hpp"

#include "weft/host/host.hpp"
#include "weft/host/search_path.hpp"
#include "weft/pipeline/pipeline.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>

using namespace weft;
namespace fs = std::filesystem;
using weft::test::TempDir;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

const char *const source = "import warp as wp\n\n@wp.kernel\ndef twice(x: wp.array(dtype=float)):\n"
                           "    i = wp.tid()\n    x[i] = x[i] * 2.0 + wp.noise(wp.uint32(1), float(i)) * 0.0\n";

/// Loads and runs `source` in a new host over an empty cache; returns x[0..2] after the launch.
std::vector<float> run(const HostOptions &options) {
    Host host(options);
    const CompiledModule m = host.load_module_source("prebuilt_probe", source);
    CHECK_FALSE(m.from_cache());
    Array x = Array::from_vector(f32, std::vector<float>{1.0f, 2.5f, -3.0f});
    m.kernel("twice").launch({3}, {x});
    return x.to_vector<float>();
}

std::vector<fs::path> pchs_under(const fs::path &root) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".pch") out.push_back(it->path());
    return out;
}

HostOptions options_with(const fs::path &cache, std::vector<std::string> *warnings) {
    HostOptions o = weft::test::cached_host_options(cache);
    o.log_sink = [warnings](LogLevel level, std::string_view, std::string_view message) {
        if (level == LogLevel::Warning && warnings) warnings->emplace_back(message);
    };
    return o;
}

const std::vector<float> expected{2.0f, 5.0f, -6.0f};

/// Runs the probe over an empty cache with `prebuilt` as the prebuilt
/// directory; returns the warnings, after checking the values and that the
/// cache built its own PCH (the prebuilt one was not used).
std::vector<std::string> run_falling_back(const fs::path &prebuilt, const std::string &cache_name) {
    TempDir cache(cache_name);
    std::vector<std::string> warnings;
    HostOptions o = options_with(cache.path, &warnings);
    o.prebuilt_dir = prebuilt;
    CHECK(run(o) == expected);
    CHECK(pchs_under(cache.path).size() == 1);
    return warnings;
}

/// The prebuilt copy of a runtime header.
fs::path prebuilt_header(const fs::path &prebuilt, const std::string &name) {
    for (const fs::path &p : fs::recursive_directory_iterator(prebuilt / "runtime-headers"))
        if (p.filename() == name) return p;
    FAIL("no " << name << " under " << prebuilt);
    return {};
}

/// Inverts the byte in the middle of `file` (whatever it was, it changes).
void flip_middle_byte(const fs::path &file) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    const auto at = static_cast<std::streamoff>(fs::file_size(file) / 2);
    f.seekg(at);
    const int byte = f.get();
    REQUIRE(byte != EOF);
    f.seekp(at);
    f.put(static_cast<char>(byte ^ 0xff));
}

} // namespace

TEST_CASE("prebuilt PCH: the build prebuilt one, and a first compile uses it instead of building one") {
    const fs::path dir = installed_prebuilt_dir();
    INFO("prebuilt directory " << dir);
    REQUIRE(!pchs_under(dir / "pch").empty());
    TempDir cache("prebuilt_used");
    std::vector<std::string> warnings;
    CHECK(run(options_with(cache.path, &warnings)) == expected);
    CHECK(warnings.empty());
    CHECK(pchs_under(cache.path).empty());
}

TEST_CASE("prebuilt PCH: none (an empty prebuilt_dir) builds the cache's own") {
    TempDir cache("prebuilt_none");
    HostOptions o = options_with(cache.path, nullptr);
    o.prebuilt_dir = fs::path();
    CHECK(run(o) == expected);
    CHECK(pchs_under(cache.path).size() == 1);
}

TEST_CASE("prebuilt PCH: a damaged one, or edited headers beside it, is skipped with a warning") {
    const Logger quiet([](LogLevel, std::string_view, std::string_view) {});
    SECTION("damaged PCH") {
        TempDir prebuilt("prebuilt_damaged");
        const fs::path pch = pipeline::prebuild_runtime_pch(prebuilt.path, ModuleLoadOptions{}, quiet);
        REQUIRE(fs::exists(pch));
        flip_middle_byte(pch);
        const std::vector<std::string> warnings = run_falling_back(prebuilt.path, "prebuilt_damaged_cache");
        REQUIRE(warnings.size() == 1);
        CHECK_THAT(warnings[0], Catch::StartsWith("not using the prebuilt precompiled runtime header " + pch.string() +
                                                  ": has sha256 "));
    }
    SECTION("edited runtime header") {
        TempDir prebuilt("prebuilt_edited");
        pipeline::prebuild_runtime_pch(prebuilt.path, ModuleLoadOptions{}, quiet);
        std::ofstream(prebuilt_header(prebuilt.path, "scalar.h"), std::ios::app) << "\n#define WEFT_EDITED 1\n";
        const std::vector<std::string> warnings = run_falling_back(prebuilt.path, "prebuilt_edited_cache");
        REQUIRE(warnings.size() == 1);
        CHECK_THAT(warnings[0], Catch::Contains("are not this weft's") && Catch::Contains("scalar.h"));
    }
}

TEST_CASE("prebuilt PCH: one Clang rejects although every check passed falls back to the cache's, then is not used again") {
    const Logger quiet([](LogLevel, std::string_view, std::string_view) {});
    TempDir prebuilt("prebuilt_rejected");
    const fs::path pch = pipeline::prebuild_runtime_pch(prebuilt.path, ModuleLoadOptions{}, quiet);
    // A header with the same bytes but a new modification time (a copy, a
    // touch): weft's checks pass, Clang's ("modified since the PCH was built") do not.
    const fs::path header = prebuilt_header(prebuilt.path, "scalar.h");
    fs::last_write_time(header, fs::last_write_time(header) + std::chrono::hours(1));
    const std::vector<std::string> first = run_falling_back(prebuilt.path, "prebuilt_rejected_cache");
    REQUIRE(first.size() == 1);
    CHECK_THAT(first[0], Catch::StartsWith("not using the prebuilt precompiled runtime header " + pch.string() + ": "));
    // The rest of the process leaves it alone: no second warning, the cache's PCH is used.
    TempDir cache("prebuilt_rejected_again");
    std::vector<std::string> warnings;
    HostOptions o = options_with(cache.path, &warnings);
    o.prebuilt_dir = prebuilt.path;
    Host host(o);
    const CompiledModule m = host.load_module_source("prebuilt_probe_2", std::string(source) + "\n# another module\n");
    CHECK_FALSE(m.from_cache());
    CHECK(warnings.empty());
    CHECK(pchs_under(cache.path).size() == 1);
}
