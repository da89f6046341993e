// Reverse-mode automatic differentiation through weft::Tape: gradients of
// kernels with control flow, functions, structs, atomics and the ported
// Warp gradient tests, each checked against central finite differences in
// float64; the seed's tape test with a native value; lazy backward builds.
#include "weft/host/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
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

struct Fixture {
    TempCache cache;
    Host host{host_options(cache.path)};
    CompiledModule module = host.load_module(fs::path(WEFT_AUTODIFF_DIR) / "gradient_kernels.py");
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
            if (e.is_regular_file() && e.path().extension() == ".bin") ++n;
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
        loss.zero_grad(); // backward() seeds by adding 1: a failed pass leaves its seed behind
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
                   Catch::Contains("Pass the float parts to a builtin that takes them"));
    CHECK_THAT(backward_error(field, "field", {re, im, loss}),
               Catch::Contains("kernel 'field': reading field 're' passes a gradient to a value of native type "
                               "wt_adjoint::Complex, whose value depends on differentiable inputs"));
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
