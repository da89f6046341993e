#include "weft/cache/cache.hpp"
#include "weft/support/environment.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/support/sha256.hpp"
#include "weft/support/version.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <tuple>
#include <variant>

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace weft {

namespace fs = std::filesystem;
using nlohmann::json;

struct ArtifactCache::State {
    std::once_flag staging_swept;
    std::function<void(std::string_view)> fault_hook;
};

namespace {

constexpr const char *temp_prefix = ".tmp.";
/// module.src is generated C++; far larger than this is not something weft wrote.
constexpr std::uint64_t source_limit = std::uint64_t(1) << 30;

bool allowed_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
}

/// Module names become folder names: keep them readable, never a path.
std::string safe_name(const std::string &module) {
    std::string out;
    for (char c : module.substr(0, 64)) out += allowed_name_char(c) ? c : '_';
    if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
    return out;
}

bool is_full_hash(const std::string &hash) {
    return hash.size() == 64 && hash.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool is_temporary_name(const std::string &name) { return name.rfind(temp_prefix, 0) == 0; }

/// "<safe module>-<64 hex digits>" -> the two parts; anything else is not an entry.
std::optional<std::pair<std::string, std::string>> parse_entry_name(const std::string &name) {
    if (name.size() < 66 || name[name.size() - 65] != '-') return std::nullopt;
    std::string prefix = name.substr(0, name.size() - 65);
    std::string hash = name.substr(name.size() - 64);
    if (!is_full_hash(hash) || prefix.size() > 65 || prefix[0] == '.' ||
        !std::all_of(prefix.begin(), prefix.end(), allowed_name_char))
        return std::nullopt;
    return std::make_pair(std::move(prefix), std::move(hash));
}

/// "<prefix><pid>.<counter>.<random>": unique per writer, and names its writer.
std::string temp_name() {
    static std::atomic<unsigned> counter{0};
    static const unsigned salt = std::random_device{}();
    return std::string(temp_prefix) + std::to_string(getpid()) + "." + std::to_string(counter++) + "." +
           std::to_string(salt);
}

/// The writer's pid from a temp name, or 0.
pid_t temp_owner(const std::string &name) {
    if (!is_temporary_name(name)) return 0;
    return static_cast<pid_t>(std::strtol(name.c_str() + std::strlen(temp_prefix), nullptr, 10));
}

std::chrono::seconds age_of(const fs::path &p) {
    std::error_code ec;
    const auto written = fs::symlink_status(p, ec).type() == fs::file_type::symlink ? fs::file_time_type::min()
                                                                                   : fs::last_write_time(p, ec);
    if (ec || written == fs::file_time_type::min()) return std::chrono::seconds::max();
    return std::chrono::duration_cast<std::chrono::seconds>(fs::file_time_type::clock::now() - written);
}

bool writer_gone(const fs::path &p) {
    const pid_t pid = temp_owner(p.filename().string());
    if (pid > 0 && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH) return true;
    // A live pid may be a reused one: a day-old temporary is abandoned either way.
    return age_of(p) > std::chrono::hours(24);
}

std::string kind_of(fs::file_type type) {
    switch (type) {
    case fs::file_type::regular: return "a regular file";
    case fs::file_type::directory: return "a directory";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    case fs::file_type::not_found: return "missing";
    default: return "not a regular file";
    }
}

std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return kind_of(fs::file_type::directory);
    if (S_ISFIFO(mode)) return kind_of(fs::file_type::fifo);
    if (S_ISSOCK(mode)) return kind_of(fs::file_type::socket);
    if (S_ISBLK(mode)) return kind_of(fs::file_type::block);
    if (S_ISCHR(mode)) return kind_of(fs::file_type::character);
    return kind_of(fs::file_type::unknown);
}

fs::file_type type_of(const fs::path &p) {
    std::error_code ec;
    return fs::symlink_status(p, ec).type();
}

struct FileRead {
    std::optional<std::string> content;
    std::string error; // why there is no content: "is missing", "is a directory", ...
    bool missing = false;
    // The file may be fine but could not be read now (EMFILE, EACCES, EIO, ...):
    // never a reason to remove or replace what is there.
    bool unreadable = false;
    std::uint64_t size = 0; // of a regular file, also one over the limit
};

/// Reads a regular file of at most `limit` bytes. A final symbolic link is not
/// followed and a FIFO does not block: a directory named entry.json once made
/// the cache unusable (issue 10).
FileRead read_regular(const fs::path &path, std::uint64_t limit) {
    FileRead r;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        r.missing = err == ENOENT;
        r.unreadable = err != ENOENT && err != ELOOP;
        r.error = err == ENOENT  ? "is missing"
                  : err == ELOOP ? "is a symbolic link (not followed)"
                                 : std::string("cannot be opened: ") + std::strerror(err);
        return r;
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        r.unreadable = true;
        r.error = std::string("cannot be examined: ") + std::strerror(errno);
        return r;
    }
    if (!S_ISREG(st.st_mode)) {
        r.error = "is " + kind_of(st.st_mode) + ", not a regular file";
        return r;
    }
    r.size = static_cast<std::uint64_t>(st.st_size);
    if (r.size > limit) {
        r.error = "is " + std::to_string(r.size) + " bytes, more than the limit of " + std::to_string(limit);
        return r;
    }
    std::string content(static_cast<std::size_t>(r.size), '\0');
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::read(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            r.unreadable = n < 0;
            r.error = n == 0 ? "shrank while being read" : std::string("cannot be read: ") + std::strerror(errno);
            return r;
        }
        done += static_cast<std::size_t>(n);
    }
    r.content = std::move(content);
    return r;
}

struct JsonRead {
    std::optional<json> value;
    std::string error;
    bool missing = false;
    bool unreadable = false; // see FileRead
};

JsonRead read_metadata(const fs::path &path) {
    FileRead f = read_regular(path, ArtifactCache::metadata_limit);
    if (!f.content) return {std::nullopt, f.error, f.missing, f.unreadable};
    if (f.content->empty()) return {std::nullopt, "is empty", false, false};
    json j = json::parse(*f.content, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return {std::nullopt, "is not valid JSON (truncated?)", false, false};
    if (!j.is_object()) return {std::nullopt, "is not a JSON object", false, false};
    return {std::move(j), {}, false, false};
}

std::string string_field(const json &j, const char *key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void write_file(const fs::path &path, const std::string &content) { write_new_file(path, content); }

/// create_directories with the failure as a weft error naming the path and errno.
void make_directories(const fs::path &dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw UserError(dir.string() + ": cannot create the cache directory: " + errno_text(ec.value()));
}

std::string artifact_file_name(const std::string &target, const std::string &digest) {
    return target + "." + digest.substr(0, 16) + ".bin";
}

/// Writes `content` beside `final_path` and renames it into place.
void publish_file(const fs::path &final_path, const std::string &content) {
    const fs::path tmp = final_path.parent_path() / (temp_name() + "." + final_path.filename().string());
    std::error_code ec;
    try {
        write_file(tmp, content);
    } catch (...) {
        fs::remove(tmp, ec);
        throw;
    }
    fs::rename(tmp, final_path, ec);
    if (ec) {
        const int err = ec.value();
        fs::remove(tmp, ec);
        throw UserError(final_path.string() + ": cannot publish cache file: " + errno_text(err));
    }
}

/// Removes `name` in the open directory `dir`: a file, a link (never its
/// target) or a tree, every level reached through a descriptor opened with
/// O_NOFOLLOW, so a folder swapped for a link while this runs is not followed
/// (a path-based remove_all would follow it into the link's target). 0 or errno.
int remove_at(int dir, const char *name) {
    if (::unlinkat(dir, name, 0) == 0 || errno == ENOENT) return 0;
    if (errno != EISDIR && errno != EPERM) return errno;
    const int fd = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : errno;
    DIR *d = ::fdopendir(fd);
    if (!d) {
        const int err = errno;
        ::close(fd);
        return err;
    }
    std::vector<std::string> names;
    while (const dirent *e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    int failure = 0;
    for (const std::string &n : names)
        if (const int err = remove_at(::dirfd(d), n.c_str()); err && !failure) failure = err;
    ::closedir(d);
    if (::unlinkat(dir, name, AT_REMOVEDIR) != 0 && errno != ENOENT && !failure) failure = errno;
    return failure;
}

/// Removes a file, link (not its target) or tree; "" or why it is still there.
/// Its parent folder is opened without following a link: a cache folder
/// (entries/, tmp/) swapped for a link after it was listed is not deleted through.
std::string remove_tree(const fs::path &p) {
    const int parent = ::open(p.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (parent < 0) {
        const int err = errno;
        if (err == ENOENT) return {};
        if (err == ELOOP || err == ENOTDIR) return p.parent_path().string() + " is not a folder (a link?): not followed";
        return errno_text(err);
    }
    const int err = remove_at(parent, p.filename().c_str());
    ::close(parent);
    if (err == 0 && type_of(p) == fs::file_type::not_found) return {};
    return err ? errno_text(err) : "still present";
}

/// What is in `dir`, when it is a directory itself and not a link to one: a
/// cache never lists, and so never deletes, through a link (a `v1/entries`
/// pointing elsewhere had the target's contents removed by `cache clear`).
std::vector<fs::path> listing(const fs::path &dir) {
    std::vector<fs::path> out;
    if (type_of(dir) != fs::file_type::directory) return out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
    return out;
}

/// Removes the temporaries in `dir` whose writer is gone.
std::size_t sweep_stale(const fs::path &dir) {
    std::size_t removed = 0;
    std::vector<fs::path> stale;
    for (const fs::path &p : listing(dir))
        if (is_temporary_name(p.filename().string()) && writer_gone(p)) stale.push_back(p);
    for (const fs::path &p : stale)
        if (remove_tree(p).empty()) ++removed;
    return removed;
}

// Unreadable: entry.json could not be read now (see FileRead::unreadable); a
// miss that nothing removes, moves or replaces.
enum class EntryKind { Absent, Valid, Damaged, Unreadable };

struct EntryState {
    EntryKind kind = EntryKind::Absent;
    std::string problem;
    json entry;
};

/// Whether `dir` is a well-formed entry for the module folder name `prefix` and `hash`.
EntryState check_entry(const fs::path &dir, const std::string &prefix, const std::string &hash) {
    const fs::file_type type = type_of(dir);
    if (type == fs::file_type::not_found) return {EntryKind::Absent, {}, {}};
    if (type == fs::file_type::symlink) return {EntryKind::Damaged, "is a symbolic link (not followed)", {}};
    if (type != fs::file_type::directory) return {EntryKind::Damaged, "is " + kind_of(type) + ", not an entry directory", {}};
    JsonRead entry = read_metadata(dir / "entry.json");
    if (!entry.value)
        return {entry.unreadable ? EntryKind::Unreadable : EntryKind::Damaged, "entry.json " + entry.error, {}};
    if (string_field(*entry.value, "hash") != hash)
        return {EntryKind::Damaged, "entry.json does not carry the full hash " + hash, {}};
    const std::string module = string_field(*entry.value, "module");
    if (module.empty() || safe_name(module) != prefix)
        return {EntryKind::Damaged, "entry.json names module '" + module + "', which is not stored under '" + prefix + "'", {}};
    if (const auto f = entry.value->find("format"); f != entry.value->end() && *f != ArtifactCache::format_version)
        return {EntryKind::Damaged, "entry.json has format " + f->dump() + ", expected " +
                                        std::to_string(ArtifactCache::format_version), {}};
    if (const fs::file_type a = type_of(dir / "artifacts"); a != fs::file_type::not_found && a != fs::file_type::directory)
        return {EntryKind::Damaged, "artifacts is " + kind_of(a) + ", not a directory", {}};
    return {EntryKind::Valid, {}, std::move(*entry.value)};
}

struct ArtifactMeta {
    std::string file;
    std::string sha256;
    std::uint64_t size = 0;
};

/// The metadata's record, or why it is not a valid record for `target` in the
/// entry of module hash `hash`. The metadata names the module hash it was
/// stored under: an artifact copied with its metadata from another entry made
/// one module run another's code, and verify found nothing.
std::variant<ArtifactMeta, std::string> parse_meta(const json &meta, const std::string &target, const std::string &hash) {
    const auto size = meta.find("size");
    ArtifactMeta m{string_field(meta, "file"), string_field(meta, "sha256"), 0};
    if (string_field(meta, "target").empty() || m.file.empty() || !is_full_hash(m.sha256) || size == meta.end() ||
        !size->is_number_unsigned() || !is_full_hash(string_field(meta, "hash")))
        return std::string("does not record target, module hash, file, size and sha256");
    if (string_field(meta, "hash") != hash)
        return "records module hash " + string_field(meta, "hash") + ", not this entry's " + hash +
               " (an artifact from another entry)";
    if (string_field(meta, "target") != target)
        return "records target '" + string_field(meta, "target") + "', not '" + target + "'";
    if (m.file != artifact_file_name(target, m.sha256))
        return "names file '" + m.file + "', expected '" + artifact_file_name(target, m.sha256) + "'";
    m.size = size->get<std::uint64_t>();
    return m;
}

struct ArtifactRead {
    std::optional<std::string> content;
    std::string problem; // when there is no content
};

/// The artifact's bytes when it is a regular file of the recorded size and
/// digest; otherwise why not.
ArtifactRead read_artifact(const fs::path &path, const ArtifactMeta &m) {
    FileRead f = read_regular(path, m.size);
    const auto wrong_size = [&](std::uint64_t size) {
        return ArtifactRead{std::nullopt, "size " + std::to_string(size) + ", expected " + std::to_string(m.size)};
    };
    if (!f.content) {
        if (f.missing) return {std::nullopt, "artifact file missing"};
        if (f.size > m.size) return wrong_size(f.size);
        return {std::nullopt, "artifact file " + f.error};
    }
    if (f.content->size() != m.size) return wrong_size(f.content->size());
    if (const std::string actual = sha256_hex(*f.content); actual != m.sha256)
        return {std::nullopt, "sha256 " + actual + ", expected " + m.sha256};
    return {std::move(f.content), {}};
}

/// The cheap check list() makes: a regular file of the recorded size.
std::optional<std::string> stat_artifact(const fs::path &path, const ArtifactMeta &m) {
    std::error_code ec;
    const fs::file_type type = type_of(path);
    if (type == fs::file_type::not_found) return "artifact file missing";
    if (type != fs::file_type::regular) return "artifact file is " + kind_of(type) + ", not a regular file";
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec || size != m.size) return "size " + std::to_string(size) + ", expected " + std::to_string(m.size);
    return std::nullopt;
}

std::uint64_t bytes_under(const fs::path &dir) {
    std::uint64_t bytes = 0;
    std::error_code walk;
    for (fs::recursive_directory_iterator f(dir, walk), end; !walk && f != end; f.increment(walk)) {
        std::error_code ec;
        if (f->symlink_status(ec).type() == fs::file_type::regular) bytes += f->file_size(ec);
    }
    return bytes;
}

} // namespace

ArtifactCache::ArtifactCache(fs::path root, const Logger *logger)
    : root_((root.empty() ? default_root() : std::move(root)) / ("v" + std::to_string(format_version))),
      logger_(logger), state_(std::make_shared<State>()) {}

fs::path ArtifactCache::default_root() {
    // Setuid/setgid: none of these is read (environment_override), so the
    // cache is the effective user's own.
    if (const char *dir = environment_override("WEFT_CACHE_DIR"); dir && *dir) return dir;
    if (const char *xdg = environment_override("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "weft";
    if (const char *home = environment_override("HOME"); home && *home) return fs::path(home) / ".cache" / "weft";
    if (secure_execution())
        if (const passwd *pw = getpwuid(geteuid()); pw && pw->pw_dir && *pw->pw_dir)
            return fs::path(pw->pw_dir) / ".cache" / "weft";
    throw UserError("no cache directory: set WEFT_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

fs::path ArtifactCache::entry_directory(const std::string &module, const std::string &hash) const {
    if (!is_full_hash(hash)) throw UserError("cache key '" + hash + "' is not a full-width SHA-256 hex digest");
    return root_ / "entries" / (safe_name(module) + "-" + hash);
}

void ArtifactCache::set_fault_hook(std::function<void(std::string_view point)> hook) {
    state_->fault_hook = std::move(hook);
}

void ArtifactCache::warn(const std::string &message) const {
    if (logger_)
        logger_->log(LogLevel::Warning, "cache", message);
    else
        std::fprintf(stderr, "weft warning [cache]: %s\n", message.c_str());
}

std::optional<CachedArtifact> ArtifactCache::find(const std::string &module, const std::string &hash,
                                                  const Target &target) const {
    const fs::path dir = entry_directory(module, hash);
    const std::string target_name = target.str();
    const fs::path meta_path = dir / "artifacts" / (target_name + ".json");

    const EntryState entry = check_entry(dir, safe_name(module), hash);
    if (entry.kind == EntryKind::Absent) return std::nullopt;
    if (entry.kind == EntryKind::Unreadable) {
        warn("cache entry " + dir.string() + " cannot be read (" + entry.problem + "); it is a miss and is left as it is");
        return std::nullopt;
    }
    if (entry.kind == EntryKind::Damaged) {
        // Not removed here: a concurrent store() may be replacing it right now.
        warn("cache entry " + dir.string() + " is damaged (" + entry.problem +
             "); it is a miss and is replaced when the module is stored again");
        return std::nullopt;
    }
    JsonRead meta = read_metadata(meta_path);
    // No metadata is a plain miss: this target was never stored, or its writer
    // died between publishing the artifact and the metadata.
    if (meta.missing) return std::nullopt;
    if (meta.unreadable) {
        warn("cache artifact " + meta_path.string() + " cannot be read (metadata " + meta.error + "); it is a miss and is left as it is");
        return std::nullopt;
    }

    auto corrupt = [&](const std::string &why, const std::string &file) -> std::optional<CachedArtifact> {
        // Reported once: the damaged files are removed here, so the next lookup
        // is a plain miss and the caller's rebuild replaces them.
        warn("cache artifact " + meta_path.string() + " is corrupt (" + why + "); it is removed and will be rebuilt");
        std::error_code ec;
        if (!file.empty()) fs::remove(dir / "artifacts" / file, ec);
        fs::remove_all(meta_path, ec);
        return std::nullopt;
    };

    if (!meta.value) return corrupt("metadata " + meta.error, {});
    auto parsed = parse_meta(*meta.value, target_name, hash);
    if (auto *why = std::get_if<std::string>(&parsed)) return corrupt("metadata " + *why, {});
    const ArtifactMeta &m = std::get<ArtifactMeta>(parsed);
    const fs::path path = dir / "artifacts" / m.file;
    ArtifactRead content = read_artifact(path, m);
    if (!content.content) return corrupt(content.problem, m.file);
    return CachedArtifact{path, m.sha256, std::move(*content.content)};
}

namespace {
constexpr std::string_view key_header = "weft-key v1 ";

fs::path key_path(const fs::path &root, const std::string &key) {
    if (!is_full_hash(key)) throw UserError("content key '" + key + "' is not a full-width SHA-256 hex digest");
    return root / "keys" / (key + ".key");
}


/// The record in a content-key file's text, or why it is not one.
std::variant<std::string, std::string> key_record(const std::string &text) {
    const std::size_t eol = text.find('\n');
    if (eol != key_header.size() + 64 || text.compare(0, key_header.size(), key_header) != 0)
        return std::variant<std::string, std::string>(std::in_place_index<1>, "does not start with a \"weft-key v1 <sha256>\" line");
    std::string record = text.substr(eol + 1);
    if (sha256_hex(record) != text.substr(key_header.size(), 64))
        return std::variant<std::string, std::string>(std::in_place_index<1>,
                                                      "does not have the recorded sha256 (truncated or edited)");
    return std::variant<std::string, std::string>(std::in_place_index<0>, std::move(record));
}
} // namespace

std::optional<std::string> ArtifactCache::find_key(const std::string &key) const {
    const fs::path path = key_path(root_, key);
    FileRead f = read_regular(path, key_record_limit);
    const auto miss = [&](const std::string &why) -> std::optional<std::string> {
        if (logger_) logger_->log(LogLevel::Info, "cache", "content-key record " + path.string() + " " + why + ": a miss");
        return std::nullopt;
    };
    if (!f.content) return f.missing ? std::nullopt : miss(f.error);
    auto record = key_record(*f.content);
    if (record.index() == 1) return miss(std::get<1>(record));
    return std::move(std::get<0>(record));
}

void ArtifactCache::store_key(const std::string &key, const std::string &record) const {
    const fs::path path = key_path(root_, key);
    make_directories(path.parent_path());
    publish_file(path, std::string(key_header) + sha256_hex(record) + "\n" + record);
}

CachedArtifact ArtifactCache::store(const std::string &module, const std::string &hash, const Target &target,
                                    const std::string &source, const std::string &artifact) const {
    const fs::path dir = entry_directory(module, hash);
    const std::string prefix = safe_name(module);
    // Writers killed mid-store leave staging folders; one look per cache object
    // is enough, and the entries are not walked here (verify() does that).
    std::call_once(state_->staging_swept, [&] { sweep_stale(root_ / "tmp"); });

    const std::string target_name = target.str();
    const std::string digest = sha256_hex(artifact);
    const std::string file = artifact_file_name(target_name, digest);
    const std::string meta =
        json{{"target", target_name}, {"hash", hash}, {"file", file}, {"sha256", digest}, {"size", artifact.size()}}
            .dump(2);
    std::error_code ec;

    auto stage = [&] {
        const fs::path staging = root_ / "tmp" / temp_name();
        try {
            make_directories(staging / "artifacts");
            write_file(staging / "module.src", source);
            write_file(staging / "artifacts" / file, artifact);
            write_file(staging / "artifacts" / (target_name + ".json"), meta);
            write_file(staging / "entry.json", json{{"format", format_version},
                                                    {"module", module},
                                                    {"hash", hash},
                                                    {"weft", version_string},
                                                    {"source_size", source.size()},
                                                    {"source_sha256", sha256_hex(source)}}
                                                   .dump(2));
        } catch (...) {
            fs::remove_all(staging, ec);
            throw;
        }
        return staging;
    };
    // Moves a damaged entry out of the way with one rename, so concurrent
    // writers cannot both delete it; a valid entry another writer published
    // since our check is put back.
    auto move_aside = [&] {
        const fs::path aside = root_ / "tmp" / temp_name();
        std::error_code e;
        fs::rename(dir, aside, e);
        if (e && type_of(dir) != fs::file_type::not_found) // gone already: another writer moved it
            throw UserError("cache entry " + dir.string() + " is damaged and cannot be moved aside to be replaced: " +
                            e.message());
        if (e) return;
        if (check_entry(aside, prefix, hash).kind == EntryKind::Valid) {
            fs::rename(aside, dir, e);
            if (!e) return;
        }
        remove_tree(aside);
    };

    for (int attempt = 0; attempt < 8; ++attempt) {
        const EntryState entry = check_entry(dir, prefix, hash);
        if (entry.kind == EntryKind::Valid) {
            // After losing a publish race, the winner's artifact is as good as ours.
            if (attempt > 0)
                if (auto existing = find(module, hash, target)) return *existing;
            // Add this target's artifact. The artifact file is named by its
            // digest, so concurrent writers never overwrite each other's bytes;
            // the metadata rename is the single commit point.
            const fs::path artifacts = dir / "artifacts";
            make_directories(artifacts);
            sweep_stale(artifacts);
            publish_file(artifacts / file, artifact);
            if (state_->fault_hook) state_->fault_hook("artifact-published");
            publish_file(artifacts / (target_name + ".json"), meta);
            return CachedArtifact{artifacts / file, digest, artifact};
        }
        if (entry.kind == EntryKind::Unreadable)
            throw UserError("cache entry " + dir.string() + " cannot be read (" + entry.problem +
                            "); it is left as it is and nothing was stored");
        const fs::path staging = stage();
        if (entry.kind == EntryKind::Damaged) {
            if (logger_)
                logger_->log(LogLevel::Info, "cache", "replacing damaged entry " + dir.string() + " (" + entry.problem + ")");
            move_aside();
        }
        try {
            make_directories(dir.parent_path());
        } catch (...) {
            remove_tree(staging);
            throw;
        }
        fs::rename(staging, dir, ec);
        if (!ec) return CachedArtifact{dir / "artifacts" / file, digest, artifact};
        remove_tree(staging);
        // Another writer published first (rename onto a non-empty folder fails): look again.
        // Anything else (a read-only or full file system) will not change by retrying.
        if (ec != std::errc::directory_not_empty && ec != std::errc::file_exists)
            throw UserError(dir.string() + ": cannot publish the cache entry: " + errno_text(ec.value()));
    }
    throw UserError(dir.string() + ": cannot publish the cache entry: it kept changing under concurrent writers");
}

std::size_t ArtifactCache::remove_stale_temporaries() const {
    std::size_t removed = sweep_stale(root_ / "tmp") + sweep_stale(root_ / "keys");
    for (const fs::path &entry : listing(root_ / "entries"))
        if (type_of(entry) == fs::file_type::directory) removed += sweep_stale(entry / "artifacts");
    return removed;
}

CacheReport ArtifactCache::walk(bool read_artifacts, bool repair) const {
    CacheReport report;
    auto finding = [&](const fs::path &p, std::string problem, std::vector<fs::path> extra = {}) {
        CacheFinding f{p, std::move(problem), CacheFinding::Action::Reported};
        if (repair) {
            extra.insert(extra.begin(), p);
            f.action = CacheFinding::Action::Removed;
            for (const fs::path &q : extra)
                if (std::string why = remove_tree(q); !why.empty()) {
                    f.action = CacheFinding::Action::Failed;
                    f.problem += "; cannot remove " + q.string() + ": " + why;
                }
        }
        report.findings.push_back(std::move(f));
    };
    auto temporary = [&](const fs::path &p, bool stale) {
        CacheTemporary t{p, stale, false};
        if (repair && stale) t.removed = remove_tree(p).empty();
        report.temporaries.push_back(std::move(t));
    };
    auto children = [](const fs::path &dir) {
        std::vector<fs::path> out = listing(dir);
        std::sort(out.begin(), out.end());
        return out;
    };
    // The cache's own folders are folders: anything else there (a link
    // above all) is reported, and with repair the link itself is removed.
    for (const char *dir : {"tmp", "keys", "entries"})
        if (const fs::file_type t = type_of(root_ / dir); t != fs::file_type::directory && t != fs::file_type::not_found)
            finding(root_ / dir, "is " + kind_of(t) + ", not a directory (a cache never follows links)");

    for (const fs::path &p : children(root_ / "tmp")) temporary(p, writer_gone(p));

    // Content-key records: each a regular file <64 hex digits>.key whose
    // digest line matches; anything else is reported (and removed with
    // repair: a record only saves a warm load the front end).
    for (const fs::path &p : children(root_ / "keys")) {
        const std::string name = p.filename().string();
        if (is_temporary_name(name)) {
            temporary(p, writer_gone(p));
            continue;
        }
        if (p.extension() != ".key" || !is_full_hash(p.stem().string())) {
            finding(p, "is " + kind_of(type_of(p)) + " that is not a content-key record (expected <64 hex digits>.key)");
            continue;
        }
        const FileRead f = read_regular(p, key_record_limit);
        if (!f.content) {
            if (f.unreadable)
                report.findings.push_back({p, "content-key record " + f.error + " (not removed: it may be fine)",
                                           CacheFinding::Action::Reported});
            else
                finding(p, "content-key record " + f.error);
            continue;
        }
        if (auto record = key_record(*f.content); record.index() == 1) finding(p, "content-key record " + std::get<1>(record));
    }

    for (const fs::path &dir : children(root_ / "entries")) {
        const std::string name = dir.filename().string();
        const fs::file_type type = type_of(dir);
        if (is_temporary_name(name)) {
            temporary(dir, writer_gone(dir));
            continue;
        }
        if (type == fs::file_type::symlink) {
            finding(dir, "is a symbolic link (not followed)");
            continue;
        }
        const auto parts = parse_entry_name(name);
        if (!parts) {
            finding(dir, "is " + kind_of(type) + " that is not a cache entry (expected <module>-<64 hex digits>)");
            continue;
        }
        const EntryState entry = check_entry(dir, parts->first, parts->second);
        if (entry.kind == EntryKind::Unreadable) {
            report.findings.push_back({dir, entry.problem + " (not removed: it may be fine)", CacheFinding::Action::Reported});
            continue;
        }
        if (entry.kind != EntryKind::Valid) {
            finding(dir, entry.problem);
            continue;
        }
        if (read_artifacts && entry.entry.contains("source_sha256")) {
            // Entries from before the digest was recorded are taken as they are.
            const FileRead src = read_regular(dir / "module.src", source_limit);
            const std::string recorded = string_field(entry.entry, "source_sha256");
            if (!src.content) {
                finding(dir, "module.src " + src.error);
                continue;
            }
            if (const std::string actual = sha256_hex(*src.content); actual != recorded) {
                finding(dir, "module.src has sha256 " + actual + ", entry.json records " + recorded);
                continue;
            }
        }

        CacheEntryInfo info{string_field(entry.entry, "module"), parts->second, dir, {}, 0};
        std::vector<fs::path> metas;
        std::set<std::string> bins;
        for (const fs::path &p : children(dir / "artifacts")) {
            const std::string file = p.filename().string();
            if (is_temporary_name(file))
                temporary(p, writer_gone(p));
            else if (type_of(p) == fs::file_type::symlink)
                finding(p, "is a symbolic link (not followed)");
            else if (p.extension() == ".json")
                metas.push_back(p);
            else if (p.extension() == ".bin")
                bins.insert(file);
            else
                finding(p, "is not an artifact or artifact metadata");
        }
        std::set<std::string> referenced;
        for (const fs::path &meta_path : metas) {
            ++report.artifacts_checked;
            const std::string target = meta_path.stem().string();
            try {
                if (Target::parse(target).str() != target) throw UserError("not canonical");
            } catch (const UserError &) {
                finding(meta_path, "is not named after a target (cpu, cuda-compute_<arch>-ptx, cuda-sm_<arch>-cubin)");
                continue;
            }
            JsonRead meta = read_metadata(meta_path);
            if (!meta.value) {
                finding(meta_path, "metadata " + meta.error);
                continue;
            }
            auto parsed = parse_meta(*meta.value, target, parts->second);
            if (auto *why = std::get_if<std::string>(&parsed)) {
                finding(meta_path, "metadata " + *why);
                continue;
            }
            const ArtifactMeta &m = std::get<ArtifactMeta>(parsed);
            const fs::path artifact = dir / "artifacts" / m.file;
            std::optional<std::string> problem;
            if (read_artifacts) {
                if (ArtifactRead content = read_artifact(artifact, m); !content.content) problem = content.problem;
            } else {
                problem = stat_artifact(artifact, m);
            }
            if (problem) {
                // The metadata is the commit point: without it the artifact is
                // unreachable, so both go.
                finding(meta_path, *problem, bins.count(m.file) ? std::vector<fs::path>{artifact} : std::vector<fs::path>{});
                bins.erase(m.file);
                continue;
            }
            referenced.insert(m.file);
            info.targets.push_back(target);
        }
        for (const std::string &file : bins) {
            if (referenced.count(file)) continue;
            const fs::path p = dir / "artifacts" / file;
            if (age_of(p) < orphan_grace)
                temporary(p, false);
            else
                finding(p, "is an artifact no metadata refers to (its writer died before publishing the metadata)");
        }
        std::sort(info.targets.begin(), info.targets.end());
        info.bytes = bytes_under(dir);
        report.entries.push_back(std::move(info));
    }
    std::sort(report.entries.begin(), report.entries.end(), [](const CacheEntryInfo &a, const CacheEntryInfo &b) {
        return std::tie(a.module, a.hash) < std::tie(b.module, b.hash);
    });
    return report;
}

std::vector<CacheEntryInfo> ArtifactCache::list() const { return walk(false, false).entries; }

CacheReport ArtifactCache::scan() const { return walk(false, false); }

CacheReport ArtifactCache::verify(bool repair) const { return walk(true, repair); }

CacheStats ArtifactCache::stats() const {
    const CacheReport report = scan();
    CacheStats s;
    s.entries = report.entries.size();
    for (const CacheEntryInfo &e : report.entries) {
        s.artifacts += e.targets.size();
        s.bytes += e.bytes;
    }
    s.damaged = report.findings.size();
    s.temporaries = report.temporaries.size();
    s.stale_temporaries = static_cast<std::size_t>(
        std::count_if(report.temporaries.begin(), report.temporaries.end(), [](const CacheTemporary &t) { return t.stale; }));
    return s;
}

CacheClearResult ArtifactCache::clear() const {
    CacheClearResult result;
    auto failed = [&](const fs::path &p, const std::string &why) {
        result.failures.push_back({p, "cannot remove: " + why, CacheFinding::Action::Failed});
    };
    std::vector<fs::path> items = listing(root_ / "entries");
    std::sort(items.begin(), items.end());
    std::error_code ec;
    for (const fs::path &p : items) {
        const auto parts = parse_entry_name(p.filename().string());
        const bool entry = parts && check_entry(p, parts->first, parts->second).kind == EntryKind::Valid;
        if (std::string why = remove_tree(p); !why.empty())
            failed(p, why);
        else
            ++(entry ? result.entries_removed : result.other_removed);
    }
    // Only once empty (a failure above was reported already), or the link itself.
    fs::remove(root_ / "entries", ec);
    // Staging, and what the compile pipeline keeps beside the entries: generated
    // sources (for reference), precompiled headers, materialized runtime headers.
    for (const char *dir : {"keys", "tmp", "generated", "pch", "runtime-headers"})
        if (std::string why = remove_tree(root_ / dir); !why.empty()) failed(root_ / dir, why);
    return result;
}

} // namespace weft
