// A module with enough kernel code is compiled as several translation units
// on several threads (issue 20's cold compile) and still loads, runs,
// differentiates, fails its checks and warm-loads as one module.
#include "test_support.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "weft/host/host.hpp"
#include "weft/support/file.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace weft;
using weft::test::TempDir;
namespace fs = std::filesystem;

namespace {

/// Twelve kernels of polynomial and vector work, kernel k computing
/// out[i] = x[i] * (k + 1) + (number of loop rounds) and a vector length on
/// the side, so that every kernel's result tells it ran its own code.
std::string many_kernels() {
    std::string s = "import warp as wp\n\n\n@wp.func\ndef poly(x: float, k: float):\n    return x * k + 1.0\n";
    for (int k = 0; k < 12; ++k) {
        const std::string n = std::to_string(k);
        s += "\n\n@wp.kernel\ndef k" + n + "(x: wp.array(dtype=float), out: wp.array(dtype=float), " +
             "v: wp.array(dtype=wp.vec3)):\n"
             "    i = wp.tid()\n"
             "    acc = float(0.0)\n"
             "    for r in range(4):\n"
             "        acc = acc + poly(0.0, float(r))\n"
             "    p = wp.vec3(x[i], 2.0 * x[i], 3.0)\n"
             "    q = wp.cross(p, wp.vec3(0.0, 0.0, 1.0))\n"
             "    m = wp.mat33(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)\n"
             "    v[i] = m * (q + wp.vec3(0.0, 0.0, " + n + ".0))\n"
             "    out[i] = x[i] * " + std::to_string(k + 1) + ".0 + acc\n";
    }
    s += "\n\n@wp.kernel\ndef checked(x: wp.array(dtype=float)):\n    i = wp.tid()\n    wp.expect_eq(x[i], 1.0)\n";
    return s;
}

/// The parts the generated text names ("#if WEFT_PART == 0 || WEFT_PART == k").
std::set<int> parts_of(const std::string &text) {
    std::set<int> parts;
    const std::string guard = "WEFT_PART == 0 || WEFT_PART == ";
    for (auto at = text.find(guard); at != std::string::npos; at = text.find(guard, at + 1))
        parts.insert(std::stoi(text.substr(at + guard.size())));
    return parts;
}

void check_kernels(const CompiledModule &m) {
    const Type f32 = Type::scalar(Scalar::Float32);
    const Type v3 = Type::vector(Scalar::Float32, 3);
    for (int k = 0; k < 12; ++k) {
        Array x = Array::from_vector(f32, std::vector<float>{1, 2, 3});
        Array out = Array::zeros(f32, {3});
        Array v = Array::zeros(v3, {3});
        m.kernel("k" + std::to_string(k)).launch({3}, {x, out, v});
        // acc = 1 + 1 + 1 + 1 (poly(0, r) == 1)
        CHECK(out.to_vector<float>() == std::vector<float>{float(k + 1) + 4, 2 * float(k + 1) + 4, 3 * float(k + 1) + 4});
        // cross((x, 2x, 3), (0, 0, 1)) = (2x, -x, 0)
        std::vector<float> vs(9);
        v.copy_to_host(vs.data(), vs.size() * sizeof(float));
        CHECK(vs == std::vector<float>{2, -1, float(k), 4, -2, float(k), 6, -3, float(k)});
    }
}

} // namespace

TEST_CASE("kernels are assigned to parts by code size, deterministically") {
    using codegen::assign_parts;
    using codegen::min_part_bytes;
    CHECK(assign_parts({}) == std::vector<int>{});
    CHECK(assign_parts({1000, 2000}) == std::vector<int>{0, 0});              // too little for two parts
    CHECK(assign_parts({min_part_bytes * 3}) == std::vector<int>{0});         // one kernel is one part
    CHECK(assign_parts({min_part_bytes, min_part_bytes}) == std::vector<int>{1, 2});
    // Three parts' worth, largest first onto the lightest part (ties: the
    // lower part), each kernel weighing its bytes and kernel_fixed_bytes (2u
    // here): 11 + 3 | 7 + 4 | 6 + 5 in weight, 9 + 1 | 5 + 2 | 4 + 3 in bytes.
    const std::size_t u = min_part_bytes / 8;
    static_assert(codegen::kernel_fixed_bytes == 2 * (min_part_bytes / 8));
    CHECK(assign_parts({1 * u, 9 * u, 4 * u, 5 * u, 3 * u, 2 * u}) == std::vector<int>{1, 1, 3, 2, 3, 2});
    // bench/kernels/ten_kernels.py's kernel sizes: the 10 KiB stencil shares
    // its part with four small kernels, not three (by bytes alone its part
    // compiled in 412M instructions and the other in 485M).
    CHECK(assign_parts({2459, 10012, 3653, 2505, 2738, 2288, 2508, 2298, 2286, 2809}) ==
          std::vector<int>{2, 1, 2, 1, 1, 2, 2, 1, 1, 2});
    // Never more than max_parts, however much code.
    const std::vector<int> many = assign_parts(std::vector<std::size_t>(40, min_part_bytes));
    CHECK(*std::max_element(many.begin(), many.end()) == codegen::max_parts);
    CHECK(std::count(many.begin(), many.end(), 1) == 40 / codegen::max_parts);
}

TEST_CASE("a module compiled in parts runs every kernel, shares its check counter and warm-loads") {
    TempDir cache("module_parts");
    TempDir work("module_parts_src");
    const fs::path file = work.path / "many.py";
    write_file_atomically(file, many_kernels());
    fs::path artifact;
    std::string hash;
    {
        Host host(weft::test::cached_host_options(cache.path));
        const CompiledModule m = host.load_module(file);
        const std::string text = read_input_file(m.generated_source_path(), 64 << 20, "generated source");
        const std::set<int> parts = parts_of(text);
        REQUIRE(parts.size() >= 2);
        CHECK(*parts.begin() == 1);
        CHECK(*parts.rbegin() == static_cast<int>(parts.size()));
        const std::string bytes = read_input_file(m.artifact_path(), 64 << 20, "artifact");
        CHECK(backend::is_object_bundle(bytes));
        CHECK(backend::unbundle_objects(std::vector<char>(bytes.begin(), bytes.end())).size() == parts.size());
        check_kernels(m);

        // The check counter is one for the module: `checked` may sit in any part.
        const Type f32 = Type::scalar(Scalar::Float32);
        CHECK_THROWS_WITH(m.kernel("checked").launch({2}, {Array::from_vector(f32, std::vector<float>{1, 5})}),
                          Catch::Contains("kernel 'checked'") && Catch::Contains("1 expect_* check failed"));
        CHECK_NOTHROW(m.kernel("checked").launch({2}, {Array::from_vector(f32, std::vector<float>{1, 1})}));

        // The backward pass is split too, and its gradients are right.
        Array x = Array::from_vector(f32, std::vector<float>{1, 2});
        Array out = Array::zeros(f32, {2});
        Array v = Array::zeros(Type::vector(Scalar::Float32, 3), {2});
        Array adj_x = Array::zeros(f32, {2});
        Array adj_out = Array::from_vector(f32, std::vector<float>{1, 1});
        Array adj_v = Array::zeros(Type::vector(Scalar::Float32, 3), {2});
        m.kernel("k11").launch_adjoint({2}, {x, out, v}, {adj_x, adj_out, adj_v});
        CHECK(adj_x.to_vector<float>() == std::vector<float>{12, 12});
        artifact = m.artifact_path();
        hash = m.hash();
    }
    // A new host loads the bundle from the cache.
    Host again(weft::test::cached_host_options(cache.path));
    const CompiledModule warm = again.load_module(file);
    CHECK(warm.from_cache());
    CHECK(warm.hash() == hash);
    check_kernels(warm);

    // An AOT copy of a module in parts is an archive of the parts' objects.
    const std::vector<fs::path> aot = again.compile_aot(file, {Target::cpu()}, {}, work.path / "aot");
    REQUIRE(aot.size() == 1);
    CHECK(aot[0].filename() == "many.cpu.a");
    // It holds every copy of every kernel; the JIT's artifact the dense copies only.
    const std::string aot_bytes = read_input_file(aot[0], 64 << 20, "AOT copy");
    const std::string jit_bytes = read_input_file(artifact, 64 << 20, "artifact");
    CHECK(aot_bytes.rfind("!<arch>\n", 0) == 0);
    CHECK(jit_bytes.rfind("!<arch>\n", 0) == 0);
    CHECK(aot_bytes.find("wk2k0_cpu_strided") != std::string::npos);
    CHECK(jit_bytes.find("wk2k0_cpu_strided") == std::string::npos);
    CHECK(jit_bytes.find("wk2k0_cpu_dense") != std::string::npos);
}

TEST_CASE("a module whose CPU preamble holds code is compiled as one unit") {
    // Every part would define the preamble's function again (a duplicate
    // symbol at link) and its static variable once per part.
    TempDir cache("module_parts_preamble");
    TempDir work("module_parts_preamble_src");
    const fs::path file = work.path / "many.py";
    write_file_atomically(file, many_kernels());
    Host host(weft::test::cached_host_options(cache.path));
    ModuleLoadOptions options;
    options.build_options = ModuleBuildOptions{};
    options.build_options->extra_cpu_preamble =
        "static int weft_test_calls = 0;\nint weft_test_count() { return ++weft_test_calls; }\n";
    const CompiledModule m = host.load_module(file, options);
    CHECK(parts_of(read_input_file(m.generated_source_path(), 64 << 20, "generated source")).empty());
    CHECK_FALSE(backend::is_object_bundle(read_input_file(m.artifact_path(), 64 << 20, "artifact")));
    check_kernels(m);
}
