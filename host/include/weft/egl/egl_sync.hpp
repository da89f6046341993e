// The EGL bridge: a real EGLSync of type EGL_SYNC_CUDA_EVENT_NV linked to a
// weft CUDA event (EGL_NV_cuda_event), so a renderer's client API (GL, GLES,
// Vulkan through EGL) can wait on kernel results without stalling the CPU.
//
// libEGL is opened with dlopen on first use, never linked: weft starts and
// runs where there is no EGL at all, and the bridge says why it cannot work.
// The extension's tokens are defined here from its text, so no EGL header
// (old ones lack them) is needed to build. Built unless WEFT_WITH_EGL=OFF.
//
// Whether a display can link CUDA events is decided at run time from its
// extension string: NVIDIA's EGL driver has EGL_NV_cuda_event; Mesa's
// (surfaceless, llvmpipe, ...) does not, and creating a sync there throws
// SyncError NotSupported ("... is not supported by this display ...").
// weft::Sync (weft/runtime/sync.hpp) has the same semantics on every device
// without EGL.
//
// Displays are process-wide EGL objects: weft initializes the ones it opens
// and never terminates any (the application owns their lifetime).
#pragma once

#include "weft/runtime/stream.hpp"
#include "weft/runtime/sync.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace weft::egl {

/// The extension's tokens (EGL_NV_cuda_event, "New Tokens") and those of
/// EGL_NV_device_cuda and the EGL 1.5 sync API the bridge uses.
namespace token {
constexpr std::int32_t cuda_event_handle_nv = 0x323B;       // EGL_CUDA_EVENT_HANDLE_NV
constexpr std::int32_t sync_cuda_event_nv = 0x323C;         // EGL_SYNC_CUDA_EVENT_NV
constexpr std::int32_t sync_cuda_event_complete_nv = 0x323D; // EGL_SYNC_CUDA_EVENT_COMPLETE_NV
constexpr std::int32_t cuda_device_nv = 0x323A;             // EGL_CUDA_DEVICE_NV (EGL_NV_device_cuda)
constexpr std::int32_t sync_status = 0x30F1;                // EGL_SYNC_STATUS
constexpr std::int32_t sync_type = 0x30F7;                  // EGL_SYNC_TYPE
constexpr std::int32_t sync_condition = 0x30F8;             // EGL_SYNC_CONDITION
constexpr std::int32_t signaled = 0x30F2;                   // EGL_SIGNALED
constexpr std::int32_t unsignaled = 0x30F3;                 // EGL_UNSIGNALED
constexpr std::int32_t timeout_expired = 0x30F5;            // EGL_TIMEOUT_EXPIRED
constexpr std::int32_t condition_satisfied = 0x30F6;        // EGL_CONDITION_SATISFIED
constexpr std::int32_t sync_flush_commands_bit = 0x0001;    // EGL_SYNC_FLUSH_COMMANDS_BIT
constexpr std::int32_t none = 0x3038;                       // EGL_NONE
constexpr std::int32_t platform_surfaceless_mesa = 0x31DD;  // EGL_PLATFORM_SURFACELESS_MESA
constexpr std::int32_t platform_device_ext = 0x313F;        // EGL_PLATFORM_DEVICE_EXT
constexpr std::uint64_t forever = ~std::uint64_t{0};        // EGL_FOREVER
} // namespace token

/// Whether libEGL could be loaded (never throws); the reason when not ("" when it was).
bool library_available() noexcept;
std::string library_unavailable_reason();
/// eglGetProcAddress through the loaded library (core functions via dlsym
/// too); nullptr when absent. SyncError Unavailable without libEGL.
void *proc_address(const char *name);
/// "EGL_BAD_ATTRIBUTE" for an eglGetError() code.
std::string error_name(std::int32_t code);

/// An initialized EGL display. A cheap value: the EGLDisplay handle and what
/// eglQueryString said about it.
class Display {
public:
    /// Mesa's surfaceless platform (eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA)):
    /// no window system, no GPU needed. SyncError when libEGL or the platform is missing.
    static Display surfaceless();
    /// eglGetDisplay(EGL_DEFAULT_DISPLAY) (Mesa picks its platform from EGL_PLATFORM).
    static Display default_display();
    /// The display of the EGL device whose EGL_CUDA_DEVICE_NV is CUDA device
    /// `ordinal` (EGL_EXT_device_enumeration, EGL_EXT_platform_device,
    /// EGL_NV_device_cuda); SyncError NotSupported when there is none.
    static Display for_cuda_device(int ordinal);
    /// An application's display (an EGLDisplay); initialized here when it is not yet.
    static Display from_handle(void *egl_display);

    void *handle() const { return handle_; }
    int major_version() const { return major_; }
    int minor_version() const { return minor_; }
    const std::string &vendor() const { return vendor_; }
    const std::string &extensions() const { return extensions_; }
    /// Whether `name` is a whole word of the display's extension string.
    bool has_extension(std::string_view name) const;
    /// EGL_NV_cuda_event is in the extension string.
    bool supports_cuda_event() const { return has_extension("EGL_NV_cuda_event"); }
    /// The CUdevice of the display's EGL device (EGL_NV_device_cuda), when the display says.
    std::optional<int> cuda_device() const;
    /// "EGL 1.5, vendor 'Mesa Project'", as messages describe the display.
    std::string describe() const;

private:
    static Display initialize(void *handle, const std::string &what);
    void *handle_ = nullptr;
    int major_ = 0, minor_ = 0;
    std::string vendor_, extensions_;
};

/// An EGLSync of type EGL_SYNC_CUDA_EVENT_NV linked to the most recent record
/// of a CUDA event, with the extension's semantics (see weft::Sync). Created
/// with eglCreateSync on EGL 1.5, else eglCreateSync64KHR (EGL_KHR_fence_sync
/// and EGL_KHR_cl_event2). Move-only; the destructor calls eglDestroySync,
/// and EGL itself defers the deletion while waits block on it.
class EglSync {
public:
    /// SyncError, checked in this order: Unavailable (no libEGL);
    /// NotSupported (the display lacks EGL_NV_cuda_event, or 64-bit sync
    /// attributes); MissingEvent (nullptr: EGL_BAD_ATTRIBUTE); WrongDevice
    /// (not a CUDA event, or one of another CUDA device than the display's);
    /// EventNotRecorded; Failed (EGL's error, named).
    EglSync(const Display &display, const Event *event);
    EglSync(const Display &display, const Event &event) : EglSync(display, &event) {}
    ~EglSync();
    EglSync(EglSync &&other) noexcept;
    EglSync &operator=(EglSync &&other) noexcept;
    EglSync(const EglSync &) = delete;
    EglSync &operator=(const EglSync &) = delete;

    /// eglClientWaitSync (flush: EGL_SYNC_FLUSH_COMMANDS_BIT).
    WaitResult client_wait(std::uint64_t timeout_ns, bool flush = false) const;
    /// eglWaitSync: the client API context current on this thread waits on
    /// the GPU (the CPU does not block). Needs a current context.
    void server_wait() const;
    /// eglGetSyncAttrib.
    std::int64_t attrib(SyncAttrib attribute) const;
    SyncType type() const { return static_cast<SyncType>(attrib(SyncAttrib::Type)); }
    SyncCondition condition() const { return static_cast<SyncCondition>(attrib(SyncAttrib::Condition)); }
    SyncStatus status() const { return static_cast<SyncStatus>(attrib(SyncAttrib::Status)); }
    /// The EGLSync.
    void *handle() const { return sync_; }
    /// True when made with eglCreateSync64KHR (EGL older than 1.5).
    bool khr() const { return khr_; }

private:
    void reset() noexcept;
    void *display_ = nullptr;
    void *sync_ = nullptr;
    bool khr_ = false;
    std::shared_ptr<Fence> fence_; // the CUevent the sync is linked to, alive as long as the sync
};

} // namespace weft::egl
