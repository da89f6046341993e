// Reverse-mode automatic differentiation through weft::Tape: gradients of
// kernels with control flow, functions, structs, atomics and the ported
// Warp gradient tests, each checked against central finite differences in
// float64; the seed's tape test with a native value; lazy backward builds.
#include "weft/backend/cuda.hpp"
#include "weft/modules/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/struct_value.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using namespace weft;
namespace fs = std::filesystem;

namespace {

const Type f64 = Type::scalar(Scalar::Float64);
const Type f32 = Type::scalar(Scalar::Float32);

struct TempCache {
    fs::path path;
    TempCache() {
        const char *base = std::getenv("WEFT_CACHE_DIR");
        const fs::path root = base && *base ? fs::path(base) : fs::temp_directory_path();
        path = root / ("weft-autodiff-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempCache() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

HostOptions host_options(const fs::path &cache) {
    HostOptions o;
    o.use_environment = false;
    o.search_path = {WEFT_TEST_PLUGIN_DIR};
    o.cache_dir = cache;
    o.quiet = true;
    return o;
}

/// CTest runs these tests twice: as they are, and with WEFT_AUTODIFF_DEBUG=1,
/// where the shared module is loaded in debug mode (every array access of the
/// forward and backward passes bounds-checked).
bool debug_run() {
    const char *d = std::getenv("WEFT_AUTODIFF_DEBUG");
    return d && std::string(d) == "1";
}

ModuleLoadOptions fixture_options() {
    ModuleLoadOptions o;
    o.debug = debug_run();
    return o;
}

struct Fixture {
    TempCache cache;
    Host host{host_options(cache.path)};
    CompiledModule module = host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "gradient_kernels.py", fixture_options());
};

Fixture &fixture() {
    static Fixture f;
    return f;
}

std::vector<double> read(const Array &a) {
    std::vector<double> v(a.nbytes() / sizeof(double));
    a.copy_to_host(v.data(), a.nbytes());
    return v;
}

void write(const Array &a, const std::vector<double> &v) {
    REQUIRE(v.size() * sizeof(double) == a.nbytes());
    const_cast<Array &>(a).copy_from_host(v.data(), a.nbytes());
}

Array random_array(const Type &dtype, std::vector<std::int64_t> shape, std::mt19937 &rng, double lo = 0.2,
                   double hi = 0.9) {
    Array a = Array::zeros(dtype, std::move(shape), Device::cpu(), true);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(a.nbytes() / sizeof(double));
    for (double &x : v) x = u(rng);
    write(a, v);
    return a;
}

/// Checks d(sum(w * out))/d(input) from Tape::backward against central
/// differences, for every float64 component of every input array.
void check_gradients(const Kernel &k, const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args,
                     const std::vector<std::size_t> &inputs, std::size_t output, double tolerance = 1e-6) {
    const Array out = args[output].array();
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.5, 1.5);
    std::vector<double> w(out.nbytes() / sizeof(double));
    for (double &x : w) x = u(rng);
    const std::vector<double> zeros(w.size(), 0.0);
    auto loss = [&] {
        write(out, zeros);
        k.launch(dim, args);
        const std::vector<double> o = read(out);
        double s = 0;
        for (std::size_t i = 0; i < o.size(); ++i) s += w[i] * o[i];
        return s;
    };

    Tape tape;
    for (std::size_t i : inputs) args[i].array().zero_grad();
    out.zero_grad(); // gradients accumulate across backward passes
    write(out, zeros);
    {
        Tape::Scope scope(tape);
        k.launch(dim, args);
    }
    REQUIRE(tape.size() == 1);
    Array seed = Array::zeros(out.dtype(), out.shape());
    write(seed, w);
    tape.backward({{out, seed}});

    const double h = 1e-6;
    for (std::size_t i : inputs) {
        const Array in = args[i].array();
        const std::vector<double> grad = read(in.grad());
        std::vector<double> x = read(in);
        for (std::size_t c = 0; c < x.size(); ++c) {
            const double saved = x[c];
            x[c] = saved + h;
            write(in, x);
            const double lp = loss();
            x[c] = saved - h;
            write(in, x);
            const double lm = loss();
            x[c] = saved;
            write(in, x);
            const double fd = (lp - lm) / (2 * h);
            INFO("kernel " << k.name() << ", argument " << i << ", component " << c << ": analytic " << grad[c]
                           << ", finite differences " << fd);
            CHECK(std::abs(grad[c] - fd) <= tolerance * std::max(1.0, std::abs(fd)));
        }
    }
}

Type type_of(const Fixture &f, const char *name) { return f.host.registry().parse_type(name); }

} // namespace

TEST_CASE("branches, static and dynamic loops, break and a nested function differentiate exactly") {
    Fixture &f = fixture();
    std::mt19937 rng(1);
    for (int n : {0, 2, 5}) {
        Array x = random_array(f64, {16}, rng);
        Array out = Array::zeros(f64, {16}, Device::cpu(), true);
        check_gradients(f.module.kernel("control_flow"), {16}, {x, n, out}, {0}, 2);
    }
}

TEST_CASE("loop-carried values of a dynamic loop with continue keep their per-iteration values") {
    Fixture &f = fixture();
    std::mt19937 rng(2);
    Array x = random_array(f64, {8}, rng);
    Array out = Array::zeros(f64, {8}, Device::cpu(), true);
    check_gradients(f.module.kernel("carried"), {8}, {x, 7, out}, {0}, 2);
}

TEST_CASE("loops replayed per iteration restore exactly the values their adjoints need") {
    Fixture &f = fixture();
    std::mt19937 rng(31);
    Array x = random_array(f64, {6}, rng, 0.1, 0.6);
    Array out = Array::zeros(f64, {6}, Device::cpu(), true);
    check_gradients(f.module.kernel("checkpoints"), {6}, {x, 6, out}, {0}, 2);
}

TEST_CASE("a loop reusing a name, and a loop drawing random numbers, differentiate exactly") {
    Fixture &f = fixture();
    std::mt19937 rng(32);
    Array x = random_array(f64, {5}, rng), w = random_array(f64, {4}, rng);
    Array out = Array::zeros(f64, {5}, Device::cpu(), true);
    check_gradients(f.module.kernel("loop_reuse"), {5}, {x, w, out}, {0, 1}, 2);
    Array w8 = random_array(f64, {8}, rng);
    Array out3 = Array::zeros(f64, {3}, Device::cpu(), true);
    check_gradients(f.module.kernel("random_weights"), {3}, {w8, out3}, {0}, 1);
}

TEST_CASE("every gradient kernel's backward pass compiles for CUDA (NVRTC, no device needed)") {
    if (!backend::nvrtc_available()) {
        WARN("NVRTC is not available: the CUDA compile of the backward passes is not checked");
        return;
    }
    // Checkpointed loops, shared gradients (atomic under CUDA), struct arrays, tapes.
    Fixture &f = fixture();
    CHECK(f.host.compile_aot(fs::path(WEFT_AUTODIFF_DIR) / "gradient_kernels.py", {Target::cuda_ptx(90)}, {}, {},
                             Pass::Backward)
              .size() == 1);
    // Tile kernels' backward passes: one lane per block (WEFT_TILE_SINGLE_LANE), the tile adjoints.
    CHECK(f.host.compile_aot(fs::path(WEFT_AUTODIFF_DIR) / "tile_gradient_kernels.py", {Target::cuda_ptx(90)}, {}, {},
                             Pass::Backward)
              .size() == 1);
}

TEST_CASE("tile kernels' gradients match finite differences: loads, maps, GEMM over k, reductions, scalars from tiles") {
    TempCache cache;
    Host host(host_options(cache.path));
    const CompiledModule m = host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "tile_gradient_kernels.py", fixture_options());
    std::mt19937 rng(11);
    // Three blocks of 8 over 20 elements: the last block's loads past the end read zero, its stores drop.
    Array x = random_array(f64, {20}, rng), s = random_array(f64, {1}, rng);
    Array out = Array::zeros(f64, {20}, Device::cpu(), true);
    check_gradients(m.kernel("map_store"), {3}, {x, s, out}, {0, 1}, 2);

    Array A = random_array(f64, {16, 16}, rng), B = random_array(f64, {16, 16}, rng);
    Array C = Array::zeros(f64, {16, 16}, Device::cpu(), true);
    check_gradients(m.kernel("gemm"), {2, 2}, {A, B, C}, {0, 1}, 2);

    Array rows = random_array(f64, {5, 8}, rng);
    Array normalized = Array::zeros(f64, {5, 8}, Device::cpu(), true);
    check_gradients(m.kernel("normalize_rows"), {5}, {rows, normalized}, {0}, 1);

    Array x2 = random_array(f64, {4, 8}, rng), v = random_array(f64, {8}, rng), alpha = random_array(f64, {1}, rng);
    Array out2 = Array::zeros(f64, {8, 8}, Device::cpu(), true), total = Array::zeros(f64, {2}, Device::cpu(), true);
    check_gradients(m.kernel("assorted"), {3}, {x2, v, alpha, out2, total}, {0, 1, 2}, 3);
    // The other output's gradient seeds nothing (check_gradients zeroes only the one it checks).
    out2.zero_grad();
    check_gradients(m.kernel("assorted"), {3}, {x2, v, alpha, out2, total}, {0, 1, 2}, 4);

    // Two layers, z and w reassigned (new variables of the names: their values all kept for the gradient).
    Array features = random_array(f64, {8, 12}, rng), w0 = random_array(f64, {8, 8}, rng, -0.5, 0.5),
          b0 = random_array(f64, {8, 1}, rng), w1 = random_array(f64, {8, 8}, rng, -0.5, 0.5);
    Array loss = Array::zeros(f64, {1}, Device::cpu(), true);
    check_gradients(m.kernel("mlp_layers"), {3}, {features, w0, b0, w1, loss}, {0, 1, 2, 3}, 4);

    Array values = random_array(f64, {16}, rng);
    Array reduced = Array::zeros(f64, {2}, Device::cpu(), true);
    check_gradients(m.kernel("reduced"), {2}, {values, reduced}, {0}, 1);
}

TEST_CASE("a tile kernel whose gradient would need a tile it overwrites has no backward pass, and says why") {
    TempCache cache;
    Host host(host_options(cache.path));
    const CompiledModule m = host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "tile_gradient_refused.py");
    std::string message;
    try {
        (void)m.kernel("carried").backward();
    } catch (const UserError &e) {
        message = e.what();
    }
    CHECK_THAT(message, Catch::Matchers::Contains("tile_gradient_refused.py:15:9: kernel 'carried': the gradient "
                                                           "of tile_matmul needs tile 'v'"));
    CHECK_THAT(message, Catch::Matchers::Contains("never saved"));
    CHECK_THAT(message, Catch::Matchers::Contains("kernel 'carried' (module 'tile_gradient_refused') has no backward pass: "));
    // A warm load (another host, the same cache) keeps the reason (the warm record carries it).
    {
        Host warm(host_options(cache.path));
        const CompiledModule again = warm.load_module(fs::path(WEFT_AUTODIFF_DIR) / "tile_gradient_refused.py");
        CHECK(again.from_cache());
        std::string warm_message;
        try {
            (void)again.kernel("carried").backward();
        } catch (const UserError &e) {
            warm_message = e.what();
        }
        CHECK(warm_message == message);
    }
    // The refusal is the kernel's alone: the module's other kernel differentiates.
    std::mt19937 rng(5);
    Array x = random_array(f64, {6}, rng);
    Array scaled = Array::zeros(f64, {6}, Device::cpu(), true);
    check_gradients(m.kernel("scale"), {6}, {x, scaled}, {0}, 1);
    // Tiles of vectors have no adjoint yet: refused, never dropped.
    const CompiledModule vectors = host.load_module_source("vector_tiles", R"(import warp as wp

@wp.kernel
def spread(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    t = wp.tile_load(p, shape=4)
    wp.tile_store(out, t * 2.0)
)");
    std::string vector_message;
    try {
        (void)vectors.kernel("spread").backward();
    } catch (const UserError &e) {
        vector_message = e.what();
    }
    CHECK_THAT(vector_message, Catch::Matchers::Contains("tile 't' holds vec3, and tiles of vectors and matrices have no "
                                                         "gradient yet"));
    // The forward pass runs: three products of the all-ones vector.
    std::vector<double> ones(64, 1.0);
    const Array a = Array::from_host(f64, {8, 8}, ones.data(), ones.size() * 8);
    const Array o = Array::zeros(f64, {8, 1});
    m.kernel("carried").launch({1}, {a, o});
    CHECK(read(o) == std::vector<double>(8, 512.0));
}

TEST_CASE("early returns in kernels and functions") {
    Fixture &f = fixture();
    std::mt19937 rng(3);
    Array x = random_array(f64, {32}, rng, 0.0, 1.0);
    Array out = Array::zeros(f64, {32}, Device::cpu(), true);
    check_gradients(f.module.kernel("early_return"), {32}, {x, out}, {0}, 1);
    // Threads that returned early write nothing: their gradient is exactly zero.
    const std::vector<double> xs = read(x), g = read(x.grad());
    for (std::size_t i = 0; i < xs.size(); ++i)
        if (xs[i] < 0.3) CHECK(g[i] == 0.0);
}

TEST_CASE("struct fields carry gradients through copies, field writes and a function") {
    Fixture &f = fixture();
    std::mt19937 rng(4);
    const Kernel k = f.module.kernel("struct_fields");
    Array bodies = random_array(k.params()[0].type.element(), {6}, rng);
    Array out = Array::zeros(f64, {6}, Device::cpu(), true);
    check_gradients(k, {6}, {bodies, out}, {0}, 1);
}

TEST_CASE("tuple returns of a function with two return statements") {
    Fixture &f = fixture();
    std::mt19937 rng(9);
    Array x = random_array(f64, {16}, rng, -1.0, 1.0), y = random_array(f64, {16}, rng, 0.2, 1.0);
    Array out = Array::zeros(f64, {16}, Device::cpu(), true);
    check_gradients(f.module.kernel("tuples"), {16}, {x, y, out}, {0, 1}, 2);
}

TEST_CASE("atomics accumulate gradients from many threads") {
    Fixture &f = fixture();
    std::mt19937 rng(5);
    Array x = random_array(f64, {64}, rng);
    Array out = Array::zeros(f64, {3}, Device::cpu(), true);
    check_gradients(f.module.kernel("atomics"), {64}, {x, out}, {0}, 1);
    // d/dx of sum x^2, 3x and -exp(x), seeded with 1 each: exact per element.
    Array ones = Array::zeros(f64, {3});
    write(ones, {1.0, 1.0, 1.0});
    Tape tape;
    {
        Tape::Scope scope(tape);
        f.module.kernel("atomics").launch({64}, {x, out});
    }
    tape.zero(); // x's and out's gradients, left over from the check above
    tape.backward({{out, ones}});
    const std::vector<double> xs = read(x), g = read(x.grad());
    for (std::size_t i = 0; i < xs.size(); ++i) CHECK(g[i] == Approx(2 * xs[i] + 3.0 - std::exp(xs[i])).epsilon(1e-12));
}

TEST_CASE("select, where, min, max, clamp and abs pass gradients to the operand they chose") {
    Fixture &f = fixture();
    std::mt19937 rng(6);
    Array a = random_array(f64, {32}, rng), b = random_array(f64, {32}, rng);
    Array out = Array::zeros(f64, {32}, Device::cpu(), true);
    check_gradients(f.module.kernel("select_minmax"), {32}, {a, b, out}, {0, 1}, 2);
}

TEST_CASE("vector, matrix and quaternion algebra") {
    Fixture &f = fixture();
    std::mt19937 rng(7);
    Array p = random_array(type_of(f, "vec3d"), {8}, rng), q = random_array(type_of(f, "quatd"), {8}, rng);
    Array out = Array::zeros(type_of(f, "vec3d"), {8}, Device::cpu(), true);
    check_gradients(f.module.kernel("vectors"), {8}, {p, q, out}, {0, 1}, 2);
}

TEST_CASE("ported gradient tests: spring-mass step, ray-sphere intersection, MLP layer") {
    Fixture &f = fixture();
    std::mt19937 rng(8);
    const Type v3 = type_of(f, "vec3d");
    {
        Array x = random_array(v3, {4}, rng, -1.0, 1.0), v = random_array(v3, {4}, rng, -1.0, 1.0);
        Array x_out = Array::zeros(v3, {4}, Device::cpu(), true);
        check_gradients(f.module.kernel("spring_step"), {4}, {x, v, 0.5, 40.0, 0.01, x_out}, {0, 1}, 5, 1e-4);
    }
    {
        Array o = random_array(v3, {16}, rng, -0.3, 0.3), d = random_array(v3, {16}, rng, 0.5, 1.0);
        // Origins behind the sphere at z = 3, looking towards it.
        std::vector<double> ov = read(o);
        for (std::size_t i = 2; i < ov.size(); i += 3) ov[i] -= 1.0;
        write(o, ov);
        Array t = Array::zeros(f64, {16}, Device::cpu(), true);
        const double center[3] = {0.2, 0.3, 3.0};
        check_gradients(f.module.kernel("ray_sphere"), {16},
                        {o, d, KernelArg::value(v3, center, sizeof center), 1.0, t}, {0, 1}, 4, 1e-4);
    }
    {
        Array w = random_array(f64, {3, 4}, rng, -1.0, 1.0), bias = random_array(f64, {3}, rng, -0.5, 0.5);
        Array x = random_array(f64, {4}, rng, -1.0, 1.0), y = Array::zeros(f64, {3}, Device::cpu(), true);
        check_gradients(f.module.kernel("mlp_layer"), {3}, {w, bias, x, y}, {0, 1, 2}, 3, 1e-4);
    }
}

TEST_CASE("the backward pass is built when a gradient is first needed, not at load") {
    TempCache cache;
    Host host(host_options(cache.path));
    CompiledModule m = host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "gradient_kernels.py");
    auto objects = [&] {
        std::size_t n = 0;
        for (const auto &e : fs::recursive_directory_iterator(cache.path))
            // Modules' artifacts, not their compile units' objects.
            if (e.is_regular_file() && e.path().extension() == ".bin" &&
                e.path().filename().string().rfind("cpu-unit.", 0) != 0)
                ++n;
        return n;
    };
    CHECK(objects() == 1); // the forward module only
    Array x = Array::from_vector(f64, std::vector<double>{0.5, 1.5}, Device::cpu(), true);
    Array out = Array::zeros(f64, {2}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        m.kernel("forward_only").launch({2}, {x, out});
    }
    // A kernel without a backward pass is named, and no gradient changes.
    CHECK_THROWS_WITH(tape.backward(out), Catch::Contains("kernel 'forward_only'") &&
                                              Catch::Contains("enable_backward=False"));
    CHECK(objects() == 2); // the backward module was built for the check
    tape.reset();
    {
        Tape::Scope scope(tape);
        m.kernel("mlp_layer"); // looked up, not launched: nothing recorded
    }
    CHECK(tape.size() == 0);
    // A launch outside any tape is forward only.
    m.kernel("early_return").launch({2}, {x, out});
    CHECK(tape.size() == 0);
    CHECK(read(out) == std::vector<double>{0.25 * 3.0, 3.0 * 3.0});
}

TEST_CASE("launch_adjoint takes one adjoint per parameter, and a module can refuse backward passes") {
    TempCache cache;
    Host host(host_options(cache.path));
    CompiledModule m = host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "gradient_kernels.py");
    Array x = Array::from_vector(f64, std::vector<double>{0.5, 0.8});
    Array out = Array::zeros(f64, {2});
    Array gx = Array::zeros(f64, {2});
    Array gout = Array::from_vector(f64, std::vector<double>{1.0, 1.0});
    const Kernel k = m.kernel("early_return");
    k.launch({2}, {x, out});
    k.launch_adjoint({2}, {x, out}, {gx, gout});
    // 0.5: clipped = x^2 -> d/dx 3x^2 = 6x = 3; 0.8: clipped = 2x -> 6.
    CHECK(read(gx) == std::vector<double>{3.0, 6.0});
    CHECK(k.backward().params().size() == 4);
    CHECK(k.backward().params()[2].name == "adj_x");
    CHECK_THROWS_WITH(k.launch_adjoint({2}, {x, out}, {gx}),
                      Catch::Contains("it has 2 parameters, so 2 adjoint arguments, got 1"));

    ModuleLoadOptions no_backward;
    no_backward.enable_backward = false;
    no_backward.name = "no_backward";
    CompiledModule n = host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "gradient_kernels.py", no_backward);
    CHECK_THROWS_WITH(n.kernel("early_return").launch_adjoint({2}, {x, out}, {gx, gout}),
                      Catch::Contains("loaded with enable_backward=false"));
    // The module is still usable after the refusal.
    n.kernel("early_return").launch({2}, {x, out});
    CHECK(read(out)[1] == Approx(4.8));
}

TEST_CASE("the seed's tape test: a kernel with a native value argument back-propagates") {
    TempCache cache;
    Host host(host_options(cache.path));
    host.load(fs::path(WEFT_TEST_PLUGIN_DIR) / "seed_fixtures");
    CompiledModule m = host.load_module_source("native_tape", R"(import warp as wp
import warp_test

@wp.kernel
def native_value_tape(values: wp.array(dtype=wp.float32), image: warp_test.Image, loss: wp.array(dtype=wp.float32)):
    loss[0] = values[0] * 2.0
)");
    const Type image_t = host.registry().native_type("warp_test::Image")->type();
    Array values = Array::from_vector(f32, std::vector<float>{3.0f}, Device::cpu(), true);
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    const std::uint64_t handle = 17;
    Tape tape;
    {
        Tape::Scope scope(tape);
        m.kernel("native_value_tape").launch({1}, {values, KernelArg::value(image_t, &handle, sizeof handle), loss});
    }
    CHECK(loss.to_vector<float>() == std::vector<float>{6.0f});
    tape.backward(loss);
    CHECK(values.grad().to_vector<float>() == std::vector<float>{2.0f});
    // zero() clears every recorded array's gradient.
    tape.zero();
    CHECK(values.grad().to_vector<float>() == std::vector<float>{0.0f});
    CHECK(loss.grad().to_vector<float>() == std::vector<float>{0.0f});
    // Arrays of native types carry no gradients.
    CHECK_THROWS_WITH(Array::zeros(image_t, {2}, Device::cpu(), true), Catch::Contains("automatic differentiation"));
}

TEST_CASE("plugin builtins with a gradient contract differentiate through their native adjoint") {
    TempCache cache;
    Host host(host_options(cache.path));
    host.load(fs::path(WEFT_BUNDLED_PLUGIN_DIR) / "colors");
    host.load(fs::path(WEFT_TEST_PLUGIN_DIR) / "wt_adjoint");
    const BuiltinOverload &cube = host.registry().overloads("_adj_cube").front();
    CHECK(cube.differentiable);
    CHECK_THAT(cube.identity(), Catch::Contains("adjoint@wt_adjoint::adj_cube"));
    CHECK_FALSE(host.registry().overloads("colors_luminance").front().differentiable);

    CompiledModule m = host.load_module_source("plugin_grads", R"(import warp as wp

@wp.kernel
def decode(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.colors_srgb_to_linear(x[i]) + wp._adj_cube(x[i]) * 2.0
)");
    CompiledModule lying = host.load_module_source("plugin_lying", R"(import warp as wp

@wp.kernel
def lying(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp._adj_lying(x[i])
)");
    // Both branches of the transfer function, away from its knee at 0.04045.
    const std::vector<float> xs{0.01f, 0.03f, 0.2f, 0.5f, 0.9f};
    Array x = Array::from_vector(f32, xs, Device::cpu(), true);
    Array out = Array::zeros(f32, {5}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        m.kernel("decode").launch({5}, {x, out});
    }
    tape.backward(out);
    const std::vector<float> g = x.grad().to_vector<float>();
    auto f = [](double c) {
        return (c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4)) + 2.0 * c * c * c;
    };
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const double h = 1e-4, fd = (f(xs[i] + h) - f(xs[i] - h)) / (2 * h);
        INFO("x = " << xs[i] << ": analytic " << g[i] << ", finite differences " << fd);
        CHECK(std::abs(g[i] - fd) <= 1e-4 * std::max(1.0, std::abs(fd)));
    }

    // A declared adjoint whose definition has another signature: a compile
    // error that names plugin and builtin, and the host stays usable.
    Array y = Array::from_vector(f32, std::vector<float>{1.0f}, Device::cpu(), true);
    Array y_out = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape bad;
    {
        Tape::Scope scope(bad);
        lying.kernel("lying").launch({1}, {y, y_out});
    }
    CHECK(y_out.to_vector<float>() == std::vector<float>{2.0f}); // the forward pass is fine
    try {
        bad.backward(y_out);
        FAIL("the lying adjoint compiled");
    } catch (const std::exception &e) {
        CHECK_THAT(e.what(), Catch::Contains("plugin 'wt_adjoint'") && Catch::Contains("_adj_lying(x: float32)") &&
                                 Catch::Contains("wt_adjoint::adj_lying must have the signature"));
    }
    m.kernel("decode").launch({5}, {x, out});
    CHECK(out.to_vector<float>()[4] == Approx(f(0.9)).epsilon(1e-5));
}

TEST_CASE("a gradient into a native value is an error, never silently zero") {
    TempCache cache;
    Host host(host_options(cache.path));
    host.load(fs::path(WEFT_TEST_PLUGIN_DIR) / "wt_adjoint");
    // One module each: a backward pass is built per module, and one kernel's error fails it.
    const auto module = [&](const char *name, const char *kernel) {
        return host.load_module_source(name, std::string("import warp as wp\n\n@wp.kernel\n") + kernel);
    };
    CompiledModule magnitude = module("native_grads", R"(def magnitude(re: wp.array(dtype=float), im: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    loss[i] = wp._adj_cabs(wt_adjoint.Complex(re[i], im[i]))
)");
    CompiledModule field = module("native_field", R"(def field(re: wp.array(dtype=float), im: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    z = wt_adjoint.Complex(re[i], im[i])
    loss[i] = z.re * 2.0
)");
    CompiledModule constant = module("native_constant", R"(def constant(re: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    loss[i] = wp._adj_cabs(wt_adjoint.Complex(3.0, 4.0)) * re[i]
)");
    Array re = Array::from_vector(f32, std::vector<float>{3.0f}, Device::cpu(), true);
    Array im = Array::from_vector(f32, std::vector<float>{4.0f}, Device::cpu(), true);
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    auto backward_error = [&](const CompiledModule &m, const char *kernel, std::vector<KernelArg> args) {
        re.zero_grad();
        Tape tape;
        {
            Tape::Scope scope(tape);
            m.kernel(kernel).launch({1}, args);
        }
        try {
            tape.backward(loss);
        } catch (const UserError &e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    // The issue's case: d|z|/d re = 0.6 at z = 3 + 4i was silently 0.
    CHECK_THAT(backward_error(magnitude, "magnitude", {re, im, loss}),
               Catch::Contains("native_grads.py:6:15: kernel 'magnitude': the gradient contract of builtin "
                               "_adj_cabs(z: wt_adjoint::Complex) -> float32 writes the adjoint of its argument 1 of "
                               "native type wt_adjoint::Complex, whose value depends on differentiable inputs") &&
                   Catch::Contains("Declare the type differentiable in its plugin") &&
                   Catch::Contains("pass the float parts to a builtin that takes them"));
    CHECK_THAT(backward_error(field, "field", {re, im, loss}),
               Catch::Contains("kernel 'field': reading field 're' passes a gradient to a value of native type "
                               "wt_adjoint::Complex, whose value depends on differentiable inputs"));
    // A backward pass that fails to build seeds nothing: the loss's gradient is still 0.
    CHECK(loss.grad().to_vector<float>() == std::vector<float>{0.0f});
    // A native value that depends on no differentiable input is a constant: its gradient goes nowhere, rightly.
    CHECK(backward_error(constant, "constant", {re, loss}) == "(no error)");
    CHECK(re.grad().to_vector<float>() == std::vector<float>{5.0f});
}

TEST_CASE("@wp.func_grad replaces a function's adjoint and @wp.func_replay its backward replay") {
    Fixture &f = fixture();
    const std::vector<double> xs{0.0, 0.25, 1.0, 4.0};
    Array x = Array::from_vector(f64, xs, Device::cpu(), true);
    Array counter = Array::zeros(Type::scalar(Scalar::Int32), {1});
    Array out = Array::zeros(f64, {4}, Device::cpu(), true), out2 = Array::zeros(f64, {4}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        f.module.kernel("custom_gradients").launch({4}, {x, counter, out, out2});
    }
    Array seed2 = Array::zeros(f64, {4});
    tape.backward({{out, Array::from_vector(f64, std::vector<double>(4, 1.0))}, {out2, seed2}});
    // d sqrt(x)/dx from the custom adjoint: 0 at 0 (sqrt's own would be infinite).
    CHECK(read(x.grad()) == std::vector<double>{0.0, 1.0, 0.5, 0.25});
    CHECK(counter.to_vector<std::int32_t>() == std::vector<std::int32_t>{4}); // the replay made no atomic add

    tape.zero();
    tape.backward({{out2, Array::from_vector(f64, std::vector<double>(4, 1.0))}});
    // out2 = y^2 with y = counted(x): the reverse walk sees the replay's y = 2x^2,
    // and counted's own adjoint 2x: 2 * 2x^2 * 2x = 8x^3 (the forward value gives 4x^3).
    const std::vector<double> g = read(x.grad());
    for (std::size_t i = 0; i < xs.size(); ++i) CHECK(g[i] == Approx(8 * xs[i] * xs[i] * xs[i]));
}

TEST_CASE("a tape records launches made on a stream and runs their backward passes on it, in order") {
    Fixture &f = fixture();
    const std::vector<double> xs{0.5, 0.8, 0.2, 0.9};
    Array x = Array::from_vector(f64, xs, Device::cpu(), true);
    Array out = Array::zeros(f64, {4}, Device::cpu(), true);
    Stream stream(Device::cpu());
    Tape tape;
    {
        Tape::Scope scope(tape);
        // Twice: the second launch overwrites out with the same values; both backward passes accumulate.
        f.module.kernel("early_return").launch({4}, {x, out}, LaunchOptions{&stream});
        f.module.kernel("early_return").launch({4}, {x, out}, LaunchOptions{&stream});
    }
    REQUIRE(tape.size() == 2);
    CHECK(tape.launches()[0].options.stream == &stream);
    tape.backward(out);
    stream.synchronize();
    // out = 3 * clipped(x): 6x below 0.7, 6 above, 0 below 0.3; two passes double it.
    CHECK(read(x.grad()) == std::vector<double>{2 * 3.0, 2 * 6.0, 0.0, 2 * 6.0});
    tape.reset();
    CHECK(tape.size() == 0);
}

TEST_CASE("a refused launch is not recorded on the tape") {
    Fixture &f = fixture();
    Array x = Array::from_vector(f64, std::vector<double>{0.5}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        CHECK_THROWS_AS(f.module.kernel("early_return").launch({1}, {x, 2.0f}), LaunchError);
    }
    CHECK(tape.size() == 0);
}

namespace {
/// The gradient kernels on a host of `threads` threads, from the fixture's cache.
struct ThreadedModule {
    Host host;
    CompiledModule module;
    explicit ThreadedModule(unsigned threads)
        : host([&] {
              HostOptions o = host_options(fixture().cache.path);
              o.threads = threads;
              return o;
          }()),
          module(host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "gradient_kernels.py", fixture_options())) {}
};

/// pos.grad of one forward and backward launch of `kernel` (an n-body over
/// `pos`), seeded with ones: the bytes, for bitwise comparison.
std::vector<std::byte> shared_gradient(const CompiledModule &m, const char *kernel, const Array &pos, const Array &out,
                                       int n) {
    pos.zero_grad();
    out.zero_grad();
    Tape tape;
    {
        Tape::Scope scope(tape);
        m.kernel(kernel).launch({n}, {pos, n, out});
    }
    // Seeded unevenly: with ones, an n-body's position gradients cancel to about 0.
    std::vector<float> seed(static_cast<std::size_t>(n) * 3);
    for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<float>(i % 7) + 1.0f;
    Array s = Array::zeros(out.dtype(), out.shape());
    s.copy_from_host(seed.data(), s.nbytes());
    tape.backward({{out, s}});
    std::vector<std::byte> bytes(pos.grad().nbytes());
    pos.grad().copy_to_host(bytes.data(), bytes.size());
    return bytes;
}
} // namespace

TEST_CASE("gradients many threads add to (an n-body's pos[j]) match finite differences on several threads") {
    ThreadedModule t(4);
    std::mt19937 rng(21);
    const Type v3d = t.host.registry().parse_type("vec3d");
    const int n = 96; // a looping kernel: split across threads from 64 threads of grid on
    Array pos = random_array(v3d, {n}, rng, -1.0, 1.0);
    Array out = Array::zeros(v3d, {n}, Device::cpu(), true);
    check_gradients(t.module.kernel("pairwise"), {n}, {pos, n, out}, {0}, 2, 1e-5);
}

TEST_CASE("shared gradients are the same bits on every run with the same thread count, and agree across thread counts") {
    ThreadedModule four(4), one(1);
    std::mt19937 rng(22);
    const Type v3 = four.host.registry().parse_type("vec3");
    const int n = 300;
    Array pos = Array::zeros(v3, {n}, Device::cpu(), true);
    {
        std::vector<float> v(static_cast<std::size_t>(n) * 3);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (float &x : v) x = u(rng);
        pos.copy_from_host(v.data(), pos.nbytes());
    }
    Array out = Array::zeros(v3, {n}, Device::cpu(), true);
    const std::vector<std::byte> first = shared_gradient(four.module, "pairwise32", pos, out, n);
    for (int run = 1; run < 5; ++run) {
        INFO("run " << run);
        CHECK(shared_gradient(four.module, "pairwise32", pos, out, n) == first);
    }
    // One thread adds in thread order; four ranges sum apart and are added in
    // range order: the same sum, associated differently (float32 rounding).
    const std::vector<std::byte> serial = shared_gradient(one.module, "pairwise32", pos, out, n);
    std::vector<float> a(first.size() / 4), b(serial.size() / 4);
    std::memcpy(a.data(), first.data(), first.size());
    std::memcpy(b.data(), serial.data(), serial.size());
    float largest = 0;
    for (float x : b) largest = std::max(largest, std::abs(x));
    REQUIRE(largest > 1.0f);
    for (std::size_t i = 0; i < a.size(); ++i) {
        INFO("component " << i << ": 4 threads " << a[i] << ", 1 thread " << b[i]);
        CHECK(std::abs(a[i] - b[i]) <= 1e-4f * largest);
    }

    // A 2-D launch: every row reads all of w, every column all of its x row.
    Array w = Array::zeros(f32, {16, 16}, Device::cpu(), true), x = Array::zeros(f32, {64, 16}, Device::cpu(), true);
    Array y = Array::zeros(f32, {64, 16}, Device::cpu(), true);
    {
        std::uniform_real_distribution<float> u(-0.5f, 0.5f);
        std::vector<float> v(16 * 16);
        for (float &e : v) e = u(rng);
        w.copy_from_host(v.data(), w.nbytes());
        v.resize(64 * 16);
        for (float &e : v) e = u(rng);
        x.copy_from_host(v.data(), x.nbytes());
    }
    auto layer = [&](const CompiledModule &m) {
        w.zero_grad();
        x.zero_grad();
        y.zero_grad();
        Tape tape;
        {
            Tape::Scope scope(tape);
            m.kernel("dense_layer32").launch({64, 16}, {w, x, y});
        }
        tape.backward(y);
        std::vector<float> g(16 * 16 + 64 * 16);
        w.grad().copy_to_host(g.data(), w.nbytes());
        x.grad().copy_to_host(g.data() + 16 * 16, x.nbytes());
        return g;
    };
    const std::vector<float> g4 = layer(four.module);
    for (int run = 1; run < 5; ++run) CHECK(std::memcmp(layer(four.module).data(), g4.data(), g4.size() * 4) == 0);
    const std::vector<float> g1 = layer(one.module);
    for (std::size_t i = 0; i < g4.size(); ++i) {
        INFO("gradient component " << i);
        CHECK(g4[i] == Approx(g1[i]).margin(1e-5).epsilon(1e-5));
    }
}

TEST_CASE("gradients flow into arrays held by struct arguments, nested structs and struct locals included") {
    Fixture &f = fixture();
    const Kernel k = f.module.kernel("struct_arrays");
    const Type world_t = k.params()[0].type;
    const Type particles_t = world_t.layout().field("particles")->type;
    const std::int64_t n = 5;
    std::mt19937 rng(23);
    Array pos = random_array(f64, {n}, rng), mass = random_array(f64, {n}, rng), offset = random_array(f64, {n}, rng);
    Array out = Array::zeros(f64, {n}, Device::cpu(), true);
    StructValue particles(particles_t);
    particles.set("pos", pos).set("mass", mass).set("scale", 1.5);
    StructValue world(world_t);
    world.set("particles", particles).set("offset", offset);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({n}, {world, out});
    }
    tape.backward(out);
    const std::vector<double> p = read(pos), m = read(mass), o = read(offset);
    const std::vector<double> gp = read(pos.grad()), gm = read(mass.grad()), go = read(offset.grad());
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        const std::size_t j = (i + 1) % static_cast<std::size_t>(n), before = (i + static_cast<std::size_t>(n) - 1) % static_cast<std::size_t>(n);
        INFO("element " << i);
        CHECK(gp[i] == Approx(m[j] * 1.5).epsilon(1e-12));
        CHECK(gm[i] == Approx(p[before] * 1.5).epsilon(1e-12)); // mass[i] is read by thread i - 1
        CHECK(go[i] == Approx(std::cos(o[i])).epsilon(1e-12));
    }
    // Tape::zero clears the struct's arrays' gradients too.
    tape.zero();
    CHECK(read(pos.grad()) == std::vector<double>(static_cast<std::size_t>(n), 0.0));
}

TEST_CASE("struct locals holding arrays pass gradients on: copied in a loop, reassigned") {
    Fixture &f = fixture();
    const Kernel k = f.module.kernel("struct_locals");
    const Type holder = k.params()[0].type;
    std::mt19937 rng(33);
    const std::int64_t n = 4;
    Array a = random_array(f64, {n}, rng), a2 = random_array(f64, {n}, rng), x = random_array(f64, {n}, rng);
    Array out = Array::zeros(f64, {n}, Device::cpu(), true);
    StructValue p(holder), p2(holder);
    p.set("a", a).set("scale", 1.0);
    p2.set("a", a2).set("scale", 1.0);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({n}, {p, p2, x, static_cast<int>(n), out});
    }
    tape.backward(out);
    const std::vector<double> av = read(a), ga = read(a.grad()), ga2 = read(a2.grad()), gx = read(x.grad());
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        INFO("element " << i);
        CHECK(ga[i] == Approx(static_cast<double>(n) * 2.0 * av[i]).epsilon(1e-12)); // every thread's loop reads a[i]
        CHECK(ga2[i] == Approx(3.0).epsilon(1e-12));
        CHECK(gx[i] == Approx(2.0).epsilon(1e-12));
    }
}

TEST_CASE("debug mode checks the gradient arrays' bounds in the backward pass") {
    Fixture &f = fixture();
    ModuleLoadOptions debug;
    debug.debug = true;
    debug.name = "gradient_kernels_debug";
    CompiledModule m = f.host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "gradient_kernels.py", debug);
    Array x = Array::from_vector(f64, std::vector<double>{0.5, 0.8, 0.3, 0.1});
    Array out = Array::zeros(f64, {4});
    Array gx = Array::zeros(f64, {2}); // shorter than x: threads 2 and 3 add out of its bounds
    Array gout = Array::from_vector(f64, std::vector<double>{1.0, 1.0, 1.0, 1.0});
    const Kernel k = m.kernel("early_return");
    k.launch({4}, {x, out});
    CHECK_THROWS_WITH(k.launch_adjoint({4}, {x, out}, {gx, gout}), Catch::Contains("out of bounds"));
    // The module still launches.
    gx.zero_grad();
    write(gx, {0.0, 0.0});
    k.launch_adjoint({2}, {x, out}, {gx, gout});
    CHECK(read(gx)[0] == Approx(3.0));
}

namespace {
/// A module over the differentiable wt_dcomplex types.
CompiledModule dcomplex_module(Host &host, const char *name, const std::string &kernels) {
    return host.load_module_source(name, "import warp as wp\n\n" + kernels, fixture_options());
}

struct ComplexValue {
    float re, im;
};
} // namespace

TEST_CASE("differentiable native types: gradients through construction, builtins, field reads and arrays") {
    TempCache cache;
    Host host(host_options(cache.path));
    host.load(fs::path(WEFT_TEST_PLUGIN_DIR) / "wt_dcomplex");
    const NativeTypeInfo *complex_info = host.registry().native_type("wt_dcomplex::Complex");
    REQUIRE(complex_info);
    CHECK(complex_info->differentiable);
    CHECK(complex_info->code.rfind("nd", 0) == 0);
    CHECK_THAT(complex_info->describe(), Catch::Contains("differentiable (adjoints added field by field)"));
    CHECK_THAT(host.registry().native_type("wt_dcomplex::Polar")->describe(),
               Catch::Contains("differentiable (adjoints added by wt_dcomplex::polar_accumulate)"));
    const Type complex_t = host.registry().parse_type("wt_dcomplex::Complex");
    CHECK(complex_t.is_differentiable_native());

    CompiledModule m = dcomplex_module(host, "dcomplex_grads", R"(
@wp.kernel
def magnitude(re: wp.array(dtype=float), im: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    loss[i] = wp.dc_abs(wt_dcomplex.Complex(re[i], im[i]))


@wp.kernel
def product(re: wp.array(dtype=float), im: wp.array(dtype=float), out_re: wp.array(dtype=float),
            out_im: wp.array(dtype=float)):
    i = wp.tid()
    a = wt_dcomplex.Complex(re[i], im[i])
    b = wt_dcomplex.Complex(im[i], 2.0)
    p = wp.dc_mul(a, b)
    out_re[i] = p.re
    out_im[i] = p.im * 3.0


@wp.kernel
def fields(z: wp.array(dtype=wt_dcomplex.Complex), loss: wp.array(dtype=float)):
    i = wp.tid()
    v = z[i]
    loss[i] = v.re * v.re + 3.0 * v.im + wp.dc_abs(v)


@wp.kernel
def shared(z: wp.array(dtype=wt_dcomplex.Complex), loss: wp.array(dtype=float)):
    i = wp.tid()
    loss[i] = wp.dc_abs(z[0]) * float(i)


@wp.kernel
def polar(z: wp.array(dtype=wt_dcomplex.Complex), loss: wp.array(dtype=float)):
    i = wp.tid()
    p = wp.dc_polar(z[i])
    q = p
    loss[i] = wp.dc_radius(q) + p.theta


@wp.kernel
def scale(z: wp.array(dtype=wt_dcomplex.Complex), out: wp.array(dtype=wt_dcomplex.Complex)):
    i = wp.tid()
    out[i] = wp.dc_mul(z[i], wt_dcomplex.Complex(2.0, 1.0))
)");
    const auto backward = [](const Kernel &k, std::int64_t n, std::vector<KernelArg> args,
                             const std::vector<Array> &losses) {
        Tape tape;
        {
            Tape::Scope scope(tape);
            k.launch({n}, args);
        }
        std::vector<std::pair<Array, Array>> seeds;
        for (const Array &l : losses)
            seeds.emplace_back(l, Array::from_vector(f32, std::vector<float>(static_cast<std::size_t>(n), 1.0f)));
        tape.backward(seeds);
    };

    SECTION("the same module's forward and backward passes compile for CUDA (NVRTC, no device needed)") {
        if (!backend::nvrtc_available()) {
            WARN("NVRTC is not available: the CUDA compile of differentiable native types is not checked");
            return;
        }
        const fs::path file = cache.path / "dcomplex_cuda.py";
        std::ofstream(file) << "import warp as wp\n\n" << R"(
@wp.kernel
def fields(z: wp.array(dtype=wt_dcomplex.Complex), loss: wp.array(dtype=float)):
    i = wp.tid()
    v = z[i]
    p = wp.dc_polar(wp.dc_mul(v, wt_dcomplex.Complex(v.im, 2.0)))
    loss[i] = v.re * v.re + wp.dc_abs(z[0]) + wp.dc_radius(p) + p.theta
)";
        for (const Pass pass : {Pass::Forward, Pass::Backward})
            CHECK(host.compile_aot(file, {Target::cuda_ptx(90)}, {}, {}, pass).size() == 1);
    }
    SECTION("the issue's case: d|z|/d re at z = 3 + 4i is 0.6, not 0") {
        Array re = Array::from_vector(f32, std::vector<float>{3.0f, -1.0f}, Device::cpu(), true);
        Array im = Array::from_vector(f32, std::vector<float>{4.0f, 2.0f}, Device::cpu(), true);
        Array loss = Array::zeros(f32, {2}, Device::cpu(), true);
        backward(m.kernel("magnitude"), 2, {re, im, loss}, {loss});
        const std::vector<float> gre = re.grad().to_vector<float>(), gim = im.grad().to_vector<float>();
        CHECK(gre[0] == Approx(0.6f).epsilon(1e-6));
        CHECK(gim[0] == Approx(0.8f).epsilon(1e-6));
        CHECK(gre[1] == Approx(-1.0 / std::sqrt(5.0)).epsilon(1e-6));
        CHECK(gim[1] == Approx(2.0 / std::sqrt(5.0)).epsilon(1e-6));
    }
    SECTION("multiplication, through the constructor's arguments and the result's fields") {
        const std::vector<float> res{0.5f, -1.5f, 2.0f}, ims{1.0f, 0.25f, -0.5f};
        Array re = Array::from_vector(f32, res, Device::cpu(), true), im = Array::from_vector(f32, ims, Device::cpu(), true);
        Array out_re = Array::zeros(f32, {3}, Device::cpu(), true), out_im = Array::zeros(f32, {3}, Device::cpu(), true);
        backward(m.kernel("product"), 3, {re, im, out_re, out_im}, {out_re, out_im});
        // p = (re im - 2 im, 2 re + im^2); loss = p.re + 3 p.im.
        const std::vector<float> gre = re.grad().to_vector<float>(), gim = im.grad().to_vector<float>();
        for (std::size_t i = 0; i < 3; ++i) {
            INFO("element " << i);
            CHECK(gre[i] == Approx(ims[i] + 6.0f).epsilon(1e-6));
            CHECK(gim[i] == Approx(res[i] - 2.0f + 6.0f * ims[i]).epsilon(1e-6));
        }
    }
    SECTION("arrays of the type carry gradients: element reads, field reads, shared elements, a stored result") {
        const std::vector<ComplexValue> zs{{3.0f, 4.0f}, {-1.0f, 2.0f}, {0.5f, -0.5f}, {2.0f, 1.0f}};
        Array z = Array::zeros(complex_t, {4}, Device::cpu(), true);
        z.copy_from_host(zs.data(), z.nbytes());
        Array loss = Array::zeros(f32, {4}, Device::cpu(), true);
        backward(m.kernel("fields"), 4, {z, loss}, {loss});
        std::vector<ComplexValue> g(4);
        z.grad().copy_to_host(g.data(), z.nbytes());
        for (std::size_t i = 0; i < 4; ++i) {
            const double n = std::hypot(zs[i].re, zs[i].im);
            INFO("element " << i);
            CHECK(g[i].re == Approx(2.0 * zs[i].re + zs[i].re / n).epsilon(1e-6));
            CHECK(g[i].im == Approx(3.0 + zs[i].im / n).epsilon(1e-6));
        }
        // Every thread reads z[0]: its gradient is the sum of theirs, 0 + 1 + ... + 7 times d|z|.
        Array z8 = Array::zeros(complex_t, {8}, Device::cpu(), true);
        z8.copy_from_host(std::vector<ComplexValue>(8, ComplexValue{3.0f, 4.0f}).data(), z8.nbytes());
        Array loss8 = Array::zeros(f32, {8}, Device::cpu(), true);
        backward(m.kernel("shared"), 8, {z8, loss8}, {loss8});
        std::vector<ComplexValue> g8(8);
        z8.grad().copy_to_host(g8.data(), z8.nbytes());
        CHECK(g8[0].re == Approx(28 * 0.6).epsilon(1e-6));
        CHECK(g8[0].im == Approx(28 * 0.8).epsilon(1e-6));
        CHECK(g8[1].re == 0.0f);
        // A Complex result written to an array: launch_adjoint with its gradient.
        Array out = Array::zeros(complex_t, {4});
        Array adj_out = Array::zeros(complex_t, {4});
        adj_out.copy_from_host(std::vector<ComplexValue>(4, ComplexValue{1.0f, 0.0f}).data(), adj_out.nbytes());
        Array adj_z = Array::zeros(complex_t, {4});
        m.kernel("scale").launch({4}, {z, out});
        m.kernel("scale").launch_adjoint({4}, {z, out}, {adj_z, adj_out});
        std::vector<ComplexValue> gz(4);
        adj_z.copy_to_host(gz.data(), adj_z.nbytes());
        // adj_z = adj_out * conj(2 + i) = (1, 0) * (2, -1).
        CHECK(gz[2].re == Approx(2.0f));
        CHECK(gz[2].im == Approx(-1.0f));
    }
    SECTION("a type with its own accumulate function, its value used twice") {
        const std::vector<ComplexValue> zs{{3.0f, 4.0f}, {-1.0f, 2.0f}};
        Array z = Array::zeros(complex_t, {2}, Device::cpu(), true);
        z.copy_from_host(zs.data(), z.nbytes());
        Array loss = Array::zeros(f32, {2}, Device::cpu(), true);
        backward(m.kernel("polar"), 2, {z, loss}, {loss});
        std::vector<ComplexValue> g(2);
        z.grad().copy_to_host(g.data(), z.nbytes());
        for (std::size_t i = 0; i < 2; ++i) {
            const double n2 = zs[i].re * zs[i].re + zs[i].im * zs[i].im, n = std::sqrt(n2);
            INFO("element " << i);
            CHECK(g[i].re == Approx(zs[i].re / n - zs[i].im / n2).epsilon(1e-5));
            CHECK(g[i].im == Approx(zs[i].im / n + zs[i].re / n2).epsilon(1e-5));
        }
    }
}
