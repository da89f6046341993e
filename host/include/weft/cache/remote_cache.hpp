// The shared artifact cache: a second tier behind the local ArtifactCache, on
// a Redis server (weft speaks its protocol itself, cache/resp.cpp), in the
// order ccache's remote storage uses:
//
//   local hit -> remote hit (fetched, verified, stored locally) -> compile
//   (stored locally and, unless read-only, remotely)
//
// Remote bytes are never trusted. An entry is one Redis hash,
//   <prefix>v1:<module hash>:<target>
//     module, hash, target, size, sha256, source, source_sha256, weft
//     [key, signature]   Ed25519 over the fields above (remote_signing_key)
// and a fetched entry whose digest, size or metadata does not match what was
// asked for, or is not signed by a trusted key, is discarded with a warning:
// the caller compiles locally. Signatures are required unless the options say
// otherwise (require_signature = false), and then a warning names the risk: an
// entry is code this host runs, and anyone who can write to the server could
// otherwise choose it.
//
// Faults never fail a load: a remote that is down, slow (commands time out
// after `timeout`) or refuses is an error counted, reported once per process
// as a warning, and not tried again for `backoff`.
#pragma once

#include "weft/build/target.hpp"
#include "weft/support/log.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace weft {

struct RemoteCacheOptions {
    /// redis://HOST[:PORT][/DB] (port 6379, db 0 by default) or
    /// unix:///PATH/TO/SOCKET[?db=N]. Empty: no remote cache.
    std::string url;
    /// The name of an environment variable holding the password (AUTH); the
    /// password itself is never part of the URL or a configuration file.
    std::string password_env;
    /// Fetch only: never writes to the server.
    bool read_only = false;
    /// Prepended to every key, so several teams or weft versions can share a server.
    std::string key_prefix = "weft:";
    /// Connect and command timeout.
    std::chrono::milliseconds timeout{300};
    /// After a fault, the remote is not tried again for this long.
    std::chrono::milliseconds backoff{std::chrono::seconds(60)};
    /// Artifacts larger than this are kept in the local cache only (a warning says so).
    std::uint64_t max_artifact_bytes = 64ull << 20;
    /// Accept only entries signed by a key in `trusted_keys_dir` (the
    /// default; with no keys named nothing is fetched, and a warning at
    /// construction says so). False accepts unsigned entries, with a warning
    /// at construction that names the risk.
    bool require_signature = true;
    std::filesystem::path trusted_keys_dir;
    /// Writers sign their entries with this PEM Ed25519 private key.
    std::filesystem::path signing_key;
};

/// Where a URL points, parsed. Throws UserError naming the URL.
struct RemoteAddress {
    std::string host; // empty for a socket
    int port = 6379;
    std::string socket;
    int db = 0;
    static RemoteAddress parse(const std::string &url);
};

/// What the remote tier did, counted per RemoteCache object.
struct RemoteCacheCounters {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t errors = 0;      // connection failures, timeouts, refusals
    std::uint64_t rejected = 0;    // entries discarded by verification
    std::uint64_t stores = 0;      // artifacts written
    std::uint64_t skipped = 0;     // lookups and stores not tried: backing off after a fault
    std::uint64_t too_large = 0;   // artifacts over max_artifact_bytes, not stored
};

/// A verified remote entry.
struct RemoteArtifact {
    std::string module;
    std::string hash;
    std::string target;
    std::string artifact;
    std::string source;
    std::string signed_by; // require_signature: the trusted key's file name
};

class RemoteCache {
public:
    /// Parses the URL and reads the keys now (UserError naming what is
    /// wrong); connects on first use.
    RemoteCache(RemoteCacheOptions options, const Logger *logger = nullptr);
    ~RemoteCache();
    RemoteCache(const RemoteCache &) = delete;
    RemoteCache &operator=(const RemoteCache &) = delete;

    /// The verified entry, or nullopt (absent, rejected, remote unavailable).
    /// With `expected_source`, an entry whose source differs is rejected too
    /// (the hash covers the source: a different one is not this module).
    /// Never throws for what the remote does.
    std::optional<RemoteArtifact> fetch(const std::string &module, const std::string &hash, const Target &target,
                                        const std::string *expected_source = nullptr) const;
    /// Writes an entry unless read-only, too large or unavailable; whether it was written.
    bool store(const std::string &module, const std::string &hash, const Target &target, const std::string &source,
               const std::string &artifact) const;
    /// Every entry's (hash, target) under the key prefix (SCAN); empty when unavailable.
    std::vector<std::pair<std::string, std::string>> list() const;
    /// fetch() by what list() returned; the module name comes from the entry.
    std::optional<RemoteArtifact> fetch_listed(const std::string &hash, const std::string &target) const;

    RemoteCacheCounters counters() const;
    const RemoteCacheOptions &options() const;
    bool writable() const { return !options().read_only; }
    /// The key of an entry (for tests and tools).
    std::string key(const std::string &hash, const std::string &target) const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace weft
