// The on-disk artifact cache: content-addressed, so a warm start compiles
// nothing.
//
//   <root>/v1/entries/<module>-<full hash>/entry.json       format, module, hash, weft version,
//                                                           module.src size and sha256
//                                         /module.src       the generated source
//                                         /artifacts/<target>.json            target, file, size, sha256
//                                         /artifacts/<target>.<digest16>.bin  the artifact
//   <root>/v1/entries/<module>-<unit key>/...               a CPU module's compile unit (target
//                                                           cpu-unit; module.src is the unit's text)
//   <root>/v1/keys/<content key>.key                        warm-load record (see find_key)
//   <root>/v1/tmp/                                          staging, one folder per writer
//   <root>/v1/generated/, pch/, runtime-headers/            kept by Host::load_module (cleared with the rest)
//
// Entries are published by renaming a fully written folder into place, and
// artifacts by renaming the finished file, then its metadata: a reader sees a
// complete artifact or none. Every hit re-checks the full-width hash and the
// artifact's SHA-256; a corrupt artifact is reported once, removed and never
// returned, so the caller rebuilds it. A damaged entry (entry.json missing,
// truncated, not a file; the entry not a directory) is a miss, and the next
// store() replaces it whole.
//
// Metadata is read only from regular files of at most `metadata_limit` bytes,
// and nothing under entries/ is followed through a symbolic link.
#pragma once

#include "weft/support/log.hpp"
#include "weft/build/target.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

struct CachedArtifact {
    std::filesystem::path path;
    std::string sha256;
    std::string content; // read and verified
};

/// A well-formed entry: a real directory named <module>-<hash> whose entry.json
/// names that module and hash. `targets` are the artifacts whose metadata is
/// well formed and whose file has the recorded size (digests are checked by
/// find() and verify()).
struct CacheEntryInfo {
    std::string module;
    std::string hash;
    std::filesystem::path directory;
    std::vector<std::string> targets;
    std::uint64_t bytes = 0;
};

/// Something under the cache root that is not what the layout says.
struct CacheFinding {
    enum class Action {
        Reported, // list/stats, or verify with repair off
        Removed,  // verify removed it
        Failed,   // verify tried to remove it and could not (`problem` says why)
    };
    std::filesystem::path path;
    std::string problem;
    Action action = Action::Reported;
};

/// A writer's staging file or folder (".tmp.<pid>..."), or an artifact no
/// metadata refers to yet. Stale: its writer is gone (or it is a day old; for
/// an unreferenced artifact, `orphan_grace` old).
struct CacheTemporary {
    std::filesystem::path path;
    bool stale = false;
    bool removed = false;
};

struct CacheReport {
    std::vector<CacheEntryInfo> entries;   // well-formed (after repair, when repairing)
    std::vector<CacheFinding> findings;    // damaged entries, artifacts and strays
    std::vector<CacheTemporary> temporaries;
    std::size_t artifacts_checked = 0;     // artifact metadata files examined
};

struct CacheStats {
    std::size_t entries = 0;
    std::size_t artifacts = 0;
    std::uint64_t bytes = 0;
    std::size_t damaged = 0;            // findings: not counted as entries or artifacts
    std::size_t temporaries = 0;        // staging left by writers, live or not
    std::size_t stale_temporaries = 0;  // left by writers that died; removed by clear and verify
};

struct CacheClearResult {
    std::size_t entries_removed = 0; // well-formed entries actually removed
    std::size_t other_removed = 0;   // damaged entries and strays under entries/
    std::vector<CacheFinding> failures; // what could not be removed (action Failed)
};

class ArtifactCache {
public:
    /// The cache format version: part of the root layout.
    static constexpr int format_version = 1;
    /// Largest entry.json or artifact metadata file read: they are a few hundred bytes.
    static constexpr std::uint64_t metadata_limit = 64 * 1024;
    /// An artifact without metadata younger than this may belong to a writer
    /// between its two renames; verify() leaves it alone.
    static constexpr std::chrono::minutes orphan_grace{10};

    /// `root` empty: default_root(). Touches nothing on disk.
    explicit ArtifactCache(std::filesystem::path root = {}, const Logger *logger = nullptr);

    /// WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft, else ~/.cache/weft.
    static std::filesystem::path default_root();

    const std::filesystem::path &root() const { return root_; }
    std::filesystem::path entry_directory(const std::string &module, const std::string &hash) const;

    /// The verified artifact for (module, hash, target), or nullopt: absent,
    /// corrupt (reported on the logger once and removed), or in a damaged entry
    /// (reported; the next store() replaces the entry).
    std::optional<CachedArtifact> find(const std::string &module, const std::string &hash, const Target &target) const;

    /// Publishes an artifact (and the entry with its source, if new or
    /// damaged). Safe against concurrent writers in other processes: all of
    /// them succeed and one valid entry results. Touches only this entry and,
    /// once per cache object, the staging folder: never the whole cache.
    CachedArtifact store(const std::string &module, const std::string &hash, const Target &target,
                         const std::string &source, const std::string &artifact) const;

    /// Largest content-key record read (a module's kernel signatures).
    static constexpr std::uint64_t key_record_limit = std::uint64_t(16) << 20;
    /// The record stored under a content key (64 hex digits), when it is a
    /// regular file whose first line "weft-key v1 <sha256>" carries the
    /// SHA-256 of the rest; otherwise nullopt (absent, truncated, edited, a
    /// link or not a file: a miss, logged at Info level, and the next
    /// store_key() replaces it). A record stands for no artifact by itself:
    /// it names a module hash whose entry find() verifies as always.
    std::optional<std::string> find_key(const std::string &key) const;
    /// Publishes `record` under `key` (written beside it, renamed into place:
    /// concurrent writers each publish a whole record, the last one stays).
    /// Throws UserError when the cache cannot be written.
    void store_key(const std::string &key, const std::string &record) const;

    /// Well-formed entries only.
    std::vector<CacheEntryInfo> list() const;
    /// Entries, findings and temporaries, without reading artifacts or changing anything.
    CacheReport scan() const;
    CacheStats stats() const;
    /// Checks every entry and artifact (metadata parses, artifact present, size
    /// and SHA-256 as recorded, module.src as recorded) and every content-key
    /// record (named <key>.key, digest line as recorded) and, with `repair`,
    /// removes what is damaged and stale temporaries.
    CacheReport verify(bool repair) const;
    /// Removes every entry, stray and temporary (and the generated sources,
    /// PCHs and runtime headers beside them), counting what was removed.
    CacheClearResult clear() const;
    /// Removes temporaries whose writer is gone, in the staging folder and in
    /// every entry; returns how many.
    std::size_t remove_stale_temporaries() const;

    /// Test-only fault injection: store() calls `hook("artifact-published")`
    /// once an artifact file is in place and before its metadata is, so a test
    /// can kill the writer exactly there.
    void set_fault_hook(std::function<void(std::string_view point)> hook);

private:
    struct State;
    CacheReport walk(bool read_artifacts, bool repair) const;
    void warn(const std::string &message) const;

    std::filesystem::path root_;
    const Logger *logger_;
    std::shared_ptr<State> state_; // shared by copies: sweep-once flag, fault hook
};

} // namespace weft
