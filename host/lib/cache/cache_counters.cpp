#include "weft/cache/cache_counters.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <filesystem>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace weft {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t max_stats_bytes = 64 * 1024;

/// Every counter by its name in stats.json, for reading and writing alike.
template <class C, class F> void each(C &c, F &&f) {
    f("local_hits", c.local_hits);
    f("warm_hits", c.warm_hits);
    f("local_misses", c.local_misses);
    f("compiles", c.compiles);
    f("unit_hits", c.unit_hits);
    f("unit_compiles", c.unit_compiles);
    f("remote_hits", c.remote.hits);
    f("remote_misses", c.remote.misses);
    f("remote_errors", c.remote.errors);
    f("remote_rejected", c.remote.rejected);
    f("remote_stores", c.remote.stores);
    f("remote_skipped", c.remote.skipped);
    f("remote_too_large", c.remote.too_large);
}

struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd >= 0) ::close(fd);
    }
};

std::string read_all(int fd) {
    std::string out;
    char buffer[4096];
    while (out.size() <= max_stats_bytes) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
}

CacheCounters parse(const std::string &text) {
    CacheCounters c;
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return c;
    each(c, [&](const char *name, std::uint64_t &value) {
        if (const auto it = j.find(name); it != j.end() && it->is_number_unsigned()) value = it->get<std::uint64_t>();
    });
    return c;
}

} // namespace

CacheCounters &CacheCounters::operator+=(const CacheCounters &other) {
    CacheCounters copy = other;
    std::uint64_t *theirs[13];
    std::size_t i = 0;
    each(copy, [&](const char *, std::uint64_t &v) { theirs[i++] = &v; });
    i = 0;
    each(*this, [&](const char *, std::uint64_t &v) { v += *theirs[i++]; });
    return *this;
}

bool CacheCounters::empty() const {
    bool all_zero = true;
    CacheCounters copy = *this;
    each(copy, [&](const char *, std::uint64_t &v) { all_zero = all_zero && v == 0; });
    return all_zero;
}

bool add_cache_counters(const ArtifactCache &cache, const CacheCounters &counters) {
    std::error_code ec;
    fs::create_directories(cache.root(), ec);
    const fs::path path = cache.root() / "stats.json";
    const FdCloser f{::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)};
    if (f.fd < 0 || ::flock(f.fd, LOCK_EX) != 0) return false;
    struct stat st {};
    if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    CacheCounters sum = parse(read_all(f.fd));
    sum += counters;
    json j = json::object();
    each(sum, [&](const char *name, std::uint64_t &value) { j[name] = value; });
    const std::string text = j.dump(2) + "\n";
    if (::ftruncate(f.fd, 0) != 0) return false;
    return ::pwrite(f.fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
}

CacheCounters read_cache_counters(const ArtifactCache &cache) {
    const FdCloser f{::open((cache.root() / "stats.json").c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)};
    if (f.fd < 0) return {};
    ::flock(f.fd, LOCK_SH);
    return parse(read_all(f.fd));
}

} // namespace weft
