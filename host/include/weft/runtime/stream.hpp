// Streams and events: ordered work on a device, and points in that order.
//
// A Stream runs what is enqueued on it in order, asynchronously to the thread
// that enqueued it. On the CPU a stream is an in-order work queue drained by
// one worker thread of its own (a kernel launched on it still spreads over
// the host's thread pool); on CUDA it is a driver stream (the host layer's
// weft/runtime/cuda.hpp makes one). Work given no stream keeps weft's
// synchronous behaviour: it has finished when the call returns.
//
// An Event marks a point in a stream: record(stream) captures "all work
// enqueued on the stream so far" as a completion point (a Fence). Recording
// again captures a new point; what was captured before (by a Sync, a waiting
// stream) keeps referring to the old one. That is the rule EGL_NV_cuda_event
// states for sync objects, and it holds here by construction.
#pragma once

#include "weft/runtime/array.hpp"
#include "weft/runtime/device.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace weft {

class Sync;

/// A completion point: the work a stream held when an event was recorded on
/// it. Fences are shared (an event, the syncs created from it and the streams
/// waiting on it all hold the same one) and never change once complete.
/// Implemented by each device's stream; all members are thread-safe.
class Fence {
public:
    using Clock = std::chrono::steady_clock;
    virtual ~Fence() = default;
    virtual Device device() const = 0;
    /// True once every piece of work before the point has finished.
    virtual bool query() = 0;
    /// Blocks until complete or `deadline`; true when complete.
    virtual bool wait_until(Clock::time_point deadline) = 0;
    /// Blocks until complete.
    virtual void wait() = 0;
    /// The device's own handle (a CUevent for CUDA), nullptr on the CPU.
    virtual void *native_handle() const { return nullptr; }
};

/// What a Stream is on its device. The runtime implements it for the CPU; the
/// host layer implements it for CUDA.
class StreamBackend {
public:
    virtual ~StreamBackend() = default;
    virtual Device device() const = 0;
    /// A fence after everything enqueued so far.
    virtual std::shared_ptr<Fence> record() = 0;
    /// Work enqueued later starts only after `fence` completes. `keep_alive`
    /// is released once the wait is over (it is what must not be deleted
    /// while the stream waits, e.g. a sync object).
    virtual void wait(std::shared_ptr<Fence> fence, std::shared_ptr<const void> keep_alive) = 0;
    /// Runs `task` on the stream, in order (a host function).
    virtual void enqueue(std::function<void()> task) = 0;
    /// Blocks until everything enqueued so far has finished; rethrows the
    /// first error an enqueued task raised since the last call.
    virtual void synchronize() = 0;
    /// The device's own handle (a CUstream for CUDA), nullptr on the CPU.
    virtual void *native_handle() const { return nullptr; }
    /// Runs `check` once the work enqueued so far has finished, at the latest
    /// in synchronize(), which rethrows what it throws (a kernel's failed
    /// expect_* checks, read after the device finished). By default a task.
    virtual void check_on_synchronize(std::function<void()> check) { enqueue(std::move(check)); }
};

/// An in-order queue of work on one device. Move-only; destroying a stream
/// waits for the work already enqueued (its errors are then dropped: call
/// synchronize() to see them).
///
/// Ownership: what an asynchronous call captures stays alive until the work
/// has run. A CPU launch keeps its packed arguments (and through them the
/// storage of every Array argument) and copies keep both arrays; the caller
/// may drop its own references at once, but must not write an array's
/// elements from the host while work that reads them is pending. The module
/// a kernel belongs to (and its Host) must outlive the work: synchronize or
/// destroy streams first.
class Stream {
public:
    /// A CPU stream with its own worker thread.
    Stream();
    /// A stream on `device`: a CPU stream, or a driver stream of a CUDA device
    /// (non_blocking: no implicit ordering with CUDA's legacy default stream).
    explicit Stream(Device device, bool non_blocking = false);
    /// A stream over a device's implementation.
    explicit Stream(std::unique_ptr<StreamBackend> backend);
    ~Stream();
    Stream(Stream &&) noexcept;
    Stream &operator=(Stream &&) noexcept;
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    Device device() const;
    /// Runs `task` on the stream after the work before it. An exception it
    /// throws is kept and rethrown by synchronize(); later work still runs.
    /// CUDA streams reject host tasks (UserError).
    void enqueue(std::function<void()> task);
    /// Later work on this stream waits until the work before the event's most
    /// recent record has finished (nothing, for a never-recorded event). The
    /// host does not block.
    void wait(const class Event &event);
    /// Later work on this stream waits until `sync`'s condition is satisfied
    /// (eglWaitSync's semantics); the host does not block. The sync object
    /// may be destroyed meanwhile: its deletion is deferred until the wait ends.
    void wait(const Sync &sync);
    /// Blocks until everything enqueued so far has finished, then rethrows the
    /// first error of an asynchronous task since the last call (a kernel's
    /// failed expect_* and bounds checks arrive here as LaunchError, on every
    /// device).
    void synchronize();
    /// A CUstream for CUDA streams, nullptr on the CPU.
    void *native_handle() const;
    StreamBackend &backend() const;

private:
    std::unique_ptr<StreamBackend> backend_;
};

/// A point in a stream, recorded with record(). Move-only (a moved-from event
/// has no handle: valid() is false). Thread-safe: record, query and the
/// creation of syncs may race; each sees one record or the next.
class Event {
public:
    /// An event for streams of `device`; nothing is recorded yet.
    explicit Event(Device device = Device::cpu());
    ~Event();
    Event(Event &&) noexcept;
    Event &operator=(Event &&) noexcept;
    Event(const Event &) = delete;
    Event &operator=(const Event &) = delete;

    /// False for a moved-from event.
    bool valid() const { return state_ != nullptr; }
    Device device() const;
    /// Captures everything enqueued on `stream` so far (the stream must be on
    /// the event's device). Replaces the previous record; fences captured from
    /// the previous one are unaffected.
    void record(Stream &stream);
    /// Whether record() was ever called.
    bool recorded() const;
    /// True when the work before the most recent record has finished (true
    /// for a never-recorded event, as cuEventQuery answers).
    bool query() const;
    /// Blocks until the work before the most recent record has finished.
    void synchronize() const;
    /// The completion point of the most recent record; nullptr when none.
    std::shared_ptr<Fence> fence() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// Copies the elements of `src` to `dst` (same dtype and shape), between any
/// devices, on `stream` when given (in order with its other work), else now.
/// Views of any strides on the CPU; an array in device memory must be
/// contiguous. A CPU copy on a CPU stream keeps both arrays alive until it has
/// run; a copy that touches a CUDA array runs on a stream of that device (or
/// none), and the caller keeps its arrays alive until the stream reaches it.
void copy(const Array &dst, const Array &src, Stream *stream = nullptr);

} // namespace weft
