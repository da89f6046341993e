// On a CUDA device, side by side in one process, everything on one
// weft::Stream of the device (the raw launches on its CUstream,
// Stream::native_handle()):
//   - launch overhead: N back-to-back launches of an empty kernel on the
//     stream, then Stream::synchronize(); weft (Kernel::launch with
//     LaunchOptions{&stream, 32}: argument checks, packing, the grid from the
//     dimension; the synchronize also runs the expect_* check each launch
//     left) vs cuLaunchKernel of a hand-written empty kernel (then the same
//     synchronize). Microseconds per launch, host wall clock.
//   - bandwidth: weft's generated saxpy (out = a*x + y, 12 bytes per element;
//     loaded with Host::load_module on the device, launched with
//     LaunchOptions{&stream, 256}) vs a hand-written saxpy and a hand-written
//     copy kernel (8 bytes per element) on the same buffers, timed with CUDA
//     events recorded on the stream's CUstream; GB/s.
// Without a device it prints "skipped: <why>" and exits 0.
//
// Printed lines:
//   launch_us weft <us> / launch_us raw <us>
//   ratio launch_overhead_weft_vs_raw       weft us / raw us
//   bandwidth_gbs <weft_saxpy|raw_saxpy|raw_copy> <GB/s>
//   ratio saxpy_bandwidth_vs_copy           weft saxpy GB/s / copy kernel GB/s
//   ratio saxpy_weft_vs_handwritten         weft saxpy time / hand-written saxpy time
//
//   build/bin/bench_cuda_launch [--launches 20000] [--elements 67108864] [--repeat 20] [--device 0]
#include "weft/backend/cuda.hpp"
#include "cuda/stream_event.hpp"
#include "weft/host/host.hpp"
#include "weft/modules/compiled_module.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/runtime/stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace weft;

namespace {

const char *const weft_source = R"(import warp as wp


@wp.kernel
def empty(x: wp.array(dtype=float)):
    i = wp.tid()


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float), a: float):
    i = wp.tid()
    out[i] = a * x[i] + y[i]
)";

// The hand-written peers: what a CUDA programmer writes for the same work.
const char *const raw_source = R"(
extern "C" __global__ void raw_empty() {}
extern "C" __global__ void raw_saxpy(const float *__restrict__ x, const float *__restrict__ y,
                                     float *__restrict__ out, float a, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}
extern "C" __global__ void raw_copy(const float *__restrict__ in, float *__restrict__ out, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        out[i] = in[i];
}
)";

struct Args {
    int launches = 20000;
    std::int64_t elements = 64LL << 20;
    int repeat = 20;
    int device = 0;
};

Args parse(int argc, char **argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(k + " needs a value");
            return argv[++i];
        };
        if (k == "--launches") a.launches = std::stoi(next());
        else if (k == "--elements") a.elements = std::stoll(next());
        else if (k == "--repeat") a.repeat = std::stoi(next());
        else if (k == "--device") a.device = std::stoi(next());
        else throw std::runtime_error("unknown option " + k);
    }
    return a;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

/// The CUstream of a weft::Stream of a CUDA device.
backend::CudaStream cu_stream(const Stream &stream) { return static_cast<backend::CudaStream>(stream.native_handle()); }

/// "cubin" or "ptx": the image kind of a module loaded on a CUDA device, from its artifact's extension.
std::string image_kind(const CompiledModule &m) {
    const std::string ext = m.artifact_path().extension().string();
    return ext.empty() ? ext : ext.substr(1);
}

/// Median of `repeat` event-timed runs of `body` on `stream`, in ms. The
/// events are recorded on the stream's CUstream with the driver (the caller
/// holds a context of the stream's device current).
template <class F> double timed_ms(Stream &stream, int repeat, F &&body) {
    backend::CudaDriver &d = backend::CudaDriver::instance();
    CudaEvent start(stream.device().ordinal), end(stream.device().ordinal);
    std::vector<double> times;
    body(); // warm-up
    stream.synchronize();
    for (int r = 0; r < repeat; ++r) {
        d.event_record(start.handle(), cu_stream(stream));
        body();
        d.event_record(end.handle(), cu_stream(stream));
        end.synchronize();
        times.push_back(CudaEvent::elapsed_ms(start, end));
    }
    stream.synchronize(); // weft's launches: their expect_* checks (a failure throws here)
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

int run(const Args &args) {
    const std::string why = cuda_unavailable_reason();
    if (!why.empty()) {
        std::printf("skipped: %s\n", why.c_str());
        return 0;
    }
    const fs::path dir = fs::temp_directory_path() / ("weft-bench-cuda-launch-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path file = dir / "launch_bench.py";
    std::ofstream(file) << weft_source;

    HostOptions ho;
    ho.use_environment = false;
    ho.quiet = true;
    ho.cache_dir = dir / "cache";
    Host host(ho);
    const Device device = Device::cuda(args.device);
    ModuleLoadOptions lo;
    lo.device = device;
    const CompiledModule m = host.load_module(file, lo);
    backend::CudaDriver &d = backend::CudaDriver::instance();
    const int cc = cuda_compute_capability(args.device);
    std::printf("device cuda:%d sm_%d, module %s (%s), weft load %.1f ms\n", args.device, cc, m.name().c_str(),
                image_kind(m).c_str(), m.load_ms());

    // The raw module, compiled the same way (NVRTC CUBIN when it knows the arch, else PTX).
    backend::CudaCompileOptions co;
    const std::vector<int> archs = backend::nvrtc_supported_archs();
    co.cubin = std::find(archs.begin(), archs.end(), cc) != archs.end();
    co.arch = cc;
    if (!co.cubin)
        for (int a : archs)
            if (a <= cc) co.arch = a;
    const std::string image = backend::compile_cuda(raw_source, co);
    // Raw driver calls beside weft's: in weft's context of the device, held for the bench.
    const CudaContextGuard raw_context(args.device);
    backend::CudaModule raw = d.module_load_data(image.c_str());
    backend::CudaFunction raw_empty = d.module_get_function(raw, "raw_empty");
    backend::CudaFunction raw_saxpy = d.module_get_function(raw, "raw_saxpy");
    backend::CudaFunction raw_copy = d.module_get_function(raw, "raw_copy");

    // weft's launches and the raw ones share the stream (the raw ones on its CUstream).
    Stream stream(device);
    const backend::CudaStream raw_stream = cu_stream(stream);
    const int sms = d.device_attribute(16 /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */, d.device(args.device));

    // --- launch overhead
    const Type f32 = Type::scalar(Scalar::Float32);
    Array one = Array::zeros(f32, {1}, device);
    const Kernel empty = m.kernel("empty");
    const LaunchOptions empty_options{&stream, 32};
    auto weft_launches = [&] {
        for (int i = 0; i < args.launches; ++i) empty.launch({1}, {one}, empty_options);
    };
    auto raw_launches = [&] {
        for (int i = 0; i < args.launches; ++i) d.launch_kernel(raw_empty, 1, 1, 1, 32, 1, 1, 0, raw_stream, nullptr);
    };
    auto per_launch_us = [&](auto &&launches) {
        launches(); // warm-up
        stream.synchronize();
        std::vector<double> us;
        for (int r = 0; r < 5; ++r) {
            const auto t0 = Clock::now();
            launches();
            stream.synchronize();
            us.push_back(ms_between(t0, Clock::now()) * 1000.0 / args.launches);
        }
        std::sort(us.begin(), us.end());
        return us[us.size() / 2];
    };
    const double weft_us = per_launch_us(weft_launches);
    const double raw_us = per_launch_us(raw_launches);
    std::printf("launch_us weft %.3f\nlaunch_us raw %.3f\n", weft_us, raw_us);
    std::printf("ratio launch_overhead_weft_vs_raw %.3f\n", weft_us / raw_us);

    // --- bandwidth
    const std::int64_t n = args.elements;
    std::vector<float> hx(static_cast<std::size_t>(n)), hy(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        hx[static_cast<std::size_t>(i)] = static_cast<float>(i % 1024);
        hy[static_cast<std::size_t>(i)] = 1.0f;
    }
    Array x = (Array::from_vector(f32, hx)).to(device);
    Array y = (Array::from_vector(f32, hy)).to(device);
    Array out = Array::zeros(f32, {n}, device);
    const Kernel saxpy = m.kernel("saxpy");
    const int block = 256;
    const LaunchOptions saxpy_options{&stream, block};
    const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>((n + block - 1) / block, 32LL * sms));
    backend::CudaDevicePtr px = reinterpret_cast<backend::CudaDevicePtr>(x.data()),
                           py = reinterpret_cast<backend::CudaDevicePtr>(y.data()),
                           pout = reinterpret_cast<backend::CudaDevicePtr>(out.data());
    float a = 2.0f;
    long long count = n;
    const double weft_ms = timed_ms(stream, args.repeat, [&] { saxpy.launch({n}, {x, y, out, a}, saxpy_options); });
    void *saxpy_params[] = {&px, &py, &pout, &a, &count};
    const double raw_ms =
        timed_ms(stream, args.repeat, [&] { d.launch_kernel(raw_saxpy, grid, 1, 1, block, 1, 1, 0, raw_stream, saxpy_params); });
    void *copy_params[] = {&px, &pout, &count};
    const double copy_ms =
        timed_ms(stream, args.repeat, [&] { d.launch_kernel(raw_copy, grid, 1, 1, block, 1, 1, 0, raw_stream, copy_params); });
    // Check weft's result once: a wrong kernel must not look fast.
    saxpy.launch({n}, {x, y, out, a}, saxpy_options);
    stream.synchronize();
    const std::vector<float> got = out.to(Device::cpu()).to_vector<float>();
    for (std::int64_t i = 0; i < n; i += std::max<std::int64_t>(1, n / 4096))
        if (got[static_cast<std::size_t>(i)] != 2.0f * static_cast<float>(i % 1024) + 1.0f) {
            std::fprintf(stderr, "weft saxpy gave %g at %lld\n", static_cast<double>(got[static_cast<std::size_t>(i)]),
                         static_cast<long long>(i));
            return 1;
        }
    const double gb = static_cast<double>(n) * sizeof(float) / 1e9;
    const double weft_gbs = 3 * gb / (weft_ms / 1e3), raw_gbs = 3 * gb / (raw_ms / 1e3), copy_gbs = 2 * gb / (copy_ms / 1e3);
    std::printf("bandwidth_gbs weft_saxpy %.1f\nbandwidth_gbs raw_saxpy %.1f\nbandwidth_gbs raw_copy %.1f\n", weft_gbs,
                raw_gbs, copy_gbs);
    std::printf("ratio saxpy_bandwidth_vs_copy %.3f\n", weft_gbs / copy_gbs);
    std::printf("ratio saxpy_weft_vs_handwritten %.3f\n", weft_ms / raw_ms);
    d.module_unload(raw);
    host.unload_module(m.name()); // its code goes with the last handle (m, empty, saxpy) at the return
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    try {
        return run(parse(argc, argv));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_cuda_launch: %s\n", e.what());
        return 1;
    }
}
