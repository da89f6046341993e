// A renderer-style consumer of kernel results through sync objects.
//
// A simulation thread launches a kernel per frame on its stream, records an
// event after it and hands the renderer a weft::Sync made from that event. The
// renderer never blocks the simulation and never reads a frame before the
// kernel that produced it has finished: it waits on the sync (with a timeout,
// as a render loop would, redrawing the previous frame when it expires).
// Recording the event for the next frame does not disturb a sync already
// handed over (EGL_NV_cuda_event's rule).
//
// This runs on CPU streams everywhere. With a CUDA device and NVIDIA's EGL
// (EGL_NV_cuda_event), the same hand-over goes through a real EGLSync that a
// GL renderer would wait on with eglWaitSync; elsewhere the program says why
// that part is not available and carries on.
//
//   sync_consumer [frames]
#include "weft/modules/compiled_module.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/egl/egl_sync.hpp"
#include "weft/host/host.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/runtime/sync.hpp"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace weft;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

/// What the simulation hands the renderer: the frame's positions and the sync
/// that says when they are written. The Array keeps the storage alive.
struct Frame {
    int number = 0;
    Array positions;
    Sync ready;
};

/// A bounded hand-over queue between the two threads.
class Mailbox {
public:
    void put(Frame f) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            frames_.push_back(std::move(f));
        }
        changed_.notify_all();
    }
    void close() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            closed_ = true;
        }
        changed_.notify_all();
    }
    std::optional<Frame> take() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return closed_ || !frames_.empty(); });
        if (frames_.empty()) return std::nullopt;
        Frame f = std::move(frames_.front());
        frames_.pop_front();
        return f;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Frame> frames_;
    bool closed_ = false;
};

int run_cpu(Host &host, int frames, int particles) {
    CompiledModule m = host.load_module(fs::path(WEFT_EXAMPLE_DIR) / "particles.py");
    const Kernel step = m.kernel("step");
    Mailbox mailbox;

    std::exception_ptr simulation_error;
    std::thread simulation([&] {
        try {
            Stream stream;
            Event done; // one event, recorded again every frame
            std::vector<float> v(static_cast<std::size_t>(particles));
            for (int i = 0; i < particles; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i % 7);
            const Array vel = Array::from_vector(f32, v);
            Array pos = Array::zeros(f32, {particles});
            for (int f = 1; f <= frames; ++f) {
                Array next = Array::zeros(f32, {particles});
                copy(next, pos, &stream);                      // the previous frame, in stream order
                step.launch({particles}, {next, vel, 0.5f}, &stream);
                done.record(stream);
                mailbox.put(Frame{f, next, Sync(done)});       // the sync keeps *this* record
                pos = next;
            }
            stream.synchronize();
        } catch (...) {
            simulation_error = std::current_exception(); // rethrown after join
        }
        mailbox.close(); // always: the renderer must not wait for frames that never come
    });

    int drawn = 0, redraws = 0, wrong = 0;
    while (std::optional<Frame> frame = mailbox.take()) {
        // A render loop's wait: up to one 60 Hz frame, else redraw the last one.
        while (frame->ready.client_wait(16'000'000) == WaitResult::TimeoutExpired) ++redraws;
        const std::vector<float> p = frame->positions.to_vector<float>();
        for (int i = 0; i < particles; ++i)
            if (p[static_cast<std::size_t>(i)] != static_cast<float>(i % 7) * 0.5f * static_cast<float>(frame->number))
                ++wrong;
        ++drawn;
    }
    simulation.join();
    if (simulation_error) std::rethrow_exception(simulation_error);
    std::printf("cpu: %d frames of %d particles drawn after their sync signaled (%d redraws while waiting), "
                "%d wrong positions\n",
                drawn, particles, redraws, wrong);
    return drawn == frames && wrong == 0 ? 0 : 1;
}

/// The same hand-over through a real EGLSync, where CUDA and NVIDIA's EGL are both there.
int run_egl(Host &host, int particles) {
    const std::string no_cuda = cuda_unavailable_reason();
    if (!no_cuda.empty()) {
        std::printf("egl: not run: %s\n", no_cuda.c_str());
        return 0;
    }
    if (!egl::library_available()) {
        std::printf("egl: not run: %s\n", egl::library_unavailable_reason().c_str());
        return 0;
    }
    std::optional<egl::Display> display;
    try {
        display = egl::Display::for_cuda_device(0);
    } catch (const SyncError &e) {
        std::printf("egl: not run: %s\n", e.what());
        return 0;
    }
    // The same module and the same calls as on the CPU, on a CUDA device.
    ModuleLoadOptions on_gpu;
    on_gpu.device = Device::cuda(0);
    const CompiledModule m = host.load_module(fs::path(WEFT_EXAMPLE_DIR) / "particles.py", on_gpu);
    Stream stream(Device::cuda(0));
    std::vector<float> v(static_cast<std::size_t>(particles), 1.0f);
    Array vel = (Array::from_vector(f32, v)).to(Device::cuda(0));
    Array pos = Array::zeros(f32, {particles}, Device::cuda(0));
    m.kernel("step").launch({particles}, {pos, vel, 0.5f}, &stream);
    Event done(Device::cuda(0));
    done.record(stream);
    try {
        egl::EglSync sync(*display, done); // what a GL renderer would eglWaitSync on
        const WaitResult r = sync.client_wait(egl::token::forever);
        std::printf("egl: EGLSync (type 0x%llx) %s; pos[0] = %g\n", static_cast<unsigned long long>(sync.attrib(SyncAttrib::Type)),
                    r == WaitResult::ConditionSatisfied ? "satisfied" : "timed out",
                    static_cast<double>(pos.to(Device::cpu()).to_vector<float>()[0]));
    } catch (const SyncError &e) {
        // Only a display without the extension is a skip; a failing EGLSync is a failure.
        if (e.kind() != SyncError::Kind::NotSupported && e.kind() != SyncError::Kind::Unavailable) {
            std::printf("egl: FAILED: %s\n", e.what());
            return 1;
        }
        std::printf("egl: not run: %s\n", e.what());
    }
    stream.synchronize();
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const int frames = argc > 1 ? std::atoi(argv[1]) : 8;
    try {
        HostOptions options;
        options.use_environment = false;
        options.quiet = true;
        Host host(options);
        const int rc = run_cpu(host, frames, 100000);
        // Also on Mesa: the display check, as the bridge reports it.
        if (egl::library_available()) {
            try {
                const egl::Display mesa = egl::Display::surfaceless();
                std::printf("egl: surfaceless display (%s): EGL_NV_cuda_event %s\n", mesa.describe().c_str(),
                            mesa.supports_cuda_event() ? "supported" : "not supported by this display");
            } catch (const SyncError &e) {
                std::printf("egl: %s\n", e.what());
            }
        }
        return rc | run_egl(host, 100000);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "sync_consumer: %s\n", e.what());
        return 1;
    }
}
