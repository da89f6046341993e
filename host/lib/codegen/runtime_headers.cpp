#include "weft/codegen/runtime_headers.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/support/sha256.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace weft::codegen {

namespace fs = std::filesystem;

const std::string &runtime_header_digest() {
    static const std::string digest = [] {
        Sha256 h;
        h.field("weft.runtime-headers.v1");
        for (const EmbeddedHeader &e : runtime_headers()) h.field(e.path).field(e.text);
        return h.hex();
    }();
    return digest;
}

namespace {

/// "" when `path` is a regular file (not a link) holding exactly `text`; otherwise why not.
std::string file_problem(const fs::path &path, std::string_view text) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        return err == ENOENT ? "is missing" : err == ELOOP ? "is a symbolic link" : std::string("cannot be read: ") + std::strerror(err);
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) return std::string("cannot be examined: ") + std::strerror(errno);
    if (!S_ISREG(st.st_mode)) return "is not a regular file";
    if (static_cast<std::uint64_t>(st.st_size) != text.size())
        return "has " + std::to_string(st.st_size) + " bytes, not the " + std::to_string(text.size()) + " weft wrote";
    std::string content(text.size(), '\0');
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::read(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return "cannot be read";
        done += static_cast<std::size_t>(n);
    }
    return content == text ? std::string() : "differs from the header compiled into weft";
}

/// Writes every header into a fresh folder beside `dir` and returns it.
fs::path stage_headers(const fs::path &root) {
    // Unique per process and call: threads of one process race here too.
    static std::atomic<unsigned> counter{0};
    const fs::path staging = root / (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
                                     runtime_header_digest().substr(0, 8));
    std::error_code ec;
    fs::remove_all(staging, ec);
    for (const EmbeddedHeader &e : runtime_headers()) {
        const fs::path file = staging / e.path;
        try {
            fs::create_directories(file.parent_path(), ec);
            if (ec)
                throw UserError(file.parent_path().string() + ": cannot create the directory: " +
                                errno_text(ec.value()));
            write_new_file(file, e.text);
        } catch (const UserError &error) {
            fs::remove_all(staging, ec);
            throw UserError(std::string("cannot write the runtime headers: ") + error.what());
        }
    }
    return staging;
}

} // namespace

std::string runtime_headers_problem(const fs::path &dir) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(dir, ec);
    if (!fs::exists(st)) return dir.string() + " is missing";
    if (!fs::is_directory(st)) return dir.string() + " is not a directory";
    std::set<fs::path> expected;
    for (const EmbeddedHeader &e : runtime_headers()) {
        const fs::path file = dir / e.path;
        expected.insert(file.lexically_normal());
        if (std::string why = file_problem(file, e.text); !why.empty()) return file.string() + " " + why;
    }
    // A file weft did not write there would be found first by an #include.
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        if (it->symlink_status(type_ec).type() == fs::file_type::directory) continue;
        if (!expected.count(it->path().lexically_normal())) return it->path().string() + " is not a weft runtime header";
    }
    if (ec) return dir.string() + " cannot be listed: " + ec.message();
    return {};
}

fs::path rewrite_runtime_headers(const fs::path &root) {
    const fs::path dir = root / runtime_header_digest().substr(0, 16);
    const fs::path staging = stage_headers(root);
    std::error_code ec;
    // Moved aside with one rename, so that a reader sees the old copy or none, never a half-removed one.
    const fs::path aside = staging.string() + ".old";
    fs::rename(dir, aside, ec);
    fs::remove_all(aside, ec);
    fs::rename(staging, dir, ec);
    if (ec) {
        const int err = ec.value();
        fs::remove_all(staging, ec);
        if (!runtime_headers_problem(dir).empty())
            throw UserError("cannot publish the runtime headers in " + dir.string() + ": " + errno_text(err));
    }
    return dir;
}

fs::path materialize_runtime_headers(const fs::path &root) {
    const fs::path dir = root / runtime_header_digest().substr(0, 16);
    // Checked before every compile (88 KB compared, next to a compile of a
    // tenth of a second or more): an edited scalar.h there once made 1 + 30 == -29,
    // and that object was cached under the right hash.
    static std::mutex mutex;
    const std::lock_guard<std::mutex> lock(mutex);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(dir, ec))) {
        // Written in a private folder, then renamed into place: readers see all or nothing.
        const fs::path staging = stage_headers(root);
        fs::rename(staging, dir, ec);
        if (ec) fs::remove_all(staging, ec); // another process won the race: its copy is checked below
    }
    if (!runtime_headers_problem(dir).empty()) rewrite_runtime_headers(root);
    return dir;
}

} // namespace weft::codegen
