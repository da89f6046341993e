// Warp's module options written in the source (wp.set_module_options({...}),
// @wp.kernel(module_options={...})) apply to the module as the loader's
// options would: the same binary, the same hash, the same behaviour.
#include "test_support.hpp"

#include "weft/host/host.hpp"
#include "weft/kernel/diagnostics.hpp"
#include "weft/support/file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

namespace {

using weft::test::TempDir;

HostOptions options_for(const TempDir &cache) { return weft::test::cached_host_options(cache.path); }

const Type f32 = Type::scalar(Scalar::Float32);

/// A kernel whose last thread writes one past the end: caught only in debug mode.
std::string shifted(const std::string &options_line) {
    return "import warp as wp\n" + options_line + R"(


@wp.kernel
def shift(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i + 1] = wp.sin(a[i]) * 2.0
)";
}

} // namespace

TEST_CASE("module options: the source's options give the loader's binary and hash") {
    TempDir cache("module_options");
    const std::string with = shifted(R"(wp.set_module_options({"fast_math": True, "optimization_level": 1}))");
    const std::string without = shifted("# no options here, the line count stays");
    std::string from_source, from_loader, plain;
    {
        Host host(options_for(cache));
        from_source = host.load_module_source("opts", with).hash();
    }
    {
        Host host(options_for(cache));
        ModuleLoadOptions lo;
        lo.fast_math = true;
        lo.opt_level = 1;
        from_loader = host.load_module_source("opts", without, lo).hash();
    }
    {
        Host host(options_for(cache));
        plain = host.load_module_source("opts", without).hash();
    }
    CHECK(from_source == from_loader);
    CHECK(from_source != plain);
}

TEST_CASE("module options: mode=debug checks bounds, and a unique kernel's mode is its own") {
    TempDir cache("module_options");
    Host host(options_for(cache));
    const Kernel debug =
        host.load_module_source("opts_debug", shifted(R"(wp.set_module_options({"mode": "debug"}))")).kernel("shift");
    Array a = Array::zeros(f32, {4});
    CHECK_THAT(message_of<LaunchError>([&] { debug.launch({4}, {a}); }),
               Catch::Contains("array 'a' index [4] is out of bounds for shape [4]"));
    // A unique kernel's module_options are its own module's: the file's
    // set_module_options neither reach it (as in Warp) nor are changed by it.
    const auto module = [](const std::string &module_level, const std::string &kernel_level) {
        return "import warp as wp\nwp.set_module_options(" + module_level + R"()


@wp.kernel(module="unique", module_options=)" + kernel_level + R"()
def fill(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 2.0
)";
    };
    const auto hash_of = [&](const std::string &source) {
        Host h(options_for(cache));
        return h.load_module_source("opts_last", source).hash();
    };
    const std::string release = hash_of(module(R"({"mode": "debug"})", R"({"mode": "release"})"));
    CHECK(release == hash_of(module("{}", "{}")));
    CHECK(release == hash_of(module(R"({"mode": "debug"})", "{}")));
    CHECK(release != hash_of(module("{}", R"({"mode": "debug"})")));
}

TEST_CASE("module options: enable_backward=False refuses a backward pass, saying where it was set") {
    TempDir cache("module_options");
    Host host(options_for(cache));
    const std::string source = "import warp as wp\n"
                               R"(wp.set_module_options({"enable_backward": False})


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]
)";
    const Kernel k = host.load_module_source("opts_no_backward", source).kernel("square");
    Array x = Array::from_vector(f32, std::vector<float>{1.0f, 3.0f});
    Array y = Array::zeros(f32, {2});
    k.launch({2}, {x, y});
    CHECK(y.to_vector<float>() == std::vector<float>{1.0f, 9.0f});
    Array gx = Array::zeros(f32, {2});
    Array gy = Array::from_vector(f32, std::vector<float>{1.0f, 1.0f});
    CHECK_THAT(message_of<UserError>([&] { k.launch_adjoint({2}, {x, y}, {gx, gy}); }),
               Catch::Contains("module 'opts_no_backward' sets enable_backward=False in its module options"));
}

TEST_CASE("module options: Warp's deterministic modes run a CPU launch on one thread in index order, and refuse CUDA") {
    TempDir cache("module_options");
    HostOptions o = options_for(cache);
    o.threads = 4;
    // Float atomics into one element: the index-order sum is Warp's CPU result.
    const auto source = [](const std::string &mode) {
        return "import warp as wp\nwp.set_module_options({\"deterministic\": wp.DeterministicMode." + mode + R"(})


@wp.kernel
def total(x: wp.array(dtype=float), sum: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(sum, 0, x[i] * wp.sin(float(i)))
)";
    };
    const std::int64_t n = 1 << 16;
    std::vector<float> x(n);
    for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i % 97) * 0.37f;
    // The kernel's own order of operations: x[i] * sin(float(i)), added in index order.
    Array xs = Array::from_vector(f32, x);
    Array products = Array::zeros(f32, {n});
    {
        Host host(o);
        host.load_module_source("products", R"(import warp as wp


@wp.kernel
def products(x: wp.array(dtype=float), p: wp.array(dtype=float)):
    i = wp.tid()
    p[i] = x[i] * wp.sin(float(i))
)").kernel("products").launch({n}, {xs, products});
    }
    float expected = 0.0f;
    for (float p : products.to_vector<float>()) expected += p;
    for (const char *mode : {"RUN_TO_RUN", "GPU_TO_GPU"}) {
        INFO(mode);
        for (int process = 0; process < 2; ++process) { // the second load is warm: the mode comes from its record
            Host host(o);
            const CompiledModule m = host.load_module_source(std::string("det_") + mode, source(mode));
            CHECK(m.from_cache() == (process == 1));
            Array sum = Array::zeros(f32, {1});
            m.kernel("total").launch({n}, {xs, sum});
            CHECK(sum.to_vector<float>()[0] == expected);
        }
    }
    Host host(o);
    CHECK_NOTHROW(host.load_module_source("det_none", source("NOT_GUARANTEED")));
    const fs::path cuda_file = cache.path / "det_cuda.py";
    write_file_atomically(cuda_file, source("RUN_TO_RUN"));
    const std::string cuda = message_of<UserError>([&] { host.compile_aot(cuda_file, {Target::cuda_ptx(80)}); });
    CHECK_THAT(cuda, Catch::Contains("module option deterministic=wp.DeterministicMode.RUN_TO_RUN has no CUDA code in "
                                     "weft: its atomics are not recorded and replayed in a fixed order"));
    // Warp 1.19 refuses a bool here.
    const std::string boolean = message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("det_bool", "import warp as wp\nwp.set_module_options({\"deterministic\": True})\n");
    });
    CHECK_THAT(boolean, Catch::Contains("a wp.DeterministicMode value: wp.DeterministicMode.NOT_GUARANTEED, "
                                        "RUN_TO_RUN or GPU_TO_GPU (Warp 1.19 refuses True and False here)"));
}
