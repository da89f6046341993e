#include "weft/build/cache.hpp"

#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"
#include "weft/support/version.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <tuple>

#include <signal.h>
#include <unistd.h>

namespace weft {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char *temp_prefix = ".tmp.";

/// Module names become folder names: keep them readable, never a path.
std::string safe_name(const std::string &module) {
    std::string out;
    for (char c : module.substr(0, 64)) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.';
        out += ok ? c : '_';
    }
    if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
    return out;
}

bool is_full_hash(const std::string &hash) {
    return hash.size() == 64 && hash.find_first_not_of("0123456789abcdef") == std::string::npos;
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
    if (name.rfind(temp_prefix, 0) != 0) return 0;
    return static_cast<pid_t>(std::strtol(name.c_str() + std::strlen(temp_prefix), nullptr, 10));
}

bool writer_gone(const fs::path &p) {
    const pid_t pid = temp_owner(p.filename().string());
    if (pid <= 0) return false;
    if (pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH) return true;
    // A live pid may be a reused one: a day-old temporary is abandoned either way.
    std::error_code ec;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(p, ec);
    return !ec && age > std::chrono::hours(24);
}

void write_file(const fs::path &path, const std::string &content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) throw UserError(path.string() + ": cannot write cache file");
}

std::optional<std::string> read_file(const fs::path &path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return std::nullopt;
    std::string content(static_cast<std::size_t>(in.tellg()), '\0');
    in.seekg(0);
    in.read(content.data(), static_cast<std::streamsize>(content.size()));
    if (in.gcount() != static_cast<std::streamsize>(content.size())) return std::nullopt;
    return content;
}

std::optional<json> read_json(const fs::path &path) {
    auto text = read_file(path);
    if (!text) return std::nullopt;
    json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
}

std::string artifact_file_name(const Target &target, const std::string &digest) {
    return target.str() + "." + digest.substr(0, 16) + ".bin";
}

/// Writes `content` beside `final_path` and renames it into place.
void publish_file(const fs::path &final_path, const std::string &content) {
    const fs::path tmp = final_path.parent_path() / (temp_name() + "." + final_path.filename().string());
    write_file(tmp, content);
    std::error_code ec;
    fs::rename(tmp, final_path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw UserError(final_path.string() + ": cannot publish cache file");
    }
}

json artifact_meta(const Target &target, const std::string &file, const std::string &digest, std::size_t size) {
    return {{"target", target.str()}, {"file", file}, {"sha256", digest}, {"size", size}};
}

} // namespace

ArtifactCache::ArtifactCache(fs::path root, const Logger *logger)
    : root_((root.empty() ? default_root() : std::move(root)) / ("v" + std::to_string(format_version))),
      logger_(logger) {}

fs::path ArtifactCache::default_root() {
    if (const char *dir = std::getenv("WEFT_CACHE_DIR"); dir && *dir) return dir;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "weft";
    if (const char *home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "weft";
    throw UserError("no cache directory: set WEFT_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

fs::path ArtifactCache::entry_directory(const std::string &module, const std::string &hash) const {
    if (!is_full_hash(hash)) throw UserError("cache key '" + hash + "' is not a full-width SHA-256 hex digest");
    return root_ / "entries" / (safe_name(module) + "-" + hash);
}

std::optional<CachedArtifact> ArtifactCache::find(const std::string &module, const std::string &hash,
                                                  const Target &target) const {
    const fs::path dir = entry_directory(module, hash);
    const fs::path meta_path = dir / "artifacts" / (target.str() + ".json");
    std::error_code ec;
    if (!fs::exists(meta_path, ec)) return std::nullopt;

    auto corrupt = [&](const std::string &why) -> std::optional<CachedArtifact> {
        // Reported once: the damaged files are removed here, so the next lookup
        // is a plain miss and the caller's rebuild replaces them.
        const std::string message =
            "cache artifact " + meta_path.string() + " is corrupt (" + why + "); it is removed and will be rebuilt";
        if (logger_)
            logger_->log(LogLevel::Warning, "cache", message);
        else
            std::fprintf(stderr, "weft warning [cache]: %s\n", message.c_str());
        if (auto meta = read_json(meta_path); meta && (*meta)["file"].is_string())
            fs::remove(dir / "artifacts" / (*meta)["file"].get<std::string>(), ec);
        fs::remove(meta_path, ec);
        return std::nullopt;
    };

    const auto entry = read_json(dir / "entry.json");
    if (!entry || entry->value("hash", "") != hash) return corrupt("entry.json does not carry the full hash " + hash);
    auto meta = read_json(meta_path);
    if (!meta || !(*meta)["file"].is_string() || !(*meta)["sha256"].is_string() || !(*meta)["size"].is_number())
        return corrupt("unreadable metadata");
    const std::string file = (*meta)["file"].get<std::string>();
    if (file.find('/') != std::string::npos) return corrupt("metadata names a file outside the entry");
    const std::string expected = (*meta)["sha256"].get<std::string>();
    const fs::path path = dir / "artifacts" / file;
    auto content = read_file(path);
    if (!content) return corrupt("artifact file missing");
    if (content->size() != (*meta)["size"].get<std::uint64_t>())
        return corrupt("size " + std::to_string(content->size()) + ", expected " +
                       std::to_string((*meta)["size"].get<std::uint64_t>()));
    const std::string actual = sha256_hex(*content);
    if (actual != expected) return corrupt("sha256 " + actual + ", expected " + expected);
    return CachedArtifact{path, actual, std::move(*content)};
}

CachedArtifact ArtifactCache::store(const std::string &module, const std::string &hash, const Target &target,
                                    const std::string &source, const std::string &artifact) const {
    remove_stale_temporaries();
    const fs::path dir = entry_directory(module, hash);
    const std::string digest = sha256_hex(artifact);
    const std::string file = artifact_file_name(target, digest);
    const json meta = artifact_meta(target, file, digest, artifact.size());
    std::error_code ec;

    if (!fs::exists(dir / "entry.json", ec)) {
        // A new entry: written completely in private, then renamed into place.
        const fs::path staging = root_ / "tmp" / temp_name();
        fs::create_directories(staging / "artifacts");
        write_file(staging / "module.src", source);
        write_file(staging / "artifacts" / file, artifact);
        write_file(staging / "artifacts" / (target.str() + ".json"), meta.dump(2));
        write_file(staging / "entry.json", json{{"format", format_version},
                                                {"module", module},
                                                {"hash", hash},
                                                {"weft", version_string}}
                                               .dump(2));
        fs::create_directories(dir.parent_path());
        fs::rename(staging, dir, ec);
        if (!ec) return CachedArtifact{dir / "artifacts" / file, digest, artifact};
        // Another writer published first (rename onto a non-empty folder fails).
        fs::remove_all(staging, ec);
        if (auto existing = find(module, hash, target)) return *existing;
    }
    // The entry exists: add this target's artifact. The artifact file is named
    // by its digest, so concurrent writers never overwrite each other's bytes;
    // the metadata rename is the single commit point.
    fs::create_directories(dir / "artifacts", ec);
    publish_file(dir / "artifacts" / file, artifact);
    publish_file(dir / "artifacts" / (target.str() + ".json"), meta.dump(2));
    return CachedArtifact{dir / "artifacts" / file, digest, artifact};
}

std::size_t ArtifactCache::remove_stale_temporaries() const {
    std::size_t removed = 0;
    std::error_code ec;
    auto sweep = [&](const fs::path &dir) {
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
            if (writer_gone(it->path())) {
                std::error_code rm;
                fs::remove_all(it->path(), rm);
                if (!rm) ++removed;
            }
    };
    sweep(root_ / "tmp");
    for (fs::directory_iterator it(root_ / "entries", ec), end; !ec && it != end; it.increment(ec))
        sweep(it->path() / "artifacts");
    return removed;
}

std::vector<CacheEntryInfo> ArtifactCache::list() const {
    std::vector<CacheEntryInfo> out;
    std::error_code ec;
    for (fs::directory_iterator it(root_ / "entries", ec), end; !ec && it != end; it.increment(ec)) {
        CacheEntryInfo e;
        e.directory = it->path();
        const auto entry = read_json(it->path() / "entry.json");
        if (entry) {
            e.module = entry->value("module", "");
            e.hash = entry->value("hash", "");
        }
        std::error_code walk;
        for (fs::recursive_directory_iterator f(it->path(), walk), fend; !walk && f != fend; f.increment(walk)) {
            std::error_code size_ec;
            if (f->is_regular_file(size_ec)) e.bytes += f->file_size(size_ec);
            const fs::path &p = f->path();
            if (p.parent_path().filename() == "artifacts" && p.extension() == ".json") e.targets.push_back(p.stem().string());
        }
        std::sort(e.targets.begin(), e.targets.end());
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), [](const CacheEntryInfo &a, const CacheEntryInfo &b) {
        return std::tie(a.module, a.hash) < std::tie(b.module, b.hash);
    });
    return out;
}

CacheStats ArtifactCache::stats() const {
    CacheStats s;
    for (const CacheEntryInfo &e : list()) {
        ++s.entries;
        s.artifacts += e.targets.size();
        s.bytes += e.bytes;
    }
    std::error_code ec;
    for (fs::directory_iterator it(root_ / "tmp", ec), end; !ec && it != end; it.increment(ec))
        if (writer_gone(it->path())) ++s.stale_temporaries;
    return s;
}

std::size_t ArtifactCache::clear() const {
    const std::size_t n = list().size();
    std::error_code ec;
    // Entries, staging, and what the compile pipeline keeps beside them: generated
    // sources (for reference), precompiled headers, materialized runtime headers.
    for (const char *dir : {"entries", "tmp", "generated", "pch", "runtime-headers"}) fs::remove_all(root_ / dir, ec);
    return n;
}

} // namespace weft
