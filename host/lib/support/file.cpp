#include "weft/support/file.hpp"

#include "weft/support/error.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace weft {

namespace {

std::string kind_of_mode(mode_t mode) {
    if (S_ISREG(mode)) return {};
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string kind_of_errno(int err, const std::filesystem::path &path) {
    if (err == ELOOP) return "a symbolic link loop";
    if (err == ENOENT) {
        struct stat st{};
        if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return "a dangling symbolic link";
        return "nothing (no such file or directory)";
    }
    if (err == ENOTDIR) return "nothing (a component of the path is not a directory)";
    return std::string("unreadable (") + std::strerror(err) + ")";
}

/// Closes the descriptor on every path out of read_input_file.
struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

} // namespace

std::string describe_file_kind(const std::filesystem::path &path) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) return kind_of_errno(errno, path);
    return kind_of_mode(st.st_mode);
}

namespace {

/// read_input_file, or nullopt when `absent_ok` and open() finds nothing there
/// (ENOENT, ENOTDIR).
std::optional<std::string> read_input(const std::filesystem::path &path, std::uintmax_t max_bytes, std::string_view what,
                                      bool absent_ok) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
    // before fstat could say it is not a file.
    const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    auto prefix = [&] { return path.string() + ": cannot read " + std::string(what) + ": "; };
    if (f.fd < 0) {
        const int err = errno;
        if (absent_ok && (err == ENOENT || err == ENOTDIR)) return std::nullopt;
        const std::string kind = kind_of_errno(err, path);
        if (kind.rfind("a ", 0) == 0) throw UserError(prefix() + "it is " + kind);
        throw UserError(prefix() + std::strerror(err));
    }
    struct stat st{};
    if (::fstat(f.fd, &st) != 0) throw UserError(prefix() + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw UserError(prefix() + "it is " + kind_of_mode(st.st_mode) + ", not a regular file");
    const auto too_large = [&] {
        return UserError(prefix() + "it is larger than the limit of " + std::to_string(max_bytes) + " bytes");
    };
    if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) throw too_large();
    const auto stat_size = static_cast<std::size_t>(st.st_size);
    const std::uintmax_t cap = max_bytes == UINTMAX_MAX ? max_bytes : max_bytes + 1; // no wrap to 0
    // A regular file can still grow while it is read: stop one byte past the limit.
    // The first read asks for one byte more than fstat reported, so a file
    // still of that size is read by one read() that comes back short, not by
    // a second one that returns 0: a system call per manifest, and every
    // plugin load reads one (bench/plugin_load).
    std::string text;
    text.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(cap, std::uintmax_t{stat_size} + 1)));
    std::size_t have = 0;
    for (;;) {
        if (have == text.size()) {
            if (text.size() > max_bytes) throw too_large();
            text.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(cap, text.size() + 4096)));
        }
        const std::size_t asked = text.size() - have;
        const ssize_t n = ::read(f.fd, text.data() + have, asked);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw UserError(prefix() + std::strerror(errno));
        }
        if (n == 0) break;
        have += static_cast<std::size_t>(n);
        // Short at exactly the size fstat reported: the end of the file as it
        // was when fstat looked, a consistent snapshot.
        if (have == stat_size && static_cast<std::size_t>(n) < asked) break;
    }
    text.resize(have);
    if (text.size() > max_bytes) throw too_large();
    return text;
}

} // namespace

std::string read_input_file(const std::filesystem::path &path, std::uintmax_t max_bytes, std::string_view what) {
    return *read_input(path, max_bytes, what, false);
}

std::optional<std::string> read_input_file_if_present(const std::filesystem::path &path, std::uintmax_t max_bytes,
                                                      std::string_view what) {
    return read_input(path, max_bytes, what, true);
}

std::string errno_text(int err) { return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")"; }

void write_new_file(const std::filesystem::path &path, std::string_view content) {
    // POSIX calls rather than a stream: a full disk (ENOSPC) or an I/O error
    // can first show at close, and the message must carry the errno.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) throw UserError(path.string() + ": cannot write: " + errno_text(errno));
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;
            ::close(fd);
            ::unlink(path.c_str());
            throw UserError(path.string() + ": cannot write: " + errno_text(err));
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(path.c_str());
        throw UserError(path.string() + ": cannot write: " + errno_text(err));
    }
}

void write_file_atomically(const std::filesystem::path &path, std::string_view content) {
    namespace fs = std::filesystem;
    static std::atomic<unsigned> counter{0};
    std::error_code ec;
    if (path.has_parent_path()) {
        fs::create_directories(path.parent_path(), ec);
        if (ec)
            throw UserError(path.parent_path().string() + ": cannot create the directory: " + errno_text(ec.value()));
    }
    const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    write_new_file(tmp, content);
    fs::rename(tmp, path, ec);
    if (ec) {
        const int err = ec.value();
        fs::remove(tmp, ec);
        throw UserError(path.string() + ": cannot write: " + errno_text(err));
    }
}

} // namespace weft
