// weft on a CUDA device, through the generic API (Host::load_module with a
// CUDA device in ModuleLoadOptions, Kernel::launch, weft::Stream): device
// arrays, modules compiled by NVRTC and loaded with the driver, launches,
// streams, the raw CUDA events under weft::Stream, the external
// (constant-params) entry ABI and its attributes through the raw driver, and
// CPU/CUDA agreement.
//
// Tests that need a device are reported Skipped ("skipped: no CUDA device
// (...)", exit 77) where there is none; the parts that need only NVRTC (compiling to CUBIN) run
// before that check. Without a driver, loading a module on a CUDA device must fail clearly.
#include "weft/backend/cuda.hpp"
#include "cuda/stream_event.hpp"
#include "weft/modules/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/stream.hpp"

#define CUDA_CALLABLE
#include "corpus_runs.hpp"
#include "seed_fixtures.h"
#include "skip.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

using namespace weft;
namespace fs = std::filesystem;
using backend::CudaDriver;

namespace {

const fs::path corpus = fs::path(WEFT_KERNEL_TEST_DIR) / "corpus";
const fs::path seed_plugin = fs::path(WEFT_TEST_PLUGIN_DIR) / "seed_fixtures";
const fs::path seed_kernels = fs::path(WEFT_E2E_KERNEL_DIR) / "seed_fixtures.py";

/// The artifact cache: WEFT_CACHE_DIR (CTest points it into the build tree) or a temp dir.
fs::path cache_root() {
    const char *base = std::getenv("WEFT_CACHE_DIR");
    return base && *base ? fs::path(base) : fs::temp_directory_path() / "weft-gpu-tests";
}

HostOptions host_options() {
    HostOptions o;
    o.use_environment = false;
    o.cache_dir = cache_root();
    o.quiet = true;
    return o;
}

/// A kernel source written under the cache root (compile_aot takes files): one
/// stable path, so reruns hit the artifact cache; written atomically, as test
/// processes run in parallel.
fs::path write_kernel(const std::string &name, const std::string &text) {
    const fs::path dir = cache_root() / "test-kernel-sources";
    fs::create_directories(dir);
    const fs::path file = dir / (name + ".py");
    const fs::path tmp = dir / (name + ".py.tmp" + std::to_string(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        REQUIRE(out);
    }
    fs::rename(tmp, file);
    return file;
}

/// The bytes of a file (a CUBIN or PTX artifact).
std::string read_bytes(const fs::path &file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Loads on cuda:0.
ModuleLoadOptions on_cuda() {
    ModuleLoadOptions o;
    o.device = Device::cuda(0);
    return o;
}

/// Ends the case as skipped (CTest: "Skipped") unless a CUDA device can run it.
void require_device() {
    const std::string reason = cuda_unavailable_reason();
    if (!reason.empty()) test::skip("no CUDA device (" + reason + ")");
}

template <class F> std::string error_of(F &&f) {
    try {
        f();
    } catch (const std::exception &e) {
        return e.what();
    }
    return {};
}

const Type f32 = Type::scalar(Scalar::Float32);

/// Element-wise equality of float data within a few ulps (NVRTC contracts mul + add into fma, Clang does not).
void check_close(const std::vector<float> &cpu, const std::vector<float> &gpu, const char *what) {
    REQUIRE(cpu.size() == gpu.size());
    std::size_t bad = 0, first = cpu.size();
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        const float a = cpu[i], b = gpu[i];
        const bool ok = a == b || (std::isnan(a) && std::isnan(b)) ||
                        std::fabs(a - b) <= 1e-5f * std::max(1.0f, std::max(std::fabs(a), std::fabs(b)));
        if (!ok && bad++ == 0) first = i;
    }
    INFO(what << ": " << bad << " of " << cpu.size() << " elements differ"
              << (bad ? ", first at " + std::to_string(first) + ": cpu " + std::to_string(cpu[first]) + ", cuda " +
                            std::to_string(gpu[first])
                      : std::string()));
    CHECK(bad == 0);
}

/// Floats of an Array of any float32-based dtype (vec3, mat33, ...).
std::vector<float> floats(const Array &a) {
    std::vector<float> out(a.nbytes() / sizeof(float));
    a.copy_to_host(out.data(), out.size() * sizeof(float));
    return out;
}

Array float_array(const Type &dtype, std::vector<std::int64_t> shape, const std::function<float(std::size_t)> &value) {
    std::int64_t count = 1;
    for (std::int64_t n : shape) count *= n;
    std::vector<float> data(static_cast<std::size_t>(count) * dtype.size() / sizeof(float));
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = value(i);
    return Array::from_host(dtype, std::move(shape), data.data(), data.size() * sizeof(float));
}

// The external-runtime kernel: a params struct with an array, read from __constant__ params.
const char *const external_source = R"(import warp as wp


@wp.struct
class Params:
    scale: float
    out: wp.array(dtype=float)


@wp.kernel(enable_backward=False, entry_point_abi="external_constant_params", name="__raygen__external_params_kernel")
def raygen(p: Params):
    p.out[0] = p.scale * 2.0
)";

/// Params as the kernel sees it: float scale @0, weft::array_t<float> out @8; 72 bytes.
struct HostParams {
    float scale;
    std::uint32_t padding;
    unsigned char out[64];
};
static_assert(sizeof(HostParams) == 72);

} // namespace

// ---------------------------------------------------------------------------
// Runs everywhere

TEST_CASE("without a CUDA driver, loading a module on cuda:0 fails clearly and the CPU path works") {
    if (CudaDriver::instance().available()) {
        test::skip("a CUDA driver is installed (driver " + std::to_string(CudaDriver::instance().driver_version()) + ")");
    }
    Host host(host_options());
    ModuleLoadOptions on_device;
    on_device.device = Device::cuda(0);
    const std::string message = error_of([&] { host.load_module(corpus / "saxpy.py", on_device); });
    CHECK_THAT(message, Catch::Contains("CUDA driver not available"));
    CHECK_THAT(error_of([] { Array::zeros(f32, {4}, Device::cuda(0)); }), Catch::Contains("CUDA driver not available"));
    CHECK_THAT(error_of([] { CudaStream stream; }), Catch::Contains("CUDA driver not available"));
    CHECK_THAT(error_of([] { CudaEvent event; }), Catch::Contains("CUDA driver not available"));
    CHECK_THAT(error_of([] { cuda_compute_capability(0); }), Catch::Contains("CUDA driver not available"));
    // load_aot needs the driver before it looks at the directory.
    const fs::path aot = cache_root() / "aot-no-driver";
    CHECK_THAT(error_of([&] { host.load_aot(corpus / "saxpy.py", aot, on_device); }),
               Catch::Contains("CUDA driver not available"));
    CHECK(cuda_device_count() == 0);
    CHECK_THAT(cuda_unavailable_reason(), Catch::StartsWith("CUDA driver not available: "));

    // The CPU path is unaffected.
    CompiledModule cpu = host.load_module(corpus / "saxpy.py");
    Array x = Array::from_vector(f32, std::vector<float>{1, 2, 3});
    Array y = Array::from_vector(f32, std::vector<float>{10, 20, 30});
    Array out = Array::zeros(f32, {3});
    cpu.kernel("saxpy").launch({3}, {x, y, out, 2.0f});
    CHECK(out.to_vector<float>() == std::vector<float>{12, 24, 36});
}

// ---------------------------------------------------------------------------
// Need a device (the CUBIN compiles run wherever NVRTC is)

TEST_CASE("one kernel file, the same calls on cpu and cuda:0: load, arrays, launch, stream, expect failures") {
    Host host(host_options());
    auto run_on = [&](Device device) {
        ModuleLoadOptions options;
        options.device = device;
        CompiledModule m = host.load_module(corpus / "saxpy.py", options);
        CHECK(m.device() == device);
        CHECK(host.load_module(corpus / "saxpy.py", options) == m); // unchanged: the loaded module
        Array x = Array::from_vector(f32, std::vector<float>{1, 2, 3}, device);
        Array y = Array::from_vector(f32, std::vector<float>{10, 20, 30}, device);
        Array out = Array::zeros(f32, {3}, device);
        const Kernel k = m.kernel("saxpy");
        k.launch({3}, {x, y, out, 2.0f});
        std::vector<float> sync = out.to_vector<float>();
        Stream stream(device);
        k.launch({3}, {x, y, out, 3.0f}, LaunchOptions{&stream});
        stream.synchronize();
        Array back = Array::zeros(f32, {3});
        copy(back, out);
        // An array on the other device is refused by name.
        const Device other = device.is_cpu() ? Device::cuda(0) : Device::cpu();
        CHECK_THAT(error_of([&] { k.launch({3}, {Array::zeros(f32, {3}, other), y, out, 1.0f}); }),
                   Catch::Contains("parameter 'x': the array is on " + other.name() + ", the kernel runs on " +
                                   device.name()));
        return std::make_pair(sync, back.to_vector<float>());
    };
    require_device();
    const auto cpu = run_on(Device::cpu());
    const auto gpu = run_on(Device::cuda(0));
    CHECK(cpu.first == std::vector<float>{12, 24, 36});
    CHECK(cpu.second == std::vector<float>{13, 26, 39});
    CHECK(gpu == cpu);
}

TEST_CASE("saxpy on cuda:0 equals the CPU result for 1e6 elements") {
    require_device();
    Host host(host_options());
    const std::size_t n = 1000000;
    std::vector<float> xs(n), ys(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = static_cast<float>(i % 1000) * 0.5f; // exact products and sums: fma or not, the same result
        ys[i] = static_cast<float>(i % 7);
    }
    Array x = Array::from_vector(f32, xs), y = Array::from_vector(f32, ys), out = Array::zeros(f32, {std::int64_t(n)});
    host.load_module(corpus / "saxpy.py").kernel("saxpy").launch({std::int64_t(n)}, {x, y, out, 2.0f});

    const CompiledModule m = host.load_module(corpus / "saxpy.py", on_cuda());
    CHECK(m.device() == Device::cuda(0));
    CHECK(m.kernel_names() == std::vector<std::string>{"saxpy"});
    const Kernel k = m.kernel("saxpy");
    CHECK(k.device() == Device::cuda(0));
    Array dx = x.to(Device::cuda(0)), dy = y.to(Device::cuda(0));
    Array dout = Array::zeros(f32, {std::int64_t(n)}, Device::cuda(0));
    k.launch({std::int64_t(n)}, {dx, dy, dout, 2.0f}); // synchronous: done on return
    CHECK(dout.to(Device::cpu()).to_vector<float>() == out.to_vector<float>());

    // Another block size, the suggested one (block_dim 0: the occupancy
    // calculator's), and a stream: the same result.
    Array d2 = Array::zeros(f32, {std::int64_t(n)}, Device::cuda(0));
    k.launch({std::int64_t(n)}, {dx, dy, d2, 2.0f}, LaunchOptions{nullptr, 64});
    CHECK(d2.to(Device::cpu()).to_vector<float>() == out.to_vector<float>());
    Stream stream(Device::cuda(0));
    Array d3 = Array::zeros(f32, {std::int64_t(n)}, Device::cuda(0));
    k.launch({std::int64_t(n)}, {dx, dy, d3, 2.0f}, LaunchOptions{&stream, 0});
    stream.synchronize();
    CHECK(d3.to(Device::cpu()).to_vector<float>() == out.to_vector<float>());

    // What was loaded: the CUBIN for the device's architecture, else PTX.
    const std::string kind = m.artifact_path().extension().string();
    CHECK((kind == ".cubin" || kind == ".ptx"));
    WARN("saxpy on cuda:0 (" << kind.substr(kind.empty() ? 0 : 1) << ", sm_" << cuda_compute_capability(0)
                             << "): load " << m.load_ms() << " ms");

    // Arguments are checked as on the CPU.
    CHECK_THAT(error_of([&] { k.launch({4}, {dx, dy, dout}); }), Catch::Contains("takes 4 arguments (x, y, out, alpha), got 3"));
    CHECK_THAT(error_of([&] { k.launch({4}, {dx, dy, dout, 2.0}); }), Catch::Contains("parameter 'alpha': expected float32, got float64"));
    CHECK_THAT(error_of([&] { k.launch({4}, {KernelArg(x), dy, dout, 2.0f}); }),
               Catch::Contains("the array is on cpu, the kernel runs on cuda:0 (copy it with Array::to)"));
    CHECK_THAT(error_of([&] { k.launch({4}, {dx, dy, dout, 2.0f}, LaunchOptions{nullptr, 4096}); }),
               Catch::Contains("block size 4096"));
    k.launch({0}, {dx, dy, dout, 2.0f}); // nothing to run
}

TEST_CASE("load_aot runs saxpy from an AOT directory: the CUBIN, else PTX - a missing or stale artifact is named") {
    require_device();
    Host host(host_options());
    const int cc = cuda_compute_capability(0);
    const fs::path dir = cache_root() / ("aot-load-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const fs::path saxpy = corpus / "saxpy.py";

    ModuleLoadOptions on_device;
    on_device.device = Device::cuda(0);
    // Nothing there yet: every path tried is listed.
    const std::string missing = error_of([&] { host.load_aot(saxpy, dir, on_device); });
    CHECK_THAT(missing, Catch::Contains("no AOT artifact of module 'saxpy'"));
    CHECK_THAT(missing, Catch::Contains("saxpy.cuda-sm_" + std::to_string(cc) + "-cubin.cubin"));

    const std::vector<float> xs{1, 2, 3, 4}, ys{10, 20, 30, 40}, want{12, 24, 36, 48};
    auto run = [&](const CompiledModule &m) {
        Array dx = (Array::from_vector(f32, xs)).to(Device::cuda(0));
        Array dy = (Array::from_vector(f32, ys)).to(Device::cuda(0));
        Array dout = Array::zeros(f32, {4}, Device::cuda(0));
        m.kernel("saxpy").launch({4}, {dx, dy, dout, 2.0f}); // synchronous: done on return
        return dout.to(Device::cpu()).to_vector<float>();
    };

    // PTX only (an older arch): loaded as PTX, JIT-compiled by the driver.
    const std::vector<int> archs = backend::nvrtc_supported_archs();
    int ptx_arch = 0;
    for (int a : archs)
        if (a < cc) ptx_arch = a;
    if (ptx_arch != 0) {
        host.compile_aot(saxpy, {Target::cuda_ptx(ptx_arch)}, {}, dir);
        const CompiledModule m = host.load_aot(saxpy, dir, on_device);
        CHECK(m.device() == Device::cuda(0));
        CHECK(m.artifact_path().filename() == "saxpy.cuda-compute_" + std::to_string(ptx_arch) + "-ptx.ptx");
        CHECK(m.from_cache());
        CHECK(run(m) == want);
    }
    // With the device's CUBIN present, that is what loads.
    if (std::find(archs.begin(), archs.end(), cc) != archs.end()) {
        const fs::path cubin = host.compile_aot(saxpy, {Target::cuda_cubin(cc)}, {}, dir).at(0);
        const CompiledModule m = host.load_aot(saxpy, dir, on_device);
        CHECK(m.artifact_path() == cubin);
        CHECK(host.loaded_module("saxpy", Device::cuda(0)) == m);
        CHECK(run(m) == want);

        // The source changed since (another signature): the stale artifact is rejected by name.
        const fs::path changed = write_kernel("saxpy", R"(import warp as wp


@wp.kernel
def saxpy(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64), alpha: wp.float64):
    i = wp.tid()
    out[i] = alpha * x[i] + y[i]
)");
        fs::create_directories(dir / "stale");
        fs::copy_file(cubin, dir / "stale" / cubin.filename(), fs::copy_options::overwrite_existing);
        const std::string stale = error_of([&] { host.load_aot(changed, dir / "stale", on_device); });
        CHECK_THAT(stale, Catch::Contains("module 'saxpy'"));
        CHECK_THAT(stale, Catch::Contains("built from a different version of the source"));
    }
    host.unload_module("saxpy"); // its handles above are gone: the code is unloaded
    fs::remove_all(dir);
}

TEST_CASE("the seed fixtures on cuda:0 give the CPU's values") {
    require_device();
    Host host(host_options());
    host.load(seed_plugin);
    const CompiledModule m = host.load_module(seed_kernels, on_cuda());
    auto native = [&](const char *name) {
        const NativeTypeInfo *t = host.registry().native_type(name);
        REQUIRE(t != nullptr);
        return t->type();
    };
    const Type pixel_t = native("warp_test::Pixel"), image_t = native("warp_test::Image"),
               color_t = native("warp_test::Color"), padded_t = native("warp_test::PaddedValue");
    const Type u64 = Type::scalar(Scalar::UInt64);

    Array pixels = Array::zeros(pixel_t, {2}, Device::cuda(0));
    Array images =
        (Array::from_vector(image_t, std::vector<warp_test::Image>{{11}, {29}})).to(Device::cuda(0));
    Array colors = Array::zeros(color_t, {2}, Device::cuda(0));
    Array handles = Array::zeros(u64, {2}, Device::cuda(0));
    m.kernel("native_array_kernel").launch({2}, {pixels, images, colors, handles}); // synchronous
    CHECK(handles.to(Device::cpu()).to_vector<std::uint64_t>() == std::vector<std::uint64_t>{11, 29});
    const std::vector<warp_test::Color> c = colors.to(Device::cpu()).to_vector<warp_test::Color>();
    REQUIRE(c.size() == 2);
    CHECK(c[0].r == 0.0f);
    CHECK(c[1].r == 2.0f);
    CHECK(c[0].g == 1.0f);
    CHECK(c[1].g == 1.0f);
    CHECK(c[0].b == 6.0f);
    CHECK(c[1].b == 6.0f);
    const std::vector<warp_test::Pixel> p = pixels.to(Device::cpu()).to_vector<warp_test::Pixel>();
    REQUIRE(p.size() == 2);
    CHECK(p[0].index == 0);
    CHECK(p[1].index == 1);
    CHECK(p[0].color.g == 0.5f);
    CHECK(p[1].color.g == 0.5f);

    // A @wp.struct with a native field and an opaque native value, by value.
    struct NativeContainer {
        warp_test::Color color;
    };
    const Type container_t =
        Type::structure(StructLayout::make("NativeContainer", {StructLayout::Field{"color", color_t, 0}}));
    m.kernel("native_struct_kernel")
        .launch({1}, {KernelArg::of(container_t, NativeContainer{warp_test::Color{4.0f, 5.0f, 6.0f}}),
                      KernelArg::of(image_t, warp_test::Image{41}), colors, handles});
    const std::vector<warp_test::Color> after = colors.to(Device::cpu()).to_vector<warp_test::Color>();
    CHECK(after[0].r == 4.0f);
    CHECK(after[0].g == 5.0f);
    CHECK(after[0].b == 6.0f);
    CHECK(after[1].r == 2.0f);
    const std::vector<std::uint64_t> h = handles.to(Device::cpu()).to_vector<std::uint64_t>();
    CHECK(h[0] == 41);
    CHECK(h[1] == 29);

    // The padded native type, copied whole by a kernel: padding bytes included.
    std::vector<unsigned char> bytes(2 * sizeof(warp_test::PaddedValue));
    const warp_test::PaddedValue v{7, 13};
    for (std::size_t i = 0; i < 2; ++i) std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
    const unsigned char padding[2][3] = {{0xA5, 0x5A, 0xC3}, {0x3C, 0x96, 0x69}};
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t b = 0; b < 3; ++b) bytes[i * sizeof v + 1 + b] = padding[i][b];
    Array src = (Array::from_host(padded_t, {2}, bytes.data(), bytes.size())).to(Device::cuda(0));
    Array dst = Array::zeros(padded_t, {2}, Device::cuda(0));
    m.kernel("padded_copy").launch({2}, {src, dst});
    std::vector<unsigned char> copied(bytes.size());
    dst.to(Device::cpu()).copy_to_host(copied.data(), copied.size());
    CHECK(copied == bytes);

    Array out = Array::zeros(f32, {1}, Device::cuda(0));
    m.kernel("preamble_kernel").launch({1}, {out});
    CHECK(out.to(Device::cpu()).to_vector<float>() == std::vector<float>{3.0f});
    m.kernel("preamble_cast_kernel").launch({1}, {out});
    CHECK(out.to(Device::cpu()).to_vector<float>() == std::vector<float>{7.0f});
}

TEST_CASE("an external_constant_params entry runs through the raw driver with __constant__ params") {
    const bool nvrtc = backend::nvrtc_available();
    if (!nvrtc) {
        test::skip("weft was built without NVRTC");
    }
    Host host(host_options());
    const fs::path file = write_kernel("external_params", external_source);
    // Compiling needs no device.
    const int arch = cuda_unavailable_reason().empty()
                         ? CudaDriver::instance().compute_capability(CudaDriver::instance().device(0))
                         : 90;
    const std::vector<fs::path> paths = host.compile_aot(file, {Target::cuda_cubin(arch)});
    REQUIRE(paths.size() == 1);
    const std::string image = read_bytes(paths[0]);
    REQUIRE(image.size() > 4);
    CHECK(image.compare(0, 4, "\x7f" "ELF") == 0);
    require_device();

    CudaDriver &d = CudaDriver::instance();
    const backend::CudaDevice dev = d.device(0);
    backend::CudaContext ctx = d.primary_context_retain(dev);
    d.set_current_context(ctx);
    backend::CudaModule module = d.module_load_data(image.data());
    const auto [params_ptr, params_size] = d.module_get_global(module, "params");
    CHECK(params_size == sizeof(HostParams));
    const backend::CudaDevicePtr out = d.mem_alloc(sizeof(float));
    d.memset_d8(out, 0, sizeof(float));

    HostParams params{};
    params.scale = 1.75f;
    const std::int32_t shape[4] = {1, 0, 0, 0};
    const std::int64_t strides[4] = {sizeof(float), 0, 0, 0};
    const std::int32_t ndim = 1;
    std::memcpy(params.out + 0, &out, sizeof out);
    std::memcpy(params.out + 8, shape, sizeof shape);
    std::memcpy(params.out + 24, strides, sizeof strides);
    std::memcpy(params.out + 56, &ndim, sizeof ndim);
    d.memcpy_htod(params_ptr, &params, sizeof params);
    backend::CudaFunction f = d.module_get_function(module, "__raygen__external_params_kernel");
    d.launch_kernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr);
    d.context_synchronize();
    float result = 0;
    d.memcpy_dtoh(&result, out, sizeof result);
    CHECK(result == 2.0f * 1.75f);
    d.mem_free(out);
    d.module_unload(module);
    d.primary_context_release(dev);

    // Through weft: the kernel is listed (found by its name= too), the image
    // weft loaded has its entry, with attributes, and weft refuses to launch it.
    const CompiledModule m = host.load_module(file, on_cuda());
    CHECK(m.device() == Device::cuda(0));
    CHECK(m.kernel_names() == std::vector<std::string>{"raygen"});
    const Kernel k = m.kernel("raygen");
    CHECK(m.kernel("__raygen__external_params_kernel").name() == "raygen");
    {
        const std::string loaded = read_bytes(m.artifact_path()); // its CUBIN or PTX (NUL-terminated here)
        REQUIRE_FALSE(loaded.empty());
        const CudaContextGuard context(0);
        backend::CudaModule raw = d.module_load_data(loaded.c_str());
        const backend::CudaFunction entry = d.module_get_function(raw, "__raygen__external_params_kernel");
        const backend::CudaFunctionAttributes a = d.function_attributes(entry);
        CHECK(a.max_threads_per_block > 0);
        CHECK(d.max_potential_block_size(entry).second > 0);
        d.module_unload(raw);
    }
    const Type params_t = k.params().at(0).type;
    CHECK_THAT(error_of([&] { k.launch({1}, {KernelArg::of(params_t, params)}); }),
               Catch::Contains("cannot be launched by weft"));
    CHECK_THAT(error_of([&] { k.launch({0}, {KernelArg::of(params_t, params)}); }),
               Catch::Contains("cannot be launched by weft"));
}

TEST_CASE("events time a launch on a stream") {
    require_device();
    Host host(host_options());
    const CompiledModule m = host.load_module(corpus / "saxpy.py", on_cuda());
    const std::int64_t n = 1 << 20;
    Array x = Array::zeros(f32, {n}, Device::cuda(0)), y = Array::zeros(f32, {n}, Device::cuda(0)), out = Array::zeros(f32, {n}, Device::cuda(0));
    // weft launches on a weft::Stream; the timing events are recorded on its
    // CUstream with the driver (CudaEvent::record takes a CudaStream).
    Stream stream(Device::cuda(0), /*non_blocking=*/true);
    const auto cu_stream = static_cast<backend::CudaStream>(stream.native_handle());
    REQUIRE(cu_stream != nullptr);
    CudaDriver &d = CudaDriver::instance();
    CudaEvent start, end;
    {
        const CudaContextGuard context(0);
        d.event_record(start.handle(), cu_stream);
    }
    m.kernel("saxpy").launch({n}, {x, y, out, 1.0f}, LaunchOptions{&stream, 256});
    {
        const CudaContextGuard context(0);
        d.event_record(end.handle(), cu_stream);
    }
    end.synchronize();
    CHECK(end.query());
    CHECK(start.query());
    const float ms = CudaEvent::elapsed_ms(start, end);
    CHECK(ms >= 0.0f);
    WARN("saxpy of 2^20 elements: " << ms << " ms");
    stream.synchronize(); // the launch's expect_* checks: none failed
    // An event without timing cannot be timed: the driver says so, naming the call.
    CudaStream raw(0, true);
    CudaEvent untimed(0, false);
    untimed.record(&raw);
    untimed.synchronize();
    CHECK_THAT(error_of([&] { CudaEvent::elapsed_ms(start, untimed); }), Catch::Contains("cuEventElapsedTime"));
}

TEST_CASE("device arrays round-trip byte-exactly") {
    require_device();
    // float32 2-D, vec3, float64, a strided host view, an empty array.
    Array a = float_array(f32, {5, 7}, [](std::size_t i) { return static_cast<float>(i) * 0.37f - 3.0f; });
    Array da = a.to(Device::cuda(0));
    CHECK(da.shape() == a.shape());
    CHECK(da.strides() == a.strides());
    CHECK(da.type() == a.type());
    CHECK(da.to(Device::cpu()).to_vector<float>() == a.to_vector<float>());

    const Type vec3 = Type::vector(Scalar::Float32, 3);
    Array v = float_array(vec3, {33}, [](std::size_t i) { return std::sin(static_cast<float>(i)); });
    CHECK(floats(v.to(Device::cuda(0)).to(Device::cpu())) == floats(v));

    std::vector<double> ds{1.0 / 3.0, -0.0, 1e300, 5e-324};
    Array d = Array::from_vector(Type::scalar(Scalar::Float64), ds);
    CHECK(d.to(Device::cuda(0)).to(Device::cpu()).to_vector<double>() == ds);

    Array strided = a.view({5, 3}, {a.strides()[0], 2 * a.strides()[1]}, 4); // columns 1, 3, 5
    Array ds2 = strided.to(Device::cuda(0));
    CHECK(ds2.to(Device::cpu()).to_vector<float>() == strided.to_vector<float>());

    Array empty = Array::zeros(f32, {0, 3}, Device::cuda(0));
    CHECK(empty.size() == 0);
    CHECK(empty.to(Device::cpu()).size() == 0);

    // A padded 8-byte native type: padding bytes survive both copies.
    Host host(host_options());
    host.load(seed_plugin);
    const NativeTypeInfo *padded = host.registry().native_type("warp_test::PaddedValue");
    REQUIRE(padded != nullptr);
    const Type padded_t = padded->type();
    REQUIRE(padded_t.size() == 8);
    std::vector<unsigned char> bytes(8 * 16);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
    Array p = Array::from_host(padded_t, {16}, bytes.data(), bytes.size());
    Array dp = p.to(Device::cuda(0));
    std::vector<unsigned char> back(bytes.size());
    dp.to(Device::cpu()).copy_to_host(back.data(), back.size());
    CHECK(back == bytes);

    CHECK_THAT(error_of([&] { copy(dp, a); }), Catch::Contains("copy: the destination is"));
    CHECK_THAT(error_of([] { Array::zeros(f32, {}, Device::cuda(0)); }), Catch::Contains("1 to 4 dimensions"));
    CHECK_THAT(error_of([] { Array::zeros(f32, {1}, Device::cuda(cuda_device_count())); }), Catch::Contains("no CUDA device cuda:"));
}

TEST_CASE("CPU and CUDA agree on corpus kernels without atomics") {
    require_device();
    Host host(host_options());

    SECTION("stencil2d: laplacian and heat_step (2-D launches)") {
        CompiledModule cpu = host.load_module(corpus / "stencil2d.py");
        const CompiledModule gpu = host.load_module(corpus / "stencil2d.py", on_cuda());
        const std::int64_t nx = 67, ny = 45;
        Array u = float_array(f32, {nx, ny}, [](std::size_t i) { return std::cos(static_cast<float>(i) * 0.01f); });
        Array out = Array::zeros(f32, {nx, ny});
        cpu.kernel("laplacian").launch({nx, ny}, {u, out, 1.0f}); // h = 1: no amplification of fma rounding differences
        Array du = u.to(Device::cuda(0)), dout = Array::zeros(f32, {nx, ny}, Device::cuda(0));
        gpu.kernel("laplacian").launch({nx, ny}, {du, dout, 1.0f});
        check_close(floats(out), floats(dout.to(Device::cpu())), "laplacian");

        Array t_next = Array::zeros(f32, {nx, ny});
        cpu.kernel("heat_step").launch({nx, ny}, {u, t_next, 0.2f, 0.05f});
        Array dt_next = Array::zeros(f32, {nx, ny}, Device::cuda(0));
        gpu.kernel("heat_step").launch({nx, ny}, {du, dt_next, 0.2f, 0.05f});
        check_close(floats(t_next), floats(dt_next.to(Device::cpu())), "heat_step");
    }

    SECTION("matrix_transforms: transform_points, rotate_normals, determinants") {
        CompiledModule cpu = host.load_module(corpus / "matrix_transforms.py");
        const CompiledModule gpu = host.load_module(corpus / "matrix_transforms.py", on_cuda());
        const std::int64_t n = 1000;
        const Type vec3 = Type::vector(Scalar::Float32, 3), mat33 = Type::matrix(Scalar::Float32, 3, 3),
                   mat44 = Type::matrix(Scalar::Float32, 4, 4);
        Array pts = float_array(vec3, {n}, [](std::size_t i) { return std::sin(static_cast<float>(i) * 0.7f) * 5.0f; });
        float xf[16] = {0.9f, -0.1f, 0.2f, 1.0f, 0.1f, 1.1f, 0.0f, -2.0f, -0.2f, 0.05f, 0.95f, 0.5f, 0.0f, 0.01f, 0.02f, 1.0f};
        Array out = Array::zeros(vec3, {n});
        cpu.kernel("transform_points").launch({n}, {pts, KernelArg::value(mat44, xf, sizeof xf), out});
        Array dpts = pts.to(Device::cuda(0)), dout = Array::zeros(vec3, {n}, Device::cuda(0));
        gpu.kernel("transform_points").launch({n}, {dpts, KernelArg::value(mat44, xf, sizeof xf), dout});
        check_close(floats(out), floats(dout.to(Device::cpu())), "transform_points");

        float rot[9] = {0.36f, 0.48f, -0.8f, -0.8f, 0.6f, 0.0f, 0.48f, 0.64f, 0.6f};
        cpu.kernel("rotate_normals").launch({n}, {pts, KernelArg::value(mat33, rot, sizeof rot), out});
        gpu.kernel("rotate_normals").launch({n}, {dpts, KernelArg::value(mat33, rot, sizeof rot), dout});
        check_close(floats(out), floats(dout.to(Device::cpu())), "rotate_normals");

        Array mats = float_array(mat33, {n}, [](std::size_t i) { return std::cos(static_cast<float>(i) * 1.3f); });
        Array dets = Array::zeros(f32, {n});
        cpu.kernel("determinants").launch({n}, {mats, dets});
        Array dmats = mats.to(Device::cuda(0)), ddets = Array::zeros(f32, {n}, Device::cuda(0));
        gpu.kernel("determinants").launch({n}, {dmats, ddets});
        check_close(floats(dets), floats(ddets.to(Device::cpu())), "determinants");
    }

    SECTION("particles: integrate, apply_wind, collide_sphere (module constants, vec3 values)") {
        CompiledModule cpu = host.load_module(corpus / "particles.py");
        const CompiledModule gpu = host.load_module(corpus / "particles.py", on_cuda());
        const std::int64_t n = 4096;
        const Type vec3 = Type::vector(Scalar::Float32, 3);
        Array x = float_array(vec3, {n}, [](std::size_t i) { return std::sin(static_cast<float>(i)) * 2.0f + 0.5f; });
        Array v = float_array(vec3, {n}, [](std::size_t i) { return std::cos(static_cast<float>(i) * 0.3f); });
        Array inv_mass = float_array(f32, {n}, [](std::size_t i) { return i % 10 == 0 ? 0.0f : 1.0f; });
        Array dx = x.to(Device::cuda(0)), dv = v.to(Device::cuda(0)),
                    dm = inv_mass.to(Device::cuda(0));
        const float wind[3] = {1.0f, 0.0f, -0.5f}, center[3] = {0.0f, 1.0f, 0.0f};
        for (int step = 0; step < 10; ++step) {
            cpu.kernel("integrate").launch({n}, {x, v, inv_mass, 0.01f});
            gpu.kernel("integrate").launch({n}, {dx, dv, dm, 0.01f});
            cpu.kernel("apply_wind").launch({n}, {v, KernelArg::value(vec3, wind, sizeof wind), 0.1f, 0.01f});
            gpu.kernel("apply_wind").launch({n}, {dv, KernelArg::value(vec3, wind, sizeof wind), 0.1f, 0.01f});
            cpu.kernel("collide_sphere").launch({n}, {x, KernelArg::value(vec3, center, sizeof center), 1.5f});
            gpu.kernel("collide_sphere").launch({n}, {dx, KernelArg::value(vec3, center, sizeof center), 1.5f});
        }
        check_close(floats(x), floats(dx.to(Device::cpu())), "particles x");
        check_close(floats(v), floats(dv.to(Device::cpu())), "particles v");
    }
    for (const char *name : {"stencil2d", "matrix_transforms", "particles"}) host.unload_module(name);
}

TEST_CASE("CPU and CUDA gradients agree: branches, dynamic loops, functions and atomics through a Tape") {
    require_device();
    Host host(host_options());
    const fs::path file = write_kernel("gpu_gradients", R"(import warp as wp

@wp.func
def poly(x: wp.float64, n: int) -> wp.float64:
    acc = wp.float64(0.0)
    p = wp.float64(1.0)
    for k in range(n):
        acc = acc + p
        p = p * x
    return acc

@wp.kernel
def grads(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64), total: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    y = wp.float64(0.0)
    if v > wp.float64(0.5):
        y = wp.sin(v) * v
    else:
        y = v * v * v
    for k in range(n):
        if k == 3:
            break
        y = y * wp.float64(1.5) + wp.cos(v)
    out[i] = y + poly(v, n)
    wp.atomic_add(total, 0, y * y)
)");
    const Type f64 = Type::scalar(Scalar::Float64);
    const std::size_t n = 4096;
    std::vector<double> xs(n);
    for (std::size_t i = 0; i < n; ++i) xs[i] = 0.001 * static_cast<double>(i % 1000);
    auto run_on = [&](Device device) {
        ModuleLoadOptions options;
        options.device = device;
        CompiledModule m = host.load_module(file, options);
        Array x = Array::from_vector(f64, xs, device, true);
        Array out = Array::zeros(f64, {std::int64_t(n)}, device, true);
        Array total = Array::zeros(f64, {1}, device, true);
        Tape tape;
        {
            Tape::Scope scope(tape);
            m.kernel("grads").launch({std::int64_t(n)}, {x, 5, out, total});
        }
        Array seed_out = Array::from_vector(f64, std::vector<double>(n, 1.0), device);
        Array seed_total = Array::from_vector(f64, std::vector<double>{0.5}, device);
        tape.backward({{out, seed_out}, {total, seed_total}});
        return x.grad().to_vector<double>();
    };
    const std::vector<double> cpu = run_on(Device::cpu()), gpu = run_on(Device::cuda(0));
    REQUIRE(cpu.size() == gpu.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (std::abs(cpu[i] - gpu[i]) > 1e-9 * std::max(1.0, std::abs(cpu[i]))) ++bad;
    CHECK(bad == 0);
}

// ---------------------------------------------------------------------------
// Every plugin-free corpus module, every kernel, inputs from the signature alone

namespace {

/// The corpus modules that need no plugin and that weft launches (external_abi's raygen is OptiX's).
std::vector<fs::path> plugin_free_corpus() {
    std::vector<fs::path> files;
    for (const fs::directory_entry &e : fs::directory_iterator(corpus)) {
        if (e.path().extension() != ".py" || e.path().stem() == "external_abi") continue;
        std::ifstream in(e.path());
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (text.find("\n# plugins:") == std::string::npos && text.rfind("# plugins:", 0) != 0) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

TEST_CASE("the corpus runner feeds every plugin-free corpus kernel and gives the CPU's results twice alike") {
    Host host(host_options());
    std::size_t ran = 0, failed = 0, unsupported = 0;
    const std::vector<fs::path> files = plugin_free_corpus();
    REQUIRE(files.size() >= 25);
    for (const fs::path &file : files) {
        INFO(file.filename().string());
        const std::vector<test::KernelRun> first = test::run_module_kernels(host, file, Device::cpu());
        const std::vector<test::KernelRun> second = test::run_module_kernels(host, file, Device::cpu());
        CHECK(test::compare_runs(first, second) == "");
        for (const test::KernelRun &r : first)
            (r.error.empty() ? ran : r.error.rfind("unsupported:", 0) == 0 ? unsupported : failed)++;
    }
    // The runner must exercise the corpus, not skip it: most kernels run to completion.
    INFO(ran << " kernels ran, " << failed << " failed (bounds or expect_*), " << unsupported << " unsupported");
    CHECK(ran >= 80);
    CHECK(failed + unsupported <= ran / 4);
}

TEST_CASE("CPU and CUDA agree on every plugin-free corpus kernel (debug mode, no fma contraction)") {
    require_device();
    Host host(host_options());
    for (const fs::path &file : plugin_free_corpus()) {
        INFO(file.filename().string());
        const std::vector<test::KernelRun> cpu = test::run_module_kernels(host, file, Device::cpu());
        const std::vector<test::KernelRun> gpu = test::run_module_kernels(host, file, Device::cuda(0));
        CHECK(test::compare_runs(cpu, gpu) == "");
    }
    for (const fs::path &file : plugin_free_corpus()) host.unload_module(file.stem().string());
}

// ---------------------------------------------------------------------------
// Launch shapes, strided views, wide and narrow types, atomics under
// contention, expect failures: the same checks on the CPU (which runs them
// everywhere, so the expected values are themselves tested) and on cuda:0.

namespace {

const char *const device_kernels = R"(import warp as wp


@wp.kernel
def index3d(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 10000 + j * 100 + k


@wp.kernel
def index4d(out: wp.array4d(dtype=int)):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = i * 1000 + j * 100 + k * 10 + l


@wp.kernel
def strided(a: wp.array(dtype=float), m: wp.array2d(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s
    m[i, 1] = m[i, 0] + a[i]


@wp.kernel
def wide_and_narrow(d: wp.array(dtype=wp.float64), l: wp.array(dtype=wp.int64), h: wp.array(dtype=wp.float16)):
    i = wp.tid()
    d[i] = d[i] * wp.float64(0.5) + wp.float64(1.0e-10)
    l[i] = l[i] * wp.int64(3000000000) + wp.int64(7)
    h[i] = h[i] * wp.float16(2.0) + wp.float16(0.5)


@wp.struct
class Affine:
    scale: wp.vec3
    shift: float
    count: int


@wp.kernel
def by_value(p: Affine, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = p.scale * float(i) + wp.vec3(p.shift, p.shift, float(p.count))


@wp.kernel
def contend(f: wp.array(dtype=float), d: wp.array(dtype=wp.float64), h: wp.array(dtype=wp.float16),
            n: wp.array(dtype=int), lo: wp.array(dtype=float), hi: wp.array(dtype=wp.float64),
            b: wp.array(dtype=wp.bfloat16), bm: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    wp.atomic_add(f, 0, 1.0)
    wp.atomic_add(d, 0, wp.float64(0.5))
    wp.atomic_add(h, i % 2, wp.float16(1.0))
    wp.atomic_add(b, i % 2, wp.bfloat16(1.0))
    wp.atomic_max(bm, 0, wp.bfloat16(float(i)))
    wp.atomic_min(bm, 1, wp.bfloat16(float(i) - 100.0))
    wp.atomic_sub(n, 0, 2)
    wp.atomic_max(n, 1, i)
    wp.atomic_min(lo, 0, float(i) - 100.0)
    wp.atomic_max(hi, 0, wp.float64(i) * wp.float64(0.25))


@wp.kernel
def expects(a: wp.array(dtype=int)):
    i = wp.tid()
    wp.expect_eq(a[i], i)
)";

/// float16 bits of small integers and halves (exact).
std::uint16_t f16(float f) {
    std::uint32_t b = 0;
    std::memcpy(&b, &f, 4);
    if (f == 0.0f) return 0;
    return static_cast<std::uint16_t>(((b >> 16) & 0x8000u) | ((((b >> 23) & 0xffu) - 112u) << 10) | ((b >> 13) & 0x3ffu));
}

void check_device_kernels(Host &host, Device device) {
    INFO("on " << device.name());
    ModuleLoadOptions options;
    options.device = device;
    const CompiledModule m = host.load_module_source("device_kernels", device_kernels, options);
    const Type i32 = Type::scalar(Scalar::Int32), i64 = Type::scalar(Scalar::Int64),
               f64 = Type::scalar(Scalar::Float64), f16t = Type::scalar(Scalar::Float16),
               vec3 = Type::vector(Scalar::Float32, 3);

    // 3-D and 4-D launches: every thread once, each at its own (i, j, k[, l]).
    Array out3 = Array::zeros(i32, {5, 6, 7}, device);
    m.kernel("index3d").launch({5, 6, 7}, {out3});
    const std::vector<std::int32_t> v3 = out3.to(Device::cpu()).to_vector<std::int32_t>();
    for (int i = 0, n = 0; i < 5; ++i)
        for (int j = 0; j < 6; ++j)
            for (int k = 0; k < 7; ++k, ++n) REQUIRE(v3[static_cast<std::size_t>(n)] == i * 10000 + j * 100 + k);
    Array out4 = Array::zeros(i32, {2, 3, 4, 5}, device);
    m.kernel("index4d").launch({2, 3, 4, 5}, {out4});
    const std::vector<std::int32_t> v4 = out4.to(Device::cpu()).to_vector<std::int32_t>();
    for (int i = 0, n = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k)
                for (int l = 0; l < 5; ++l, ++n) REQUIRE(v4[static_cast<std::size_t>(n)] == i * 1000 + j * 100 + k * 10 + l);

    // Views that are not contiguous: every other float, and a transposed 2 x 4 matrix.
    Array storage = Array::from_vector(f32, std::vector<float>{1, -1, 2, -1, 3, -1, 4, -1}, device);
    Array every_other = storage.view({4}, {8});
    Array mat = Array::from_vector(f32, std::vector<float>{10, 20, 30, 40, 0, 0, 0, 0}, device); // 2 x 4, row-major
    Array transposed = mat.view({4, 2}, {4, 16});                                                  // m[i, c] = mat[c, i]
    m.kernel("strided").launch({4}, {every_other, transposed, 3.0f});
    CHECK(storage.to(Device::cpu()).to_vector<float>() == std::vector<float>{3, -1, 6, -1, 9, -1, 12, -1});
    CHECK(mat.to(Device::cpu()).to_vector<float>() == std::vector<float>{10, 20, 30, 40, 13, 26, 39, 52});

    // float64, int64 and float16 elements.
    Array d = Array::from_vector(f64, std::vector<double>{1.0, 3.0, -8.0}, device);
    Array l = Array::from_vector(i64, std::vector<std::int64_t>{1, -2, 5}, device);
    Array h = Array::from_vector(f16t, std::vector<std::uint16_t>{f16(1.0f), f16(-2.5f), f16(100.0f)}, device);
    m.kernel("wide_and_narrow").launch({3}, {d, l, h});
    const std::vector<double> dv = d.to(Device::cpu()).to_vector<double>();
    CHECK(dv[0] == 0.5 + 1.0e-10);
    CHECK(dv[1] == 1.5 + 1.0e-10);
    CHECK(dv[2] == -4.0 + 1.0e-10);
    CHECK(l.to(Device::cpu()).to_vector<std::int64_t>() ==
          std::vector<std::int64_t>{3000000007LL, -5999999993LL, 15000000007LL});
    CHECK(h.to(Device::cpu()).to_vector<std::uint16_t>() ==
          std::vector<std::uint16_t>{f16(2.5f), f16(-4.5f), f16(200.5f)});

    // A struct by value: vec3 @0, float @12, int @16 (20 bytes).
    struct { float scale[3]; float shift; std::int32_t count; } affine{{1.0f, 2.0f, -1.0f}, 0.5f, 7};
    static_assert(sizeof affine == 20);
    Array pts = Array::zeros(vec3, {3}, device);
    const Type affine_type = m.kernel("by_value").params()[0].type;
    REQUIRE(affine_type.size() == sizeof affine);
    m.kernel("by_value").launch({3}, {KernelArg::value(affine_type, &affine, sizeof affine), pts});
    CHECK(floats(pts.to(Device::cpu())) ==
          std::vector<float>{0.5f, 0.5f, 7, 1.5f, 2.5f, 6, 2.5f, 4.5f, 5});

    // Every atomic under contention: 4096 threads on one element (two float16
    // or bfloat16 halves of one 32-bit word, the CAS path on CUDA).
    const std::int64_t n = 4096;
    Array af = Array::zeros(f32, {1}, device), ad = Array::zeros(f64, {1}, device), ah = Array::zeros(f16t, {2}, device);
    Array an = Array::from_vector(i32, std::vector<std::int32_t>{0, -1}, device);
    Array alo = Array::from_vector(f32, std::vector<float>{0.0f}, device);
    Array ahi = Array::from_vector(f64, std::vector<double>{-1.0}, device);
    Array ab = Array::zeros(Type::scalar(Scalar::BFloat16), {2}, device);
    Array abm = Array::zeros(Type::scalar(Scalar::BFloat16), {2}, device);
    m.kernel("contend").launch({n}, {af, ad, ah, an, alo, ahi, ab, abm});
    CHECK(af.to(Device::cpu()).to_vector<float>() == std::vector<float>{4096.0f});
    CHECK(ad.to(Device::cpu()).to_vector<double>() == std::vector<double>{2048.0});
    CHECK(ah.to(Device::cpu()).to_vector<std::uint16_t>() == std::vector<std::uint16_t>{f16(2048.0f), f16(2048.0f)});
    CHECK(an.to(Device::cpu()).to_vector<std::int32_t>() == std::vector<std::int32_t>{-8192, 4095});
    CHECK(alo.to(Device::cpu()).to_vector<float>() == std::vector<float>{-100.0f});
    CHECK(ahi.to(Device::cpu()).to_vector<double>() == std::vector<double>{1023.75});
    // bfloat16 counts stop at 256 (256 + 1 ties back to 256) in any order; 4095 rounds to 4096, -100 is exact.
    CHECK(ab.to(Device::cpu()).to_vector<std::uint16_t>() == std::vector<std::uint16_t>{0x4380, 0x4380});
    CHECK(abm.to(Device::cpu()).to_vector<std::uint16_t>() == std::vector<std::uint16_t>{0x4580, 0xc2c8});

    // A failing expect_eq is a LaunchError naming kernel and line; the module stays usable.
    Array good = Array::from_vector(i32, std::vector<std::int32_t>{0, 1, 2}, device);
    Array bad = Array::from_vector(i32, std::vector<std::int32_t>{0, 5, 2}, device);
    m.kernel("expects").launch({3}, {good});
    CHECK_THAT(error_of([&] { m.kernel("expects").launch({3}, {bad}); }),
               Catch::Contains("1 expect_* check failed") || Catch::Contains("expect_eq"));
    m.kernel("expects").launch({3}, {good});
}

} // namespace

// Launch shapes, strided views, float64/int64/float16/bfloat16, a struct by value,
// contended atomics and expect failures.
TEST_CASE("device kernel checks on the CPU") {
    Host host(host_options());
    check_device_kernels(host, Device::cpu());
    // The same kernels through NVRTC (what cuda:0 would load), so CI without a GPU compiles them.
    if (backend::nvrtc_available())
        CHECK(host.compile_aot(write_kernel("device_kernels", device_kernels),
                               {Target::cuda_ptx(75), Target::cuda_cubin(90)}).size() == 2);
}

TEST_CASE("device kernel checks on cuda:0") {
    require_device();
    Host host(host_options());
    check_device_kernels(host, Device::cuda(0));
    host.unload_module("device_kernels");
}

TEST_CASE("an application's own CUDA context stays current across weft calls") {
    require_device();
    // The application's context, created as an OptiX or GL-interop program
    // would (cuCtxCreate makes it current on this thread).
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    REQUIRE(libcuda != nullptr);
    using CtxCreate = int (*)(backend::CudaContext *, unsigned, int);
    using CtxDestroy = int (*)(backend::CudaContext);
    const auto create = reinterpret_cast<CtxCreate>(dlsym(libcuda, "cuCtxCreate_v2"));
    const auto destroy = reinterpret_cast<CtxDestroy>(dlsym(libcuda, "cuCtxDestroy_v2"));
    if (!create || !destroy) test::skip("this driver exports no cuCtxCreate_v2 / cuCtxDestroy_v2");
    CudaDriver &d = CudaDriver::instance();
    backend::CudaContext mine = nullptr;
    REQUIRE(create(&mine, 0, d.device(0)) == 0);
    const auto still_mine = [&](const char *after) {
        INFO("after " << after);
        CHECK(d.current_context() == mine);
    };
    still_mine("cuCtxCreate");
    {
        Host host(host_options());
        ModuleLoadOptions options;
        options.device = Device::cuda(0);
        const CompiledModule m = host.load_module(corpus / "saxpy.py", options);
        still_mine("load_module");
        Array x = Array::from_vector(f32, std::vector<float>{1, 2, 3}, Device::cuda(0));
        Array y = Array::from_vector(f32, std::vector<float>{10, 20, 30}, Device::cuda(0));
        Array out = Array::zeros(f32, {3}, Device::cuda(0));
        still_mine("Array::from_vector and Array::zeros");
        m.kernel("saxpy").launch({3}, {x, y, out, 2.0f});
        still_mine("a synchronous launch");
        Stream stream(Device::cuda(0));
        m.kernel("saxpy").launch({3}, {x, y, out, 2.0f}, LaunchOptions{&stream});
        still_mine("a launch on a stream");
        stream.synchronize();
        still_mine("Stream::synchronize");
        CHECK(out.to(Device::cpu()).to_vector<float>() == std::vector<float>{12, 24, 36});
        still_mine("a copy to the host");
        m.kernel("saxpy").launch({3}, {x, y, out, 1.0f}, LaunchOptions{nullptr, 0});
        still_mine("a synchronous launch with the suggested block size (block_dim 0)");
        {
            const CudaContextGuard weft_context(0);
            CHECK(d.current_context() == weft_context.context());
            CHECK(weft_context.context() != mine);
        }
        still_mine("a CudaContextGuard");
        host.unload_module("saxpy");
        still_mine("Host::unload_module");
    }
    still_mine("~Host");
    CHECK(destroy(mine) == 0);
}
