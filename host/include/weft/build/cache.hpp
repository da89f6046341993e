// The on-disk artifact cache: content-addressed, so a warm start compiles
// nothing.
//
//   <root>/v1/entries/<module>-<full hash>/entry.json       module, hash, weft version
//                                         /module.src       the generated source
//                                         /artifacts/<target>.json            digest, size, file
//                                         /artifacts/<target>.<digest16>.bin  the artifact
//   <root>/v1/tmp/                                          staging, one folder per writer
//   <root>/v1/generated/, pch/, runtime-headers/            kept by Host::load_module (cleared with the rest)
//
// Entries are published by renaming a fully written folder into place, and
// artifacts by renaming the finished file, then its metadata: a reader sees a
// complete artifact or none. Every hit re-checks the full-width hash and the
// artifact's SHA-256; a corrupt artifact is reported once, removed and never
// returned, so the caller rebuilds it.
#pragma once

#include "weft/support/log.hpp"
#include "weft/build/target.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace weft {

struct CachedArtifact {
    std::filesystem::path path;
    std::string sha256;
    std::string content; // read and verified
};

struct CacheEntryInfo {
    std::string module;
    std::string hash;
    std::filesystem::path directory;
    std::vector<std::string> targets;
    std::uint64_t bytes = 0;
};

struct CacheStats {
    std::size_t entries = 0;
    std::size_t artifacts = 0;
    std::uint64_t bytes = 0;
    std::size_t stale_temporaries = 0; // left by writers that died; removed by clear and store
};

class ArtifactCache {
public:
    /// The cache format version: part of the root layout.
    static constexpr int format_version = 1;

    /// `root` empty: default_root().
    explicit ArtifactCache(std::filesystem::path root = {}, const Logger *logger = nullptr);

    /// WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft, else ~/.cache/weft.
    static std::filesystem::path default_root();

    const std::filesystem::path &root() const { return root_; }
    std::filesystem::path entry_directory(const std::string &module, const std::string &hash) const;

    /// The verified artifact for (module, hash, target), or nullopt: absent, or
    /// corrupt (then reported on the logger once and removed).
    std::optional<CachedArtifact> find(const std::string &module, const std::string &hash, const Target &target) const;

    /// Publishes an artifact (and the entry with its source, if new). Safe
    /// against concurrent writers in other processes: all of them succeed and
    /// one valid entry results.
    CachedArtifact store(const std::string &module, const std::string &hash, const Target &target,
                         const std::string &source, const std::string &artifact) const;

    std::vector<CacheEntryInfo> list() const;
    CacheStats stats() const;
    /// Removes every entry and temporary (and the generated sources, PCHs and
    /// runtime headers beside them); returns the number of entries removed.
    std::size_t clear() const;
    /// Removes temporaries whose writer is gone; returns how many.
    std::size_t remove_stale_temporaries() const;

private:
    std::filesystem::path root_;
    const Logger *logger_;
};

} // namespace weft
