// CPU streams: one worker thread per stream drains an in-order queue of host
// tasks. A fence is a task that marks a flag; waiting for another stream's
// fence is a task that blocks this stream's worker (and nothing else) until it
// completes. Kernel launches enqueued here still spread over the host's pool:
// ThreadPool::parallel_for may be called from any thread.
#include "weft/runtime/stream.hpp"

#include "weft/runtime/sync.hpp"
#include "weft/support/error.hpp"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

namespace weft {


namespace {

class CpuFence final : public Fence {
public:
    Device device() const override { return Device::cpu(); }
    bool query() override {
        std::lock_guard<std::mutex> lock(mutex_);
        return done_;
    }
    bool wait_until(Clock::time_point deadline) override {
        std::unique_lock<std::mutex> lock(mutex_);
        return done_changed_.wait_until(lock, deadline, [this] { return done_; });
    }
    void wait() override {
        std::unique_lock<std::mutex> lock(mutex_);
        done_changed_.wait(lock, [this] { return done_; });
    }
    void signal() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        done_changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable done_changed_;
    bool done_ = false;
};

class CpuStream final : public StreamBackend {
public:
    CpuStream() : worker_([this] { run(); }) {}
    ~CpuStream() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        worker_.join(); // after the queue is drained
    }

    Device device() const override { return Device::cpu(); }

    std::shared_ptr<Fence> record() override {
        auto fence = std::make_shared<CpuFence>();
        enqueue([fence] { fence->signal(); });
        return fence;
    }

    void wait(std::shared_ptr<Fence> fence, std::shared_ptr<const void> keep_alive) override {
        if (!fence) return;
        enqueue([fence = std::move(fence), keep = std::move(keep_alive)]() mutable {
            fence->wait();
            keep.reset(); // the wait is over now, not when the task object goes
        });
    }

    void enqueue(std::function<void()> task) override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            queue_.push_back(std::move(task));
        }
        changed_.notify_all();
    }

    void synchronize() override {
        record()->wait();
        std::exception_ptr error;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            error = std::exchange(error_, nullptr);
        }
        if (error) std::rethrow_exception(error);
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return; // stopping, and everything ran
            std::function<void()> task = std::move(queue_.front());
            queue_.pop_front();
            lock.unlock();
            std::exception_ptr error;
            try {
                task();
            } catch (...) {
                error = std::current_exception();
            }
            task = nullptr; // captures (arguments, kept arrays) go before the next task runs
            lock.lock();
            if (error && !error_) error_ = error;
        }
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::function<void()>> queue_;
    std::exception_ptr error_; // the first since the last synchronize()
    bool stopping_ = false;
    std::thread worker_; // last: starts after the members it uses exist
};

} // namespace

// ---------------------------------------------------------------------------
// Stream

Stream::Stream() : backend_(std::make_unique<CpuStream>()) {}

Stream::Stream(Device device, bool non_blocking)
    : backend_(device.is_cpu() ? std::make_unique<CpuStream>()
                               : device_runtime(device).make_stream(device.ordinal, non_blocking)) {}

Stream::Stream(std::unique_ptr<StreamBackend> backend) : backend_(std::move(backend)) {
    if (!backend_) throw UserError("Stream: no stream implementation given");
}

Stream::~Stream() = default;
Stream::Stream(Stream &&) noexcept = default;
Stream &Stream::operator=(Stream &&) noexcept = default;

StreamBackend &Stream::backend() const {
    if (!backend_) throw UserError("Stream: use of a moved-from stream");
    return *backend_;
}

Device Stream::device() const { return backend().device(); }
void Stream::enqueue(std::function<void()> task) { backend().enqueue(std::move(task)); }
void Stream::synchronize() { backend().synchronize(); }
void *Stream::native_handle() const { return backend().native_handle(); }

void Stream::wait(const Event &event) {
    if (!event.valid()) throw UserError("Stream::wait: the event has no handle (it was moved from)");
    backend().wait(event.fence(), nullptr);
}

// ---------------------------------------------------------------------------
// Event

struct Event::State {
    Device device;
    mutable std::mutex mutex; // guards latest
    std::shared_ptr<Fence> latest;
};

Event::Event(Device device) : state_(std::make_unique<State>()) { state_->device = device; }
Event::~Event() = default;
Event::Event(Event &&) noexcept = default;
Event &Event::operator=(Event &&) noexcept = default;

namespace {
const char *moved_from = "Event: use of a moved-from event";
}

Device Event::device() const {
    if (!state_) throw UserError(moved_from);
    return state_->device;
}

void Event::record(Stream &stream) {
    if (!state_) throw UserError(moved_from);
    const Device on = stream.device();
    if (on != state_->device)
        throw UserError("Event::record: the event is for " + state_->device.name() + ", the stream is on " + on.name());
    std::shared_ptr<Fence> fence = stream.backend().record();
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->latest = std::move(fence);
}

std::shared_ptr<Fence> Event::fence() const {
    if (!state_) throw UserError(moved_from);
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->latest;
}

bool Event::recorded() const { return fence() != nullptr; }

bool Event::query() const {
    const std::shared_ptr<Fence> f = fence();
    return !f || f->query();
}

void Event::synchronize() const {
    if (const std::shared_ptr<Fence> f = fence()) f->wait();
}

// ---------------------------------------------------------------------------
// Copies

void copy(const Array &dst, const Array &src, Stream *stream) {
    if (dst.dtype() != src.dtype() || dst.shape() != src.shape())
        throw UserError("copy: the destination is " + dst.dtype().name() + " " + shape_text(dst.shape()) +
                        ", the source " + src.dtype().name() + " " + shape_text(src.shape()));
    if (dst.device().is_cpu() && src.device().is_cpu()) {
        auto run = [dst = Array(dst), src]() mutable { // init-capture: a non-const copy
            if (src.is_contiguous()) {
                dst.copy_from_host(src.data(), src.nbytes());
                return;
            }
            std::vector<std::byte> packed(src.nbytes());
            src.copy_to_host(packed.data(), packed.size());
            dst.copy_from_host(packed.data(), packed.size());
        };
        if (!stream) return run();
        if (!stream->device().is_cpu())
            throw UserError("copy: a copy between CPU arrays runs on a CPU stream; the stream is on " +
                            stream->device().name());
        return stream->enqueue(std::move(run));
    }
    // Device memory: the device's runtime copies, on one of its streams.
    const Device device = dst.device().is_cpu() ? src.device() : dst.device();
    if (!dst.device().is_cpu() && !src.device().is_cpu() && dst.device().kind != src.device().kind)
        throw UserError("copy: from " + src.device().name() + " to " + dst.device().name() + " is not supported");
    if (stream && stream->device() != device)
        throw UserError("copy: a copy between " + src.device().name() + " and " + dst.device().name() +
                        " runs on a stream of " + device.name() + ", not " + stream->device().name());
    const std::size_t n = src.nbytes();
    if (n == 0) return;
    // Host-side views are staged packed; device memory must be contiguous (the driver copies bytes).
    for (const Array *a : {&dst, &src})
        if (!a->device().is_cpu() && !a->is_contiguous())
            throw UserError("copy: the array on " + a->device().name() + " (" + a->dtype().name() + " " +
                            shape_text(a->shape()) + ") is a strided view; copies of device memory need contiguous arrays");
    DeviceRuntime &runtime = device_runtime(device);
    StreamBackend *backend = stream ? &stream->backend() : nullptr;
    if (dst.device().is_cpu()) {
        if (dst.is_contiguous()) return runtime.copy(device.ordinal, dst.data(), src.data(), n, DeviceRuntime::Copy::DeviceToHost, backend);
        std::vector<std::byte> packed(n); // a strided host view: after the stream's work, copy, then scatter
        if (backend) backend->synchronize();
        runtime.copy(device.ordinal, packed.data(), src.data(), n, DeviceRuntime::Copy::DeviceToHost, nullptr);
        Array(dst).copy_from_host(packed.data(), n);
        return;
    }
    if (src.device().is_cpu()) {
        if (src.is_contiguous()) return runtime.copy(device.ordinal, dst.data(), src.data(), n, DeviceRuntime::Copy::HostToDevice, backend);
        std::vector<std::byte> packed(n); // the driver has read pageable memory when the call returns
        src.copy_to_host(packed.data(), n);
        return runtime.copy(device.ordinal, dst.data(), packed.data(), n, DeviceRuntime::Copy::HostToDevice, backend);
    }
    runtime.copy(device.ordinal, dst.data(), src.data(), n, DeviceRuntime::Copy::DeviceToDevice, backend);
}

} // namespace weft
