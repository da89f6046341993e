// Streams, events and sync objects on a CUDA device, and the real EGLSync of
// type EGL_SYNC_CUDA_EVENT_NV on NVIDIA's EGL, down to a GL-side wait that
// orders a buffer read after a kernel's write. Every case is reported Skipped
// ("skipped: ...", exit 77) without a device (or without NVIDIA's EGL for the EGL ones);
// tests/gpu/check.sh runs them (CTest names gpu.streams.*). Kernels are
// loaded with Host::load_module on cuda:0 and launched on weft::Streams.
#include "weft/backend/cuda.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/egl/egl_sync.hpp"
#include "weft/host/host.hpp"
#include "weft/modules/compiled_module.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/runtime/sync.hpp"
#include "skip.hpp"

#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using namespace weft;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

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

/// Ends the case as skipped (CTest: "Skipped") unless a CUDA device can run it.
void require_device() {
    const std::string reason = cuda_unavailable_reason();
    if (!reason.empty()) test::skip("no CUDA device (" + reason + ")");
}

/// out[i] = a * i + 1 after `spin` rounds of busy work, so the kernel is
/// still running when the host looks (not relied on for any assertion).
fs::path kernel_file() {
    const fs::path dir = cache_root() / "test-kernel-sources";
    fs::create_directories(dir);
    const fs::path file = dir / "stream_fill.py";
    const fs::path tmp = dir / ("stream_fill.py.tmp" + std::to_string(::getpid()));
    {
        std::ofstream out(tmp);
        out << R"(import warp as wp

@wp.kernel
def fill(out: wp.array(dtype=float), a: float, spin: int):
    i = wp.tid()
    acc = float(0.0)
    for k in range(spin):
        acc = acc * 0.5 + 1.0
    out[i] = a * float(i) + 1.0 + acc * 0.0

@wp.kernel
def add_into(dst: wp.array(dtype=float), src: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = dst[i] + src[i]
)";
    }
    fs::rename(tmp, file);
    return file;
}

/// The kernels of kernel_file(), loaded on cuda:0.
CompiledModule load_on_cuda(Host &host) {
    ModuleLoadOptions options;
    options.device = Device::cuda(0);
    return host.load_module(kernel_file(), options);
}

std::vector<float> expected(int n, float a) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = a * static_cast<float>(i) + 1.0f;
    return v;
}

} // namespace

TEST_CASE("CUDA streams, events and syncs: snapshot, re-record, stream waits, async copies") {
    require_device();
    Host host(host_options());
    const CompiledModule m = load_on_cuda(host);
    const int n = 1 << 20;
    Stream s1 = make_cuda_stream(0), s2 = make_cuda_stream(0, /*non_blocking=*/true);
    CHECK(s1.device() == Device::cuda(0));
    CHECK(s1.native_handle() != nullptr);
    CHECK_THROWS_WITH(s1.enqueue([] {}), Catch::Contains("runs device work only"));

    Array a = Array::zeros(f32, {n}, Device::cuda(0)), b = Array::zeros(f32, {n}, Device::cuda(0));
    m.kernel("fill").launch({n}, {a, 2.0f, 2000}, &s1);
    Event e(Device::cuda(0));
    e.record(s1);
    Sync first(e);
    CHECK(first.type() == SyncType::CudaEvent);
    CHECK(first.attrib(SyncAttrib::Type) == 0x323C);      // EGL_SYNC_CUDA_EVENT_NV
    CHECK(first.attrib(SyncAttrib::Condition) == 0x323D); // EGL_SYNC_CUDA_EVENT_COMPLETE_NV
    void *first_event = first.fence()->native_handle();

    // Re-recorded on another stream: the event gets a new CUevent; the sync keeps its own.
    e.record(s2);
    CHECK(e.fence()->native_handle() != first_event);
    CHECK(first.fence()->native_handle() == first_event);

    // s2 waits on the first sync (cuStreamWaitEvent), then adds a into b: b == a only if ordered.
    s2.wait(first);
    m.kernel("add_into").launch({n}, {b, a}, &s2);
    Array host_b = Array::zeros(f32, {n});
    copy(host_b, b, &s2);
    s2.synchronize();
    CHECK(host_b.to_vector<float>() == expected(n, 2.0f));

    CHECK(first.client_wait(Sync::forever) == WaitResult::ConditionSatisfied);
    CHECK(first.status() == SyncStatus::Signaled);

    // Host -> device on a stream, then a timed wait (satisfied well within a minute).
    Array ones = Array::from_vector(f32, std::vector<float>(static_cast<std::size_t>(n), 1.0f));
    copy(a, ones, &s1);
    Event copied(Device::cuda(0));
    copied.record(s1);
    Sync after_copy(copied);
    CHECK(after_copy.client_wait(60'000'000'000ull) == WaitResult::ConditionSatisfied);
    CHECK(a.to(Device::cpu()).to_vector<float>()[n - 1] == 1.0f);

    // A CUDA stream cannot wait for CPU work; a CPU stream can wait for CUDA work.
    Stream cpu;
    Event cpu_event;
    cpu_event.record(cpu);
    CHECK_THROWS_WITH(s1.wait(cpu_event), Catch::Contains("cannot wait for CPU work"));
    cpu.wait(e);
    cpu.synchronize();
    CHECK(e.query());
    host.unload_module("stream_fill");
}

namespace {

// GL and CUDA-GL interop entry points, fetched at run time like everything else here.
using GLuint = unsigned int;
using GLenum = unsigned int;
using GLsizeiptr = std::intptr_t;
using GLintptr = std::intptr_t;
constexpr GLenum gl_array_buffer = 0x8892, gl_dynamic_draw = 0x88E8;
constexpr std::int32_t egl_opengl_api = 0x30A2;

template <class F> F gl(const char *name) {
    auto f = reinterpret_cast<F>(egl::proc_address(name));
    REQUIRE(f != nullptr);
    return f;
}

SyncError::Kind error_of_kind(const egl::Display &display, const Event *event) {
    try {
        egl::EglSync sync(display, event);
    } catch (const SyncError &e) {
        return e.kind();
    }
    FAIL("an EGLSync was created where the extension's rules forbid it");
    return SyncError::Kind::Failed;
}

template <class F> F cuda(const char *name) {
    void *lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    REQUIRE(lib != nullptr);
    auto f = reinterpret_cast<F>(::dlsym(lib, name));
    REQUIRE(f != nullptr);
    return f;
}

} // namespace

TEST_CASE("a real EGLSync linked to a CUDA event orders a GL buffer read after a kernel's write") {
    require_device();
    if (!egl::library_available()) {
        test::skip("libEGL is not available (" + egl::library_unavailable_reason() + ")");
    }
    std::optional<egl::Display> found;
    try {
        found = egl::Display::for_cuda_device(0);
    } catch (const SyncError &e) {
        test::skip(std::string("no NVIDIA EGL device display for cuda:0 (") + e.what() + ")");
    }
    const egl::Display &display = *found;
    if (!display.supports_cuda_event()) {
        test::skip("the EGL device display lacks EGL_NV_cuda_event (" + display.describe() + ")");
    }
    if (const auto dev = display.cuda_device()) CHECK(*dev == backend::CudaDriver::instance().device(0));

    // Errors first: the extension's rules through EGL.
    Event never(Device::cuda(0));
    CHECK(error_of_kind(display, &never) == SyncError::Kind::EventNotRecorded);
    CHECK(error_of_kind(display, nullptr) == SyncError::Kind::MissingEvent);

    // A GL context (surfaceless, no config) current on this thread.
    using BindAPI = unsigned (*)(unsigned);
    using CreateContext = void *(*)(void *, void *, void *, const std::int32_t *);
    using MakeCurrent = unsigned (*)(void *, void *, void *, void *);
    using DestroyContext = unsigned (*)(void *, void *);
    REQUIRE(gl<BindAPI>("eglBindAPI")(egl_opengl_api));
    void *context = gl<CreateContext>("eglCreateContext")(display.handle(), nullptr, nullptr, nullptr);
    REQUIRE(context != nullptr);
    REQUIRE(gl<MakeCurrent>("eglMakeCurrent")(display.handle(), nullptr, nullptr, context));

    const int n = 1 << 16;
    const auto bytes = static_cast<GLsizeiptr>(n * sizeof(float));
    GLuint buffer = 0;
    gl<void (*)(int, GLuint *)>("glGenBuffers")(1, &buffer);
    gl<void (*)(GLenum, GLuint)>("glBindBuffer")(gl_array_buffer, buffer);
    gl<void (*)(GLenum, GLsizeiptr, const void *, GLenum)>("glBufferData")(gl_array_buffer, bytes, nullptr,
                                                                           gl_dynamic_draw);
    gl<void (*)()>("glFinish")();

    Host host(host_options());
    const CompiledModule m = load_on_cuda(host);
    Stream stream = make_cuda_stream(0);
    Array values = Array::zeros(f32, {n}, Device::cuda(0));

    // CUDA writes the GL buffer through interop: map, kernel, device-to-device copy, record, unmap.
    void *resource = nullptr;
    REQUIRE(cuda<int (*)(void **, GLuint, unsigned)>("cuGraphicsGLRegisterBuffer")(&resource, buffer, 0) == 0);
    auto *cu_stream = stream.native_handle();
    REQUIRE(cuda<int (*)(unsigned, void **, void *)>("cuGraphicsMapResources")(1, &resource, cu_stream) == 0);
    unsigned long long mapped = 0;
    std::size_t mapped_bytes = 0;
    REQUIRE(cuda<int (*)(unsigned long long *, std::size_t *, void *)>("cuGraphicsResourceGetMappedPointer_v2")(
                &mapped, &mapped_bytes, resource) == 0);
    REQUIRE(mapped_bytes >= static_cast<std::size_t>(bytes));
    m.kernel("fill").launch({n}, {values, 3.0f, 20000}, &stream);
    REQUIRE(cuda<int (*)(unsigned long long, unsigned long long, std::size_t, void *)>("cuMemcpyDtoDAsync_v2")(
                mapped, reinterpret_cast<unsigned long long>(values.data()), static_cast<std::size_t>(bytes), cu_stream) == 0);
    Event written(Device::cuda(0));
    written.record(stream);
    REQUIRE(cuda<int (*)(unsigned, void **, void *)>("cuGraphicsUnmapResources")(1, &resource, cu_stream) == 0);

    // The renderer's side: GL waits on the GPU for the kernel, then reads the buffer.
    egl::EglSync sync(display, written);
    CHECK(sync.type() == SyncType::CudaEvent);
    CHECK(sync.condition() == SyncCondition::EventComplete);
    sync.server_wait();
    std::vector<float> seen(static_cast<std::size_t>(n));
    gl<void (*)(GLenum, GLintptr, GLsizeiptr, void *)>("glGetBufferSubData")(gl_array_buffer, 0, bytes, seen.data());
    CHECK(seen == expected(n, 3.0f));
    CHECK(sync.client_wait(egl::token::forever) == WaitResult::ConditionSatisfied);
    CHECK(sync.status() == SyncStatus::Signaled);

    // Re-recording the event does not change the EGL sync either.
    written.record(stream);
    CHECK(sync.status() == SyncStatus::Signaled);

    stream.synchronize();
    cuda<int (*)(void *)>("cuGraphicsUnregisterResource")(resource);
    gl<void (*)(int, const GLuint *)>("glDeleteBuffers")(1, &buffer);
    gl<MakeCurrent>("eglMakeCurrent")(display.handle(), nullptr, nullptr, nullptr);
    gl<DestroyContext>("eglDestroyContext")(display.handle(), context);
    host.unload_module("stream_fill");
}
