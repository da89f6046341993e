// Sync objects over fences. The snapshot rule needs no bookkeeping: a sync
// holds the fence of the event's most recent record at creation, and a later
// record gives the event a new fence. Deferred deletion is shared ownership:
// each blocking wait holds the object, so the owner's destructor only drops
// its own reference.
#include "weft/runtime/sync.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>

namespace weft {

namespace {
std::atomic<std::size_t> live_sync_objects{0};
} // namespace

struct Sync::Object {
    std::shared_ptr<Fence> fence;
    Device device;
    SyncType type = SyncType::CpuEvent;
    std::atomic<int> waiters{0};

    Object() { live_sync_objects.fetch_add(1); }
    ~Object() { live_sync_objects.fetch_sub(1); }
    Object(const Object &) = delete;
    Object &operator=(const Object &) = delete;
};

namespace {

/// Counts one blocking wait on a sync object and holds it until the wait ends.
class WaitHold {
public:
    explicit WaitHold(std::shared_ptr<Sync::Object> object) : object_(std::move(object)) {
        object_->waiters.fetch_add(1);
    }
    ~WaitHold() { object_->waiters.fetch_sub(1); }
    WaitHold(const WaitHold &) = delete;
    WaitHold &operator=(const WaitHold &) = delete;

private:
    std::shared_ptr<Sync::Object> object_;
};

} // namespace

Sync::Sync(const Event *event) {
    if (event == nullptr || !event->valid())
        throw SyncError(SyncError::Kind::MissingEvent,
                        "Sync: no event handle given; a sync object is created from an event "
                        "(EGL_NV_cuda_event: EGL_CUDA_EVENT_HANDLE_NV not specified, EGL_BAD_ATTRIBUTE)");
    std::shared_ptr<Fence> fence = event->fence();
    if (!fence)
        throw SyncError(SyncError::Kind::EventNotRecorded,
                        "Sync: the " + event->device().name() +
                            " event was never recorded, so it marks no work (EGL_NV_cuda_event: the event is "
                            "not properly initialized); record it on a stream first");
    object_ = std::make_shared<Object>();
    object_->fence = std::move(fence);
    object_->device = event->device();
    object_->type = object_->device.is_cpu() ? SyncType::CpuEvent : SyncType::CudaEvent;
}

Sync::~Sync() = default;
Sync::Sync(Sync &&) noexcept = default;
Sync &Sync::operator=(Sync &&) noexcept = default;

namespace {
const Sync::Object &checked(const std::shared_ptr<Sync::Object> &o) {
    if (!o) throw UserError("Sync: use of a moved-from sync object");
    return *o;
}
} // namespace

SyncType Sync::type() const { return checked(object_).type; }
Device Sync::device() const { return checked(object_).device; }
const std::shared_ptr<Fence> &Sync::fence() const { return checked(object_).fence; }
int Sync::blocked_waiters() const { return checked(object_).waiters.load(); }
std::size_t Sync::live_objects() { return live_sync_objects.load(); }

SyncStatus Sync::status() const {
    return checked(object_).fence->query() ? SyncStatus::Signaled : SyncStatus::Unsignaled;
}

std::int64_t Sync::attrib(SyncAttrib attribute) const {
    switch (attribute) {
    case SyncAttrib::Status: return static_cast<std::int64_t>(status());
    case SyncAttrib::Type: return static_cast<std::int64_t>(type());
    case SyncAttrib::Condition: return static_cast<std::int64_t>(condition());
    }
    throw SyncError(SyncError::Kind::Failed, "Sync::attrib: unknown attribute " +
                                                 std::to_string(static_cast<std::int32_t>(attribute)) +
                                                 " (known: Status, Type, Condition)");
}

WaitResult Sync::client_wait(std::uint64_t timeout_ns) const {
    // Everything below uses the local reference only: the Sync may be
    // destroyed by another thread once the hold is counted.
    std::shared_ptr<Object> object = object_;
    checked(object);
    const WaitHold hold(object);
    Fence &fence = *object->fence;
    if (fence.query()) return WaitResult::ConditionSatisfied;
    if (timeout_ns == 0) return WaitResult::TimeoutExpired;
    using Clock = Fence::Clock;
    const Clock::time_point now = Clock::now();
    // Timeouts too long for the clock are forever, not an overflow into the past.
    const auto room = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::time_point::max() - now).count();
    if (timeout_ns == forever || timeout_ns >= static_cast<std::uint64_t>(room)) {
        fence.wait();
        return WaitResult::ConditionSatisfied;
    }
    const auto deadline = now + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::nanoseconds(static_cast<std::int64_t>(timeout_ns)));
    return fence.wait_until(deadline) ? WaitResult::ConditionSatisfied : WaitResult::TimeoutExpired;
}

void Stream::wait(const Sync &sync) {
    const std::shared_ptr<Sync::Object> &object = sync.object_;
    checked(object);
    // Each device's stream says which fences it can wait for (a CUDA stream: CUDA ones only).
    backend().wait(object->fence, std::make_shared<WaitHold>(object));
}

} // namespace weft
