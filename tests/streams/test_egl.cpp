// The EGL bridge on a display without EGL_NV_cuda_event: Mesa's surfaceless
// platform (Debian's libegl-mesa0), opened directly and as the default display
// under EGL_PLATFORM=surfaceless (that case sets it before creating the
// display). libEGL missing altogether is reported as a skip with the loader's
// reason; CI installs it, so there these cases run.
#include "weft/egl/egl_sync.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/runtime/sync.hpp"
#include "skip.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

using namespace weft;

namespace {

/// Ends the case as skipped (CTest: "Skipped") when libEGL cannot be loaded at all.
void require_libegl() {
    if (egl::library_available()) return;
    test::skip("libEGL is not installed (" + egl::library_unavailable_reason() +
               "); scripts/install-deps.sh installs libegl1 and libegl-mesa0");
}

void check_unsupported(const egl::Display &display) {
    INFO("display: " << display.describe() << "; extensions: " << display.extensions());
    CHECK(display.major_version() == 1);
    CHECK(display.minor_version() >= 4);
    CHECK_FALSE(display.vendor().empty());
    // The extension string is parsed by whole words.
    CHECK(display.has_extension("EGL_KHR_fence_sync"));
    CHECK_FALSE(display.has_extension("EGL_KHR_fence"));
    CHECK_FALSE(display.supports_cuda_event());
    CHECK_FALSE(display.cuda_device().has_value());

    Stream stream;
    Event event;
    event.record(stream);
    try {
        egl::EglSync sync(display, event);
        FAIL("an EGLSync of type EGL_SYNC_CUDA_EVENT_NV was created on a display without EGL_NV_cuda_event");
    } catch (const SyncError &e) {
        CHECK(e.kind() == SyncError::Kind::NotSupported);
        CHECK_THAT(e.what(), Catch::Contains("EGL_NV_cuda_event is not supported by this display") &&
                                 Catch::Contains(display.vendor()));
    }
    // The display is checked first: no event at all gets the same answer.
    try {
        egl::EglSync sync(display, nullptr);
        FAIL("created without an event");
    } catch (const SyncError &e) {
        CHECK(e.kind() == SyncError::Kind::NotSupported);
    }
}

} // namespace

TEST_CASE("the extension's tokens are the numbers its text gives") {
    CHECK(egl::token::cuda_event_handle_nv == 0x323B);
    CHECK(egl::token::sync_cuda_event_nv == 0x323C);
    CHECK(egl::token::sync_cuda_event_complete_nv == 0x323D);
    CHECK(static_cast<std::int32_t>(SyncType::CudaEvent) == egl::token::sync_cuda_event_nv);
    CHECK(static_cast<std::int32_t>(SyncCondition::EventComplete) == egl::token::sync_cuda_event_complete_nv);
    CHECK(static_cast<std::int32_t>(SyncAttrib::Type) == egl::token::sync_type);
    CHECK(static_cast<std::int32_t>(WaitResult::TimeoutExpired) == egl::token::timeout_expired);
    CHECK(egl::error_name(0x3004) == "EGL_BAD_ATTRIBUTE");
}

TEST_CASE("a Mesa surfaceless display says EGL_NV_cuda_event is not supported") {
    require_libegl();
    check_unsupported(egl::Display::surfaceless());
}

TEST_CASE("the default display under EGL_PLATFORM=surfaceless says EGL_NV_cuda_event is not supported") {
    require_libegl();
    // Mesa reads it when the default display is created; without it Mesa would look for X11 or Wayland.
    REQUIRE(::setenv("EGL_PLATFORM", "surfaceless", 1) == 0);
    check_unsupported(egl::Display::default_display());
}
