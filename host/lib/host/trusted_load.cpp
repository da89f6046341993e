#include "trusted_load.hpp"

#include "loader_internal.hpp"

#include "weft/support/error.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace weft {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t max_library_bytes = std::uint64_t(1) << 30;
constexpr std::uint64_t max_manifest_bytes = 1 << 20;

std::string errno_text() { return std::strerror(errno); }

std::string fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

void write_all(int fd, const std::string &bytes, const std::string &what) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw UserError(what + ": cannot copy the checked library into memory: " + errno_text());
        done += static_cast<std::size_t>(n);
    }
}

} // namespace

UniqueFd &UniqueFd::operator=(UniqueFd &&o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.release();
    }
    return *this;
}

UniqueFd::~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
}

std::string read_file_once(const fs::path &path, std::uint64_t limit, std::string_view what) {
    const std::string who = path.string() + ": cannot read " + std::string(what);
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (fd.get() < 0) throw UserError(who + ": " + errno_text());
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw UserError(who + ": " + errno_text());
    if (!S_ISREG(st.st_mode)) throw UserError(who + ": it is not a regular file");
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > limit)
        throw UserError(who + ": it is " + std::to_string(size) + " bytes, more than the limit of " + std::to_string(limit));
    std::string bytes(static_cast<std::size_t>(size), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw UserError(who + ": " + errno_text());
        if (n == 0) break;
        done += static_cast<std::size_t>(n);
    }
    if (done != bytes.size()) throw UserError(who + ": it changed size while being read");
    return bytes;
}

std::string VerifiedPlugin::load_path() const { return fd_path(image.get()); }

VerifiedPlugin verify_plugin(const PluginManifest &m, const trust::PluginTrust &trust,
                             const std::function<void(std::string_view)> &hook) {
    const std::string who = "plugin '" + m.name + "': ";
    auto fail = [&](const std::string &message) { return PluginError(m.name, who + message); };

    trust::PluginBytes bytes;
    bytes.name = m.name;
    bytes.manifest_path = m.path;
    try {
        bytes.manifest = read_file_once(m.path, max_manifest_bytes, "plugin manifest");
    } catch (const UserError &e) {
        throw fail(e.what());
    }
    // The manifest that is checked is the one whose library is loaded.
    VerifiedPlugin v;
    try {
        v.manifest = parse_manifest(bytes.manifest, m.path);
    } catch (const UserError &e) {
        throw fail(std::string("manifest changed since it was read: ") + e.what());
    }
    if (v.manifest.name != m.name || v.manifest.library_path != m.library_path)
        throw fail("manifest " + m.path.string() + " changed since it was read (it now names plugin '" +
                   v.manifest.name + "', library " + v.manifest.library_path.string() + ")");
    bytes.library_path = v.manifest.library_path;
    try {
        bytes.library = read_file_once(bytes.library_path, max_library_bytes, "plugin library");
    } catch (const UserError &e) {
        throw fail(e.what());
    }

    try {
        bytes.files = trust::scan_other_files(bytes);
    } catch (const UserError &e) {
        throw fail(trust::refused_by(trust.mode()) + e.what());
    }
    const trust::TrustVerdict verdict = trust.check(bytes);
    if (!verdict.accepted()) throw fail(verdict.message(trust.mode()));
    // The checked bytes say which other libraries the loader would map with
    // them: those must not be files nobody checked.
    try {
        const LibraryDependencies deps = read_library_dependencies(bytes.library);
        if (const std::string why = untrusted_dependency(deps); !why.empty())
            throw fail(trust::TrustVerdict{"dependency", bytes.library_path, why, {}}.message(trust.mode()));
        v.system_dependencies = system_dependency_paths(deps);
    } catch (const PluginError &) {
        throw;
    } catch (const UserError &e) {
        throw fail("library " + bytes.library_path.string() + ": " + e.what());
    }
    v.signed_by = verdict.key;
    v.files = std::move(bytes.files);
    if (hook) hook("plugin-verified");

    // The checked bytes, sealed: nothing can change what the loader maps.
    v.image = UniqueFd(::memfd_create(("weft-plugin-" + m.name).c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (v.image.get() < 0) throw fail("cannot create an in-memory copy of the checked library: " + errno_text());
    write_all(v.image.get(), bytes.library, who + bytes.library_path.string());
    if (::fcntl(v.image.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
        throw fail("cannot seal the in-memory copy of the checked library: " + errno_text());
    // glibc finds an already loaded library by name before anything else: a
    // descriptor number whose /proc name a library still loaded under an
    // earlier (closed) descriptor holds is moved to another number.
    for (int attempt = 0; attempt < 64; ++attempt) {
        void *loaded = ::dlopen(v.load_path().c_str(), RTLD_LAZY | RTLD_NOLOAD);
        if (!loaded) return v;
        ::dlclose(loaded);
        UniqueFd moved(::fcntl(v.image.get(), F_DUPFD_CLOEXEC, v.image.get() + 1));
        if (moved.get() < 0) throw fail("cannot move the in-memory library copy to a new descriptor: " + errno_text());
        v.image = std::move(moved);
    }
    throw fail("no descriptor name free for the in-memory library copy");
}

} // namespace weft
