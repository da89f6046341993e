// The EGL bridge over libEGL loaded with dlopen. EGL's types are spelled out
// (EGLDisplay and EGLSync are pointers, EGLAttrib is intptr_t, EGLTime is
// 64-bit) so that no EGL header is needed: Debian's may predate the tokens.
#include "weft/egl/egl_sync.hpp"

#include "weft/backend/cuda.hpp"
#include "cuda/stream_event.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <sstream>
#include <vector>

namespace weft::egl {

namespace {

using EGLDisplay = void *;
using EGLSync = void *;
using EGLDeviceEXT = void *;
using EGLenum = unsigned int;
using EGLint = std::int32_t;
using EGLBoolean = unsigned int;
using EGLAttrib = std::intptr_t;
using EGLTime = std::uint64_t;

constexpr EGLint egl_success = 0x3000;
constexpr EGLint egl_extensions = 0x3055;
constexpr EGLint egl_vendor = 0x3053;
constexpr EGLint egl_device_ext = 0x322C;

// The entry points, as EGL 1.5 and its extensions declare them.
using GetProcAddress = void *(*)(const char *);
using GetError = EGLint (*)();
using GetDisplay = EGLDisplay (*)(void *);
using GetPlatformDisplay = EGLDisplay (*)(EGLenum, void *, const EGLAttrib *);
using GetPlatformDisplayEXT = EGLDisplay (*)(EGLenum, void *, const EGLint *);
using Initialize = EGLBoolean (*)(EGLDisplay, EGLint *, EGLint *);
using QueryString = const char *(*)(EGLDisplay, EGLint);
using CreateSync = EGLSync (*)(EGLDisplay, EGLenum, const EGLAttrib *);        // also eglCreateSync64KHR
using ClientWaitSync = EGLint (*)(EGLDisplay, EGLSync, EGLint, EGLTime);      // also ...KHR
using WaitSync15 = EGLBoolean (*)(EGLDisplay, EGLSync, EGLint);               // eglWaitSync
using WaitSyncKHR = EGLint (*)(EGLDisplay, EGLSync, EGLint);                  // eglWaitSyncKHR
using GetSyncAttrib = EGLBoolean (*)(EGLDisplay, EGLSync, EGLint, EGLAttrib *); // eglGetSyncAttrib
using GetSyncAttribKHR = EGLBoolean (*)(EGLDisplay, EGLSync, EGLint, EGLint *);
using DestroySync = EGLBoolean (*)(EGLDisplay, EGLSync);                      // also ...KHR
using QueryDevices = EGLBoolean (*)(EGLint, EGLDeviceEXT *, EGLint *);
using QueryDeviceAttrib = EGLBoolean (*)(EGLDeviceEXT, EGLint, EGLAttrib *);
using QueryDeviceString = const char *(*)(EGLDeviceEXT, EGLint);
using QueryDisplayAttrib = EGLBoolean (*)(EGLDisplay, EGLint, EGLAttrib *);

/// libEGL.so.1, opened once and never closed (EGL drivers do not unload cleanly).
struct Library {
    void *handle = nullptr;
    std::string reason;
    GetProcAddress get_proc_address = nullptr;
    GetError get_error = nullptr;
    GetDisplay get_display = nullptr;
    Initialize initialize = nullptr;
    QueryString query_string = nullptr;

    Library() {
#ifndef WEFT_WITH_EGL
        reason = "weft was built without the EGL bridge (WEFT_WITH_EGL=OFF)";
        return;
#else
        handle = ::dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *e = ::dlerror();
            reason = "libEGL.so.1 could not be loaded: " + std::string(e ? e : "unknown dlopen error");
            return;
        }
        get_proc_address = reinterpret_cast<GetProcAddress>(::dlsym(handle, "eglGetProcAddress"));
        get_error = reinterpret_cast<GetError>(::dlsym(handle, "eglGetError"));
        get_display = reinterpret_cast<GetDisplay>(::dlsym(handle, "eglGetDisplay"));
        initialize = reinterpret_cast<Initialize>(::dlsym(handle, "eglInitialize"));
        query_string = reinterpret_cast<QueryString>(::dlsym(handle, "eglQueryString"));
        if (!get_proc_address || !get_error || !get_display || !initialize || !query_string) {
            reason = "libEGL.so.1 lacks EGL 1.4's core functions (eglGetProcAddress, eglGetError, eglGetDisplay, "
                     "eglInitialize, eglQueryString)";
            handle = nullptr;
        }
#endif
    }

    void *proc(const char *name) const {
        void *p = get_proc_address(name);
        return p ? p : ::dlsym(handle, name);
    }
};

const Library &library() {
    static const Library *const lib = new Library; // never destroyed, like the library
    return *lib;
}

const Library &require() {
    const Library &lib = library();
    if (!lib.handle) throw SyncError(SyncError::Kind::Unavailable, "EGL bridge: " + lib.reason);
    return lib;
}

template <class F> F entry(const char *name) { return reinterpret_cast<F>(require().proc(name)); }

std::string last_error() { return error_name(require().get_error()); }

bool has_word(std::string_view list, std::string_view word) {
    std::size_t pos = 0;
    while ((pos = list.find(word, pos)) != std::string_view::npos) {
        const bool start = pos == 0 || list[pos - 1] == ' ';
        const std::size_t end = pos + word.size();
        if (start && (end == list.size() || list[end] == ' ')) return true;
        pos = end;
    }
    return false;
}

std::string client_extensions() {
    const char *s = require().query_string(nullptr, egl_extensions); // EGL_NO_DISPLAY: client extensions
    if (!s) {
        require().get_error(); // EGL_BAD_DISPLAY without EGL_EXT_client_extensions; clear it
        return "";
    }
    return s;
}

} // namespace

bool library_available() noexcept {
    try {
        return library().handle != nullptr;
    } catch (...) {
        return false;
    }
}

std::string library_unavailable_reason() { return library().reason; }

void *proc_address(const char *name) { return require().proc(name); }

std::string error_name(std::int32_t code) {
    static const char *const names[] = {"EGL_SUCCESS",         "EGL_NOT_INITIALIZED", "EGL_BAD_ACCESS",
                                        "EGL_BAD_ALLOC",       "EGL_BAD_ATTRIBUTE",   "EGL_BAD_CONFIG",
                                        "EGL_BAD_CONTEXT",     "EGL_BAD_CURRENT_SURFACE", "EGL_BAD_DISPLAY",
                                        "EGL_BAD_MATCH",       "EGL_BAD_NATIVE_PIXMAP", "EGL_BAD_NATIVE_WINDOW",
                                        "EGL_BAD_PARAMETER",   "EGL_BAD_SURFACE",     "EGL_CONTEXT_LOST"};
    if (code >= egl_success && code <= egl_success + 14) return names[code - egl_success];
    std::ostringstream out;
    out << "EGL error 0x" << std::hex << code;
    return out.str();
}

// ---------------------------------------------------------------------------
// Display

Display Display::initialize(void *handle, const std::string &what) {
    const Library &lib = require();
    if (!handle) throw SyncError(SyncError::Kind::NotSupported, "EGL: " + what + " gave no display (" + last_error() + ")");
    Display d;
    d.handle_ = handle;
    EGLint major = 0, minor = 0;
    if (!lib.initialize(handle, &major, &minor))
        throw SyncError(SyncError::Kind::Failed, "EGL: eglInitialize of " + what + " failed: " + last_error());
    d.major_ = major;
    d.minor_ = minor;
    const char *vendor = lib.query_string(handle, egl_vendor);
    const char *extensions = lib.query_string(handle, egl_extensions);
    d.vendor_ = vendor ? vendor : "";
    d.extensions_ = extensions ? extensions : "";
    return d;
}

Display Display::surfaceless() {
    const std::string what = "the surfaceless platform (EGL_PLATFORM_SURFACELESS_MESA)";
    if (!has_word(client_extensions(), "EGL_MESA_platform_surfaceless"))
        throw SyncError(SyncError::Kind::NotSupported,
                        "EGL: " + what + " is not offered by this libEGL (no EGL_MESA_platform_surfaceless)");
    void *display = nullptr;
    if (auto get = entry<GetPlatformDisplay>("eglGetPlatformDisplay"))
        display = get(static_cast<EGLenum>(token::platform_surfaceless_mesa), nullptr, nullptr);
    else if (auto get_ext = entry<GetPlatformDisplayEXT>("eglGetPlatformDisplayEXT"))
        display = get_ext(static_cast<EGLenum>(token::platform_surfaceless_mesa), nullptr, nullptr);
    return initialize(display, what);
}

Display Display::default_display() {
    return initialize(require().get_display(nullptr), "the default display (eglGetDisplay(EGL_DEFAULT_DISPLAY))");
}

Display Display::from_handle(void *egl_display) { return initialize(egl_display, "the application's display"); }

Display Display::for_cuda_device(int ordinal) {
    const std::string client = client_extensions();
    for (const char *ext : {"EGL_EXT_device_enumeration", "EGL_EXT_device_query", "EGL_EXT_platform_device"})
        if (!has_word(client, ext))
            throw SyncError(SyncError::Kind::NotSupported,
                            "EGL: no display for cuda:" + std::to_string(ordinal) + ": this libEGL lacks " + ext);
    auto query_devices = entry<QueryDevices>("eglQueryDevicesEXT");
    auto query_attrib = entry<QueryDeviceAttrib>("eglQueryDeviceAttribEXT");
    auto query_string = entry<QueryDeviceString>("eglQueryDeviceStringEXT");
    auto get = entry<GetPlatformDisplay>("eglGetPlatformDisplay");
    auto get_ext = entry<GetPlatformDisplayEXT>("eglGetPlatformDisplayEXT");
    if (!get && !get_ext)
        throw SyncError(SyncError::Kind::NotSupported,
                        "EGL: neither eglGetPlatformDisplay nor eglGetPlatformDisplayEXT is in libEGL");
    EGLint count = 0;
    if (!query_devices || !query_attrib || !query_string || !query_devices(0, nullptr, &count))
        throw SyncError(SyncError::Kind::Failed, "EGL: eglQueryDevicesEXT failed: " + last_error());
    std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
    if (count > 0 && !query_devices(count, devices.data(), &count))
        throw SyncError(SyncError::Kind::Failed, "EGL: eglQueryDevicesEXT failed: " + last_error());
    const int wanted = backend::CudaDriver::instance().device(ordinal); // the CUdevice EGL reports
    for (EGLint i = 0; i < count; ++i) {
        const char *ext = query_string(devices[static_cast<std::size_t>(i)], egl_extensions);
        if (!ext || !has_word(ext, "EGL_NV_device_cuda")) continue;
        EGLAttrib value = -1;
        if (!query_attrib(devices[static_cast<std::size_t>(i)], token::cuda_device_nv, &value) || value != wanted)
            continue;
        void *display = get ? get(static_cast<EGLenum>(token::platform_device_ext), devices[static_cast<std::size_t>(i)], nullptr)
                            : get_ext(static_cast<EGLenum>(token::platform_device_ext),
                                      devices[static_cast<std::size_t>(i)], nullptr);
        return initialize(display, "the EGL device of cuda:" + std::to_string(ordinal));
    }
    throw SyncError(SyncError::Kind::NotSupported,
                    "EGL: none of the " + std::to_string(count) + " EGL devices is cuda:" + std::to_string(ordinal) +
                        " (EGL_NV_device_cuda); NVIDIA's EGL driver provides them");
}

bool Display::has_extension(std::string_view name) const { return has_word(extensions_, name); }

std::optional<int> Display::cuda_device() const {
    if (!has_word(client_extensions(), "EGL_EXT_device_query")) return std::nullopt;
    auto display_attrib = entry<QueryDisplayAttrib>("eglQueryDisplayAttribEXT");
    auto device_attrib = entry<QueryDeviceAttrib>("eglQueryDeviceAttribEXT");
    auto device_string = entry<QueryDeviceString>("eglQueryDeviceStringEXT");
    if (!display_attrib || !device_attrib || !device_string) return std::nullopt;
    EGLAttrib device = 0;
    if (!display_attrib(handle_, egl_device_ext, &device) || device == 0) {
        require().get_error();
        return std::nullopt;
    }
    auto *dev = reinterpret_cast<EGLDeviceEXT>(device);
    const char *ext = device_string(dev, egl_extensions);
    if (!ext || !has_word(ext, "EGL_NV_device_cuda")) return std::nullopt;
    EGLAttrib value = -1;
    if (!device_attrib(dev, token::cuda_device_nv, &value)) {
        require().get_error();
        return std::nullopt;
    }
    return static_cast<int>(value);
}

std::string Display::describe() const {
    return "EGL " + std::to_string(major_) + "." + std::to_string(minor_) + ", vendor '" + vendor_ + "'";
}

// ---------------------------------------------------------------------------
// EglSync

namespace {
bool egl15(int major, int minor) { return major > 1 || (major == 1 && minor >= 5); }
} // namespace

EglSync::EglSync(const Display &display, const Event *event) {
    require();
    if (!display.supports_cuda_event())
        throw SyncError(SyncError::Kind::NotSupported,
                        "EGL_NV_cuda_event is not supported by this display (" + display.describe() +
                            "): it cannot link an EGL sync object to a CUDA event. NVIDIA's EGL driver has the "
                            "extension; weft::Sync gives the same semantics without EGL");
    const bool core = egl15(display.major_version(), display.minor_version());
    if (!core && !(display.has_extension("EGL_KHR_fence_sync") && display.has_extension("EGL_KHR_cl_event2")))
        throw SyncError(SyncError::Kind::NotSupported,
                        "EGL_NV_cuda_event on " + display.describe() +
                            " needs EGL 1.5 or EGL_KHR_fence_sync with EGL_KHR_cl_event2 (64-bit sync attributes "
                            "to pass the event pointer)");
    if (event == nullptr || !event->valid())
        throw SyncError(SyncError::Kind::MissingEvent,
                        "EglSync: no CUDA event given (EGL_CUDA_EVENT_HANDLE_NV not specified: EGL_BAD_ATTRIBUTE)");
    if (event->device().is_cpu())
        throw SyncError(SyncError::Kind::WrongDevice,
                        "EglSync: EGL_NV_cuda_event links CUDA events; this event is for cpu (use weft::Sync)");
    const std::shared_ptr<Fence> fence = event->fence();
    if (!fence)
        throw SyncError(SyncError::Kind::EventNotRecorded,
                        "EglSync: the " + event->device().name() +
                            " event was never recorded (EGL_NV_cuda_event: not properly initialized); record it "
                            "on a stream first");
    if (const std::optional<int> egl_device = display.cuda_device()) {
        const int event_device = backend::CudaDriver::instance().device(event->device().ordinal);
        if (*egl_device != event_device)
            throw SyncError(SyncError::Kind::WrongDevice,
                            "EglSync: the event is on " + event->device().name() + " (CUdevice " +
                                std::to_string(event_device) + "), the display's EGL device is CUdevice " +
                                std::to_string(*egl_device) + " (EGL_NV_device_cuda)");
    }
    // "A pointer to a cudaEvent_t object": cudaEvent_t (a CUevent) is itself the
    // pointer to the event object, and NVIDIA's drivers and samples take the
    // handle's value, (EGLAttrib)event, not the address of a variable holding it.
    void *cuda_event = fence->native_handle();
    const EGLAttrib attribs[] = {token::cuda_event_handle_nv, reinterpret_cast<EGLAttrib>(cuda_event), token::none};
    auto create = entry<CreateSync>(core ? "eglCreateSync" : "eglCreateSync64KHR");
    if (!create)
        throw SyncError(SyncError::Kind::NotSupported, std::string("EGL: ") +
                                                           (core ? "eglCreateSync" : "eglCreateSync64KHR") +
                                                           " is missing from libEGL");
    // The driver links the sync to the event in the current CUDA context: the
    // event's (weft's primary context of its device), not whatever the caller has.
    void *sync = nullptr;
    {
        const CudaContextGuard context(event->device().ordinal);
        sync = create(display.handle(), static_cast<EGLenum>(token::sync_cuda_event_nv), attribs);
    }
    if (!sync)
        throw SyncError(SyncError::Kind::Failed, std::string(core ? "eglCreateSync" : "eglCreateSync64KHR") +
                                                     "(EGL_SYNC_CUDA_EVENT_NV) failed: " + last_error());
    display_ = display.handle();
    sync_ = sync;
    khr_ = !core;
    // The EGLSync refers to this CUevent; a later record of the weft Event makes
    // a new one and would otherwise destroy this one under the sync.
    fence_ = fence;
}

void EglSync::reset() noexcept {
    if (!sync_) return;
    try {
        if (auto destroy = entry<DestroySync>(khr_ ? "eglDestroySyncKHR" : "eglDestroySync")) destroy(display_, sync_);
    } catch (...) {
    }
    sync_ = nullptr;
    fence_.reset(); // after eglDestroySync: EGL no longer refers to the event
}

EglSync::~EglSync() { reset(); }

EglSync::EglSync(EglSync &&other) noexcept
    : display_(other.display_), sync_(std::exchange(other.sync_, nullptr)), khr_(other.khr_),
      fence_(std::move(other.fence_)) {}

EglSync &EglSync::operator=(EglSync &&other) noexcept {
    if (this != &other) {
        reset();
        display_ = other.display_;
        sync_ = std::exchange(other.sync_, nullptr);
        khr_ = other.khr_;
        fence_ = std::move(other.fence_);
    }
    return *this;
}

namespace {
void *checked_sync(void *sync) {
    if (!sync) throw UserError("EglSync: use of a moved-from sync object");
    return sync;
}

/// An EGL entry point that must exist; a libEGL without it gets a clear error, not a null call.
template <class F> F required(const char *name) {
    F f = entry<F>(name);
    if (!f) throw SyncError(SyncError::Kind::NotSupported, std::string("EGL: ") + name + " is missing from libEGL");
    return f;
}
} // namespace

WaitResult EglSync::client_wait(std::uint64_t timeout_ns, bool flush) const {
    auto wait = required<ClientWaitSync>(khr_ ? "eglClientWaitSyncKHR" : "eglClientWaitSync");
    const EGLint r = wait(display_, checked_sync(sync_), flush ? token::sync_flush_commands_bit : 0, timeout_ns);
    if (r == token::condition_satisfied) return WaitResult::ConditionSatisfied;
    if (r == token::timeout_expired) return WaitResult::TimeoutExpired;
    throw SyncError(SyncError::Kind::Failed, "eglClientWaitSync failed: " + last_error());
}

void EglSync::server_wait() const {
    bool ok = false;
    if (khr_) {
        auto wait = entry<WaitSyncKHR>("eglWaitSyncKHR");
        if (!wait) throw SyncError(SyncError::Kind::NotSupported, "EGL: eglWaitSyncKHR is missing (EGL_KHR_wait_sync)");
        ok = wait(display_, checked_sync(sync_), 0) != 0;
    } else {
        ok = required<WaitSync15>("eglWaitSync")(display_, checked_sync(sync_), 0) != 0;
    }
    if (!ok) throw SyncError(SyncError::Kind::Failed, "eglWaitSync failed: " + last_error());
}

std::int64_t EglSync::attrib(SyncAttrib attribute) const {
    const auto name = static_cast<EGLint>(attribute);
    if (khr_) {
        EGLint value = 0;
        if (!required<GetSyncAttribKHR>("eglGetSyncAttribKHR")(display_, checked_sync(sync_), name, &value))
            throw SyncError(SyncError::Kind::Failed, "eglGetSyncAttribKHR failed: " + last_error());
        return value;
    }
    EGLAttrib value = 0;
    if (!required<GetSyncAttrib>("eglGetSyncAttrib")(display_, checked_sync(sync_), name, &value))
        throw SyncError(SyncError::Kind::Failed, "eglGetSyncAttrib failed: " + last_error());
    return static_cast<std::int64_t>(value);
}

} // namespace weft::egl
