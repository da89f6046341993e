// LLVM ends the process on a fatal error (report_fatal_error: "IO failure on
// output stream: No space left on device" when a PCH write fills the disk)
// and on an allocation it cannot make; no `try` can catch either. The
// handlers installed here record the message and leave through LLVM's own
// exit path, which returns to the CrashRecoveryContext a compile runs in (as
// clang's integrated cc1 does), so the host gets an error instead of exit(1).
#include "internal.hpp"

#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Signals.h>

#include <exception>
#include <optional>
#include <mutex>

namespace weft::backend::cpu {

namespace {

thread_local std::string fatal_message;

void on_fatal_error(void *, const char *reason, bool) {
    fatal_message = reason ? reason : "fatal error";
    // Removes the files LLVM registered for removal (a half-written output).
    llvm::sys::RunInterruptHandlers();
    // Returns to RunSafely when this thread is inside one; exits otherwise.
    llvm::sys::Process::Exit(1);
}

void on_bad_alloc(void *, const char *reason, bool) {
    fatal_message = std::string("out of memory") + (reason ? std::string(" (") + reason + ")" : std::string());
    llvm::sys::Process::Exit(1);
}

} // namespace

void install_llvm_error_handlers() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::CrashRecoveryContext::Enable();
        llvm::install_fatal_error_handler(&on_fatal_error);
        llvm::install_bad_alloc_error_handler(&on_bad_alloc);
    });
}

std::optional<std::string> run_recoverable(const std::function<void()> &work) {
    install_llvm_error_handlers();
    fatal_message.clear();
    std::exception_ptr thrown;
    llvm::CrashRecoveryContext context;
    const bool finished = context.RunSafely([&] {
        try {
            work();
        } catch (...) {
            thrown = std::current_exception(); // not unwound through the context's frames
        }
    });
    if (thrown) std::rethrow_exception(thrown);
    if (finished) return std::nullopt;
    return !fatal_message.empty() ? "LLVM: " + fatal_message
                                  : "the compiler crashed (code " + std::to_string(context.RetCode) + ")";
}

} // namespace weft::backend::cpu
