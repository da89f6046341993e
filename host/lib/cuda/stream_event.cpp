// Raw CUDA streams and events.
#include "internal.hpp"

#include "cuda/stream_event.hpp"
#include "weft/support/error.hpp"


namespace weft {

using backend::CudaDriver;
using cuda::driver;

// ---------------------------------------------------------------------------
// Streams and events

CudaStream::CudaStream(int device, bool non_blocking) : device_(device) {
    const CudaContextGuard context(device_);
    stream_ = driver().stream_create(non_blocking ? CudaDriver::stream_non_blocking : 0);
}

CudaStream::~CudaStream() {
    try {
        const CudaContextGuard context(device_);
        driver().stream_destroy(stream_);
    } catch (...) {
    }
}

void CudaStream::synchronize() {
    const CudaContextGuard context(device_);
    driver().stream_synchronize(stream_);
}

void CudaStream::wait_event(backend::CudaEvent event) {
    const CudaContextGuard context(device_);
    driver().stream_wait_event(stream_, event);
}

CudaEvent::CudaEvent(int device, bool timing, bool blocking_sync) : device_(device) {
    const CudaContextGuard context(device_);
    event_ = driver().event_create((timing ? 0 : CudaDriver::event_disable_timing) |
                                   (blocking_sync ? CudaDriver::event_blocking_sync : 0));
}

CudaEvent::~CudaEvent() {
    try {
        const CudaContextGuard context(device_);
        driver().event_destroy(event_);
    } catch (...) {
    }
}

void CudaEvent::record(CudaStream *stream) {
    if (stream && stream->device() != device_)
        throw UserError("CudaEvent::record: the event is on cuda:" + std::to_string(device_) + ", the stream on cuda:" +
                        std::to_string(stream->device()));
    const CudaContextGuard context(device_);
    driver().event_record(event_, stream ? stream->handle() : nullptr);
}

bool CudaEvent::query() {
    const CudaContextGuard context(device_);
    return driver().event_query(event_);
}

void CudaEvent::synchronize() {
    const CudaContextGuard context(device_);
    driver().event_synchronize(event_);
}

float CudaEvent::elapsed_ms(const CudaEvent &start, const CudaEvent &end) {
    const CudaContextGuard context(start.device_);
    return driver().event_elapsed_ms(start.event_, end.event_);
}

} // namespace weft
