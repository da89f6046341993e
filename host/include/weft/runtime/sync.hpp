// weft::Sync: a sync object linked to an event, with the semantics the EGL
// extension EGL_NV_cuda_event gives EGL sync objects of type
// EGL_SYNC_CUDA_EVENT_NV (Version 1, 2014), on every device weft has:
//
// - Created from an event: the event must have been recorded. A missing
//   event is the extension's EGL_BAD_ATTRIBUTE ("EGL_CUDA_EVENT_HANDLE_NV
//   not specified"); a never-recorded event is its "not properly
//   initialized" (there EGL may do anything; weft reports it).
// - Its status is signaled once all work before the event's most recent
//   record *at creation time* has finished. Recording the event again later
//   has no effect on it.
// - Its only condition is "event complete" (EGL_SYNC_CUDA_EVENT_COMPLETE_NV).
// - client_wait(timeout_ns) blocks until the condition is satisfied or the
//   timeout expires (Sync::forever never expires; 0 only tests).
// - Destroying it while client waits or stream waits block on it flags it
//   for deletion; it is deleted when the last of them ends.
//
// weft/egl/egl_sync.hpp creates the real EGLSync from a CUDA event on an
// EGL display that has the extension.
#pragma once

#include "weft/runtime/stream.hpp"
#include "weft/support/error.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace weft {

/// A sync object that cannot be created or used. kind() says which rule failed.
class SyncError : public UserError {
public:
    enum class Kind {
        MissingEvent,     // no event handle (the extension's EGL_BAD_ATTRIBUTE)
        EventNotRecorded, // never recorded (the extension's "not properly initialized")
        WrongDevice,      // an event or stream of another device than required
        NotSupported,     // the display or build cannot create this kind of sync
        Unavailable,      // a library needed at run time (libEGL) cannot be loaded
        Failed,           // the underlying API reported an error
    };
    SyncError(Kind kind, const std::string &message) : UserError(message), kind_(kind) {}
    Kind kind() const noexcept { return kind_; }

private:
    Kind kind_;
};

/// Attribute names for Sync::attrib; their values are EGL's where EGL has one
/// (EGL_SYNC_STATUS, EGL_SYNC_TYPE, EGL_SYNC_CONDITION).
enum class SyncAttrib : std::int32_t { Status = 0x30F1, Type = 0x30F7, Condition = 0x30F8 };
/// EGL_SIGNALED / EGL_UNSIGNALED.
enum class SyncStatus : std::int32_t { Signaled = 0x30F2, Unsignaled = 0x30F3 };
/// CudaEvent is EGL_SYNC_CUDA_EVENT_NV; CpuEvent is weft's own (no EGL token
/// exists for it; the value is outside EGL's registered ranges).
enum class SyncType : std::int32_t { CudaEvent = 0x323C, CpuEvent = 0x7EF0 };
/// EGL_SYNC_CUDA_EVENT_COMPLETE_NV, the only condition.
enum class SyncCondition : std::int32_t { EventComplete = 0x323D };
/// EGL_CONDITION_SATISFIED / EGL_TIMEOUT_EXPIRED.
enum class WaitResult : std::int32_t { ConditionSatisfied = 0x30F6, TimeoutExpired = 0x30F5 };

class Sync {
public:
    /// EGL_FOREVER: a client wait that never times out.
    static constexpr std::uint64_t forever = ~std::uint64_t{0};

    /// A sync linked to the most recent record of `event`. SyncError
    /// MissingEvent for nullptr (or a moved-from event), EventNotRecorded for
    /// an event that was never recorded.
    explicit Sync(const Event *event);
    explicit Sync(const Event &event) : Sync(&event) {}
    /// Destroys the sync; deletion is deferred while waits block on it.
    ~Sync();
    Sync(Sync &&) noexcept;
    Sync &operator=(Sync &&) noexcept;
    Sync(const Sync &) = delete;
    Sync &operator=(const Sync &) = delete;

    SyncType type() const;
    SyncCondition condition() const { return SyncCondition::EventComplete; }
    SyncStatus status() const;
    bool signaled() const { return status() == SyncStatus::Signaled; }
    /// eglGetSyncAttrib: the value of Status, Type or Condition as its enum's number.
    std::int64_t attrib(SyncAttrib attribute) const;
    Device device() const;

    /// Blocks the calling thread until the condition is satisfied or
    /// `timeout_ns` nanoseconds have passed (Sync::forever: no limit; 0: only
    /// tests). The wait holds the sync object: destroying the Sync meanwhile
    /// (from another thread) defers its deletion until the wait returns.
    WaitResult client_wait(std::uint64_t timeout_ns) const;
    /// Client waits (and stream waits not yet over) blocking on this sync object now.
    int blocked_waiters() const;
    /// The completion point this sync is linked to.
    const std::shared_ptr<Fence> &fence() const;

    /// Sync objects of this process not yet deleted, those flagged for
    /// deletion included (diagnostics and tests of deferred deletion).
    static std::size_t live_objects();

    struct Object;

private:
    friend class Stream;
    std::shared_ptr<Object> object_;
};

} // namespace weft
