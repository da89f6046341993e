// Raw CUDA streams and events (private to libweft): what weft::Stream and
// weft::SyncObject are made of on a CUDA device (stream.cpp), and what GPU
// tests and benches time with. Modules and kernels are the modules layer's
// (weft/modules/compiled_module.hpp), the same on every device.
//
// Everything here goes through backend::CudaDriver (libcuda.so.1, loaded with
// dlopen on first use). Without a driver or device every entry point throws
// BackendError "CUDA driver not available: <reason>"; nothing here runs at
// static initialization. A failing driver call throws
// backend::CudaDriverError, whose message names the call. Every call works in
// the device's primary context, made current for its own duration only
// (CudaContextGuard).
#pragma once

#include "weft/backend/cuda.hpp"
#include "weft/runtime/cuda.hpp"

namespace weft {

/// A CUDA stream (cuStreamCreate) on a device; destroyed with the object.
class CudaStream {
public:
    explicit CudaStream(int device = 0, bool non_blocking = false);
    ~CudaStream();
    CudaStream(const CudaStream &) = delete;
    CudaStream &operator=(const CudaStream &) = delete;

    int device() const { return device_; }
    backend::CudaStream handle() const { return stream_; }
    void synchronize();
    /// Later work on this stream waits for `event` (cuStreamWaitEvent, this device's context current).
    void wait_event(backend::CudaEvent event);

private:
    int device_;
    backend::CudaStream stream_ = nullptr;
};

/// A CUDA event (cuEventCreate) on a device, with timing unless disabled.
/// With blocking_sync (CU_EVENT_BLOCKING_SYNC) a thread in synchronize()
/// sleeps until the event completes instead of spinning a core: what a fence
/// another thread waits on needs.
class CudaEvent {
public:
    explicit CudaEvent(int device = 0, bool timing = true, bool blocking_sync = false);
    ~CudaEvent();
    CudaEvent(const CudaEvent &) = delete;
    CudaEvent &operator=(const CudaEvent &) = delete;

    /// Records on `stream` (nullptr: the legacy default stream).
    void record(CudaStream *stream = nullptr);
    /// True when the work before the record has completed.
    bool query();
    void synchronize();
    /// Milliseconds from `start` to `end` (both recorded and completed; both timing).
    static float elapsed_ms(const CudaEvent &start, const CudaEvent &end);

    int device() const { return device_; }
    backend::CudaEvent handle() const { return event_; }

private:
    int device_;
    backend::CudaEvent event_ = nullptr;
};

} // namespace weft
