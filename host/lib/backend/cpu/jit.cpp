// ORC JIT: one execution session and JITLink object layer per process, one
// JITDylib per loaded module. A module's undefined symbols resolve against
// (1) its own hook __cxa_atexit (static destructors run at unload), (2) the
// host symbols defined through define_host_symbols (the "main" dylib), (3)
// the process (the process-symbols dylib: libc, libm, libstdc++, exported
// executable symbols).
//
// Only objects are linked here, never IR, so this sets up what LLJIT would
// for that alone (the same layer, EH-frame registration and process
// symbols) without LLJIT's target machine and IR layers: creating those was
// most of the millisecond a warm load in a new process waited for the JIT
// (issue 20, bench_cpu_compile).
//
// A module can also be mapped from a shared object (load_shared_object,
// shared_object.cpp): no JITDylib then, unless an object (a strided copy) is
// added to it, which links in one of its own that resolves against it.
#include "internal.hpp"

#include "rt_calls.hpp"

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/EPCDynamicLibrarySearchGenerator.h>
#include <llvm/ExecutionEngine/Orc/EPCEHFrameRegistrar.h>
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/ObjectFileInterface.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/Support/DynamicLibrary.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <map>
#include <mutex>

namespace weft::backend {

namespace {
std::string message_of(llvm::Error e) { return llvm::toString(std::move(e)); }

// Exit handlers registered by JIT'd code, per module (keyed by the module's
// __dso_handle); run when the module unloads, not at process exit when its
// code would be gone.
struct ExitHandlers {
    std::mutex mutex;
    std::map<void *, std::vector<std::pair<void (*)(void *), void *>>> by_module;

    void add(void *dso, void (*fn)(void *), void *arg) {
        std::lock_guard<std::mutex> lock(mutex);
        by_module[dso].emplace_back(fn, arg);
    }
    void run(void *dso) {
        std::vector<std::pair<void (*)(void *), void *>> handlers;
        {
            std::lock_guard<std::mutex> lock(mutex);
            auto it = by_module.find(dso);
            if (it == by_module.end()) return;
            handlers = std::move(it->second);
            by_module.erase(it);
        }
        for (auto h = handlers.rbegin(); h != handlers.rend(); ++h) h->first(h->second);
    }
};
ExitHandlers &exit_handlers() {
    static auto *handlers = new ExitHandlers(); // lives as long as the (never destroyed) JIT
    return *handlers;
}

int jit_cxa_atexit(void (*fn)(void *), void *arg, void *dso) {
    exit_handlers().add(dso, fn, arg);
    return 0;
}

// The ExecutionSession reports link errors (unresolved symbols, bad
// relocations) to one process-wide reporter; a load collects those raised on
// its own thread (materialization runs in place, on the thread that looks up).
thread_local std::vector<std::string> *session_errors = nullptr;

struct CaptureSessionErrors {
    std::vector<std::string> errors;
    CaptureSessionErrors() { session_errors = &errors; }
    ~CaptureSessionErrors() { session_errors = nullptr; }
    CaptureSessionErrors(const CaptureSessionErrors &) = delete;
    CaptureSessionErrors &operator=(const CaptureSessionErrors &) = delete;
};

void report_session_error(llvm::Error e) {
    std::string message = message_of(std::move(e));
    if (session_errors)
        session_errors->push_back(std::move(message));
    else
        llvm::errs() << "weft: JIT: " << message << "\n";
}
} // namespace

struct CpuJit::Impl {
    std::unique_ptr<llvm::orc::ExecutionSession> session;
    std::unique_ptr<llvm::orc::ObjectLinkingLayer> layer;
    llvm::orc::JITDylib *main = nullptr;    // define_host_symbols
    llvm::orc::JITDylib *process = nullptr; // the process's own symbols
    std::atomic<std::uint64_t> next_id{0};

    /// A linker name as the session knows it: ELF has no global prefix.
    llvm::orc::SymbolStringPtr intern(llvm::StringRef name) const { return session->intern(name); }

    /// A module's JITDylib resolves against itself, the host symbols, then
    /// the process; its __cxa_atexit is the module's own exit handlers:
    /// static destructors register there, keyed by the module's own
    /// __dso_handle (static_init.cpp defines it), and run at unload.
    void link_against_host(llvm::orc::JITDylib &jd, const std::string &module) {
        llvm::orc::JITDylibSearchOrder order{{main, llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly},
                                             {process, llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly}};
        jd.setLinkOrder(std::move(order), /*LinkAgainstThisJITDylibFirst=*/true);
        llvm::orc::SymbolMap hooks;
        hooks[intern("__cxa_atexit")] = {llvm::orc::ExecutorAddr::fromPtr(&jit_cxa_atexit), llvm::JITSymbolFlags::Callable};
        if (llvm::Error e = jd.define(llvm::orc::absoluteSymbols(std::move(hooks))))
            throw BackendError("JIT module '" + module + "': runtime hooks: " + message_of(std::move(e)));
    }
};

CpuJit::CpuJit() : impl_(std::make_unique<Impl>()) {
    cpu::initialize_native_target();
    auto fail = [](llvm::Error e) { return BackendError("could not create the ORC JIT: " + message_of(std::move(e))); };
    auto process_control = llvm::orc::SelfExecutorProcessControl::Create();
    if (!process_control) throw fail(process_control.takeError());
    impl_->session = std::make_unique<llvm::orc::ExecutionSession>(std::move(*process_control));
    llvm::orc::ExecutionSession &es = *impl_->session;
    es.setErrorReporter(report_session_error);
    // No ORC platform: this library runs static constructors and destructors
    // itself (static_init.cpp, __cxa_atexit above).
    impl_->layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(es);
    auto registrar = llvm::orc::EPCEHFrameRegistrar::Create(es);
    if (!registrar) throw fail(registrar.takeError());
    impl_->layer->addPlugin(std::make_unique<llvm::orc::EHFrameRegistrationPlugin>(es, std::move(*registrar)));
    impl_->process = &es.createBareJITDylib("<Process Symbols>");
    auto generator = llvm::orc::EPCDynamicLibrarySearchGenerator::GetForTargetProcess(es);
    if (!generator) throw fail(generator.takeError());
    impl_->process->addGenerator(std::move(*generator));
    impl_->main = &es.createBareJITDylib("main");
    impl_->main->setLinkOrder({{impl_->process, llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly}});
    // The runtime headers' host calls, once for every module (each links against main).
    define_host_symbols(rt_host::calls());
}

CpuJit::~CpuJit() = default;

CpuJit &CpuJit::instance() {
    // Never destroyed: modules may outlive static destruction order, and
    // LLVM's own statics go away at exit. A failed creation is retried.
    static CpuJit *const jit = new CpuJit();
    return *jit;
}

namespace {
/// A module load has begun: the prewarm link (prepare) would only compete with it now.
std::atomic<bool> module_load_begun{false};
} // namespace

std::shared_future<void> CpuJit::prepare() {
    static std::mutex mutex;
    static std::shared_future<void> started;
    std::lock_guard<std::mutex> lock(mutex);
    if (!started.valid())
        started = std::async(std::launch::async, [] {
                      try {
                          // First what a warm load's content key needs first.
                          toolchain_identity(CpuCompileOptions{});
                      } catch (...) {
                          // No clang++ to name: the content key says so when it asks.
                      }
                      try {
                          CpuJit &jit = instance();
                          // Then a link of a tiny object, unloaded at once: in
                          // a new process the first link spent most of its
                          // half millisecond faulting in JITLink's code.
                          // Skipped once a module load has begun: on a busy or
                          // single core the two links would only slow each other.
                          const std::string_view object = cpu::prewarm_object();
                          if (!module_load_begun.load(std::memory_order_relaxed))
                              jit.link_new(std::vector<char>(object.begin(), object.end()), "weft prewarm").reset();
                      } catch (...) {
                          // instance() throws a failed creation again to whoever
                          // needs the JIT; a failed prewarm link costs only its speed.
                      }
                  }).share();
    return started;
}

void CpuJit::define_host_symbols(const std::vector<std::pair<std::string, void *>> &symbols) {
    llvm::orc::SymbolMap map;
    for (const auto &[name, address] : symbols)
        map[impl_->intern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
    if (llvm::Error e = impl_->main->define(llvm::orc::absoluteSymbols(std::move(map))))
        throw BackendError("defining host symbols for JIT'd code: " + message_of(std::move(e)));
}

std::unique_ptr<JitModule> CpuJit::load(std::vector<char> object, std::string name) {
    module_load_begun.store(true, std::memory_order_relaxed);
    return link_new(std::move(object), std::move(name));
}

std::unique_ptr<JitModule> CpuJit::link_new(std::vector<char> object, std::string name) {
    llvm::orc::ExecutionSession &es = *impl_->session;
    const std::string dylib_name = name + "#" + std::to_string(++impl_->next_id); // names must be unique
    // Bare: no platform defines its own __dso_handle in it.
    llvm::orc::JITDylib &jd = es.createBareJITDylib(dylib_name);
    // From here on, a failure removes the dylib again (the JitModule does).
    std::unique_ptr<JitModule> module(new JitModule(this, &jd, std::move(name)));
    impl_->link_against_host(jd, module->name());

    // A bundle's objects (a module's compile units) link into this one
    // JITDylib, where the units' references to each other resolve.
    std::vector<std::vector<char>> objects = unbundle_objects(std::move(object));
    std::vector<int> parts;
    for (std::size_t i = 0; i < objects.size(); ++i) parts.push_back(objects.size() == 1 ? 0 : static_cast<int>(i) + 1);
    module->link(std::move(objects), parts);
    return module;
}

void JitModule::add_object(std::vector<char> object, int part) {
    std::vector<std::vector<char>> objects;
    objects.push_back(std::move(object));
    link(std::move(objects), {part});
}

void JitModule::link(std::vector<std::vector<char>> objects, const std::vector<int> &parts) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto &jd = *static_cast<llvm::orc::JITDylib *>(ensure_dylib());
    CpuJit::Impl &jit = *jit_->impl_;
    llvm::orc::ExecutionSession &es = *jit.session;
    CaptureSessionErrors session;
    auto fail = [&](const std::string &what, llvm::Error e) -> BackendError {
        std::string message = message_of(std::move(e));
        // The session's own report says what went wrong ("Symbols not found:
        // [ f ]"); the lookup's error only that materialization failed.
        if (!session.errors.empty()) {
            message.clear();
            for (const std::string &m : session.errors) message += (message.empty() ? "" : "; ") + m;
        }
        return BackendError("JIT module '" + name_ + "': " + what + ": " + message);
    };

    llvm::orc::SymbolLookupSet defined;
    std::vector<llvm::orc::SymbolStringPtr> inits; // one per object that has static constructors, in object order
    std::vector<llvm::orc::SymbolStringPtr> dso_handles; // one per object that has static destructors
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const std::string buffer_name = parts[i] == 0 ? name_ : name_ + " part " + std::to_string(parts[i]);
        std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
            llvm::StringRef(objects[i].data(), objects[i].size()), buffer_name);
        objects[i] = {};
        auto interface = llvm::orc::getObjectFileInterface(es, buffer->getMemBufferRef());
        if (!interface) throw fail("not a loadable object", interface.takeError());
        for (const auto &[symbol, flags] : interface->SymbolFlags) {
            if (symbol == interface->InitSymbol) continue;
            defined.add(symbol, llvm::orc::SymbolLookupFlags::WeaklyReferencedSymbol);
            if (cpu::is_static_init_name(*symbol)) inits.push_back(symbol);
            if (cpu::is_dso_handle_name(*symbol)) dso_handles.push_back(symbol);
        }
        if (llvm::Error e = jit.layer->add(jd, std::move(buffer))) throw fail("adding the object", std::move(e));
    }

    // A weak symbol (an inline function or template of the runtime headers)
    // may be defined by several parts: the link keeps one.
    defined.removeDuplicates();
    // Link now rather than at the first lookup, so unresolved symbols are
    // reported here, then run the static constructors.
    auto linked = es.lookup(llvm::orc::makeJITDylibSearchOrder(&jd, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
                            std::move(defined));
    if (!linked) throw fail("linking", linked.takeError());
    for (const auto &[symbol, address] : *linked) defined_.emplace((*symbol).str(), address.getAddress().toPtr<void *>());
    for (const llvm::orc::SymbolStringPtr &dso : dso_handles)
        if (const auto at = linked->find(dso); at != linked->end())
            dso_handles_.push_back(at->second.getAddress().toPtr<void *>());
    for (const llvm::orc::SymbolStringPtr &init : inits)
        if (const auto at = linked->find(init); at != linked->end()) at->second.getAddress().toPtr<void (*)()>()();
}

JitModule::JitModule(CpuJit *jit, void *dylib, std::string name) : jit_(jit), dylib_(dylib), name_(std::move(name)) {}

void *JitModule::ensure_dylib() {
    if (dylib_) return dylib_;
    // A shared object's added objects (strided copies) link in a JITDylib of
    // their own, whose undefined symbols resolve against the shared object
    // first (its globals, its dense copies), then as any module's.
    jit_ = &CpuJit::instance();
    CpuJit::Impl &jit = *jit_->impl_;
    llvm::orc::JITDylib &jd = jit.session->createBareJITDylib(name_ + "#" + std::to_string(++jit.next_id));
    try {
        jd.addGenerator(std::make_unique<llvm::orc::DynamicLibrarySearchGenerator>(
            llvm::sys::DynamicLibrary(native_), '\0'));
        jit.link_against_host(jd, name_);
    } catch (...) {
        llvm::consumeError(jit.session->removeJITDylib(jd));
        throw;
    }
    dylib_ = &jd;
    return dylib_;
}

JitModule::~JitModule() {
    // Static destructors, while the code is still there: the last part's first,
    // as a program's run in reverse order of construction; a shared object's
    // after the objects added to it, which may refer to it.
    for (auto dso = dso_handles_.rbegin(); dso != dso_handles_.rend(); ++dso) exit_handlers().run(*dso);
    if (exit_key_) exit_handlers().run(exit_key_);
    if (dylib_) {
        auto &jd = *static_cast<llvm::orc::JITDylib *>(dylib_);
        if (llvm::Error e = jit_->impl_->session->removeJITDylib(jd))
            llvm::errs() << "weft: unloading JIT module '" << name_ << "': " << message_of(std::move(e)) << "\n";
    }
    if (native_ && ::dlclose(native_) != 0)
        llvm::errs() << "weft: unloading module '" << name_ << "': " << ::dlerror() << "\n";
}

void *JitModule::lookup(std::string_view symbol) const {
    void *dylib = nullptr;
    CpuJit *jit = nullptr;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (const auto it = defined_.find(std::string(symbol)); it != defined_.end()) return it->second;
        dylib = dylib_; // an added object's JITDylib appears under the lock
        jit = jit_;
    }
    if (native_) {
        const std::string name(symbol);
        if (void *address = ::dlsym(native_, name.c_str())) {
            const std::lock_guard<std::mutex> lock(mutex_);
            defined_.emplace(name, address);
            return address;
        }
        if (!dylib) throw BackendError("module '" + name_ + "' has no symbol '" + name + "'");
    }
    auto &jd = *static_cast<llvm::orc::JITDylib *>(dylib);
    auto address = jit->impl_->session->lookup(
        llvm::orc::makeJITDylibSearchOrder(&jd, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
        jit->impl_->intern(llvm::StringRef(symbol.data(), symbol.size())));
    if (!address)
        throw BackendError("JIT module '" + name_ + "' has no symbol '" + std::string(symbol) +
                           "': " + message_of(address.takeError()));
    return address->getAddress().toPtr<void *>();
}

std::unique_ptr<JitModule> load_shared_object(std::string_view bytes, std::string name) {
    const std::string label = name;
    auto fail = [&](const std::string &why) { return BackendError("module '" + label + "' as a shared object: " + why); };
    if (!shared_objects_supported()) throw fail("not supported on this platform");
    // Mapped from a sealed copy of the bytes the caller checked: the file in
    // the cache could change between that check and dlopen.
    struct Fd {
        int fd;
        ~Fd() {
            if (fd >= 0) ::close(fd);
        }
    } copy{::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING)};
    if (copy.fd < 0) throw fail(std::string("memfd_create: ") + std::strerror(errno));
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(copy.fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw fail(std::string("writing its copy: ") + std::strerror(errno));
        done += static_cast<std::size_t>(n);
    }
    if (::fcntl(copy.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
        throw fail(std::string("sealing its copy: ") + std::strerror(errno));
    // The loader finds an already loaded library by name before anything
    // else, and /proc/self/fd/N names whatever N is now: a number whose name
    // a library still holds (mapped under an earlier, closed descriptor) is
    // moved to another. The copy is closed once mapped: the mapping keeps it.
    const auto path_of = [](int fd) { return "/proc/self/fd/" + std::to_string(fd); };
    for (int attempt = 0;; ++attempt) {
        void *loaded = ::dlopen(path_of(copy.fd).c_str(), RTLD_LAZY | RTLD_NOLOAD);
        if (!loaded) break;
        ::dlclose(loaded);
        if (attempt == 64) throw fail("no descriptor name free for its copy");
        Fd moved{::fcntl(copy.fd, F_DUPFD_CLOEXEC, copy.fd + 1)};
        if (moved.fd < 0) throw fail(std::string("moving its copy to a new descriptor: ") + std::strerror(errno));
        std::swap(copy.fd, moved.fd);
    }
    std::unique_ptr<JitModule> module(new JitModule(nullptr, nullptr, std::move(name)));
    module->native_ = ::dlopen(path_of(copy.fd).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!module->native_) throw fail(::dlerror());
    using TableOf = void **(const char *const **);
    auto *table_of = reinterpret_cast<TableOf *>(::dlsym(module->native_, "weft_so_host_table_of"));
    if (!table_of) throw fail("it has no host call table (not made by link_shared_object)");
    const char *const *names = nullptr;
    void **table = table_of(&names);
    const std::vector<std::pair<std::string, void *>> &calls = rt_host::calls();
    std::size_t filled = 0;
    for (std::size_t i = 0; names[i]; ++i) {
        const std::string_view wanted = names[i];
        void *address = nullptr;
        if (wanted == "__cxa_atexit") address = reinterpret_cast<void *>(&jit_cxa_atexit);
        for (const auto &[call, where] : calls)
            if (call == wanted) address = where;
        if (!address) throw fail("its host call '" + std::string(wanted) + "' is not one this host has");
        table[i] = address;
        ++filled;
    }
    // Every host call has a stub (shared_stubs.c lists them again): one
    // missing would leave the module's calls to it to the process, where
    // they are not found, and every such load would link the object instead.
    if (filled != calls.size() + 1) throw fail("its stubs are not this host's host calls (shared_stubs.c)");
    module->exit_key_ = table;
    // Static constructors (static_init.cpp): each object's, named for its
    // part, found in the library's dynamic symbols (in name order).
    std::vector<std::string> inits;
    {
        auto object = llvm::object::ObjectFile::createObjectFile(
            llvm::MemoryBufferRef(llvm::StringRef(bytes.data(), bytes.size()), label));
        if (!object) throw fail("reading its symbols: " + message_of(object.takeError()));
        const auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
        if (!elf) throw fail("not an ELF shared object");
        for (const llvm::object::ELFSymbolRef &symbol : elf->getDynamicSymbolIterators()) {
            llvm::Expected<llvm::StringRef> symbol_name = symbol.getName();
            llvm::Expected<std::uint32_t> flags = symbol.getFlags();
            if (!symbol_name || !flags) {
                if (!symbol_name) llvm::consumeError(symbol_name.takeError());
                if (!flags) llvm::consumeError(flags.takeError());
                continue;
            }
            if (cpu::is_static_init_name(*symbol_name) && !(*flags & llvm::object::SymbolRef::SF_Undefined))
                inits.push_back(symbol_name->str());
        }
    }
    std::sort(inits.begin(), inits.end());
    for (const std::string &init_name : inits)
        if (auto *init = reinterpret_cast<void (*)()>(::dlsym(module->native_, init_name.c_str()))) init();
    return module;
}

} // namespace weft::backend
