// How the artifact cache tiers served loads: per Pipeline while it runs, and
// summed over processes in <cache root>/v1/stats.json (each Host adds its
// counts when it is destroyed), which `weft cache stats` reports.
#pragma once

#include "weft/cache/cache.hpp"
#include "weft/cache/remote_cache.hpp"

#include <cstdint>

namespace weft {

struct CacheCounters {
    std::uint64_t local_hits = 0;
    /// Of local_hits: loads that a content-key record served, the front end not run.
    std::uint64_t warm_hits = 0;
    std::uint64_t local_misses = 0;
    std::uint64_t compiles = 0;
    /// Of a CPU module's compiles: its compile units taken from the cache
    /// (unchanged by an edit) and compiled.
    std::uint64_t unit_hits = 0;
    std::uint64_t unit_compiles = 0;
    RemoteCacheCounters remote;

    CacheCounters &operator+=(const CacheCounters &other);
    bool empty() const;
};

/// Adds `counters` to the cache's stats.json, under an exclusive lock on it.
/// Returns false (changing nothing) when the file cannot be locked or written.
bool add_cache_counters(const ArtifactCache &cache, const CacheCounters &counters);
/// The sums in stats.json; zeros when there is none (or it is damaged).
CacheCounters read_cache_counters(const ArtifactCache &cache);

} // namespace weft
