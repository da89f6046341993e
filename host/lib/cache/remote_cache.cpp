#include "weft/cache/remote_cache.hpp"

#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"
#include "weft/support/text.hpp"
#include "weft/support/version.hpp"
#include "weft/trust/ed25519.hpp"

#include "resp.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>


namespace weft {

namespace {

using Clock = std::chrono::steady_clock;

/// The fields of an entry, in the order HMGET returns them.
const char *const fields[] = {"module", "hash", "target", "size", "sha256", "source", "source_sha256", "weft",
                              "key", "signature"};
constexpr std::size_t field_count = sizeof fields / sizeof fields[0];

int parse_int(const std::string &text, const std::string &url, const char *what) {
    int value = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0)
        throw UserError("remote cache URL '" + url + "': " + what + " '" + text + "' is not a number");
    return value;
}

/// What an entry's signature covers.
std::string statement(const std::string &module, const std::string &hash, const std::string &target,
                      const std::string &size, const std::string &sha256, const std::string &source_sha256) {
    return "weft-remote-artifact 1\nmodule " + module + "\nhash " + hash + "\ntarget " + target + "\nsize " + size +
           "\nsha256 " + sha256 + "\nsource-sha256 " + source_sha256 + "\n";
}

std::atomic<bool> warned_unavailable{false};

} // namespace

RemoteAddress RemoteAddress::parse(const std::string &url) {
    RemoteAddress a;
    auto bad = [&](const std::string &why) {
        return UserError("remote cache URL '" + url + "': " + why +
                         " (expected redis://HOST[:PORT][/DB] or unix:///PATH[?db=N])");
    };
    if (url.rfind("unix:", 0) == 0) {
        std::string rest = url.substr(5);
        if (rest.rfind("//", 0) == 0) rest = rest.substr(2);
        if (const auto q = rest.find('?'); q != std::string::npos) {
            const std::string query = rest.substr(q + 1);
            rest = rest.substr(0, q);
            if (query.rfind("db=", 0) != 0) throw bad("unknown parameter '" + query + "'");
            a.db = parse_int(query.substr(3), url, "database");
        }
        if (rest.empty() || rest[0] != '/') throw bad("the socket path must be absolute");
        a.socket = rest;
        return a;
    }
    if (url.rfind("redis://", 0) != 0) throw bad("unknown scheme");
    std::string rest = url.substr(8);
    if (rest.find('@') != std::string::npos)
        throw bad("credentials do not belong in the URL; name an environment variable that holds the password");
    if (const auto slash = rest.find('/'); slash != std::string::npos) {
        const std::string db = rest.substr(slash + 1);
        rest = rest.substr(0, slash);
        if (!db.empty()) a.db = parse_int(db, url, "database");
    }
    std::string port;
    if (!rest.empty() && rest[0] == '[') { // [IPv6]:port
        const auto close = rest.find(']');
        if (close == std::string::npos) throw bad("unterminated '['");
        a.host = rest.substr(1, close - 1);
        if (close + 1 < rest.size()) {
            if (rest[close + 1] != ':') throw bad("unexpected text after ']'");
            port = rest.substr(close + 2);
        }
    } else if (const auto colon = rest.find(':'); colon != std::string::npos) {
        a.host = rest.substr(0, colon);
        port = rest.substr(colon + 1);
    } else {
        a.host = rest;
    }
    if (a.host.empty()) throw bad("no host");
    if (!port.empty()) a.port = parse_int(port, url, "port");
    if (a.port <= 0 || a.port > 65535) throw bad("port out of range");
    return a;
}

struct RemoteCache::Impl {
    RemoteCacheOptions options;
    RemoteAddress address;
    const Logger *logger;
    std::optional<trust::TrustedKeys> keys;
    std::optional<trust::PrivateKey> signer;

    mutable std::mutex mutex; // everything below
    mutable std::optional<resp::Connection> connection;
    mutable Clock::time_point down_until{};
    mutable RemoteCacheCounters counters;

    void log(LogLevel level, const std::string &message) const {
        if (logger)
            logger->log(level, "cache", message);
        else if (level >= LogLevel::Warning)
            Logger().log(level, "cache", message);
    }

    /// A fault: counted, the connection dropped, the remote left alone for the back-off.
    void fault(const std::string &what) const {
        ++counters.errors;
        connection.reset();
        down_until = Clock::now() + options.backoff;
        const std::string message = "remote cache " + options.url + " is unavailable (" + what +
                                    "); loads compile locally, and it is not tried again for " +
                                    std::to_string(options.backoff.count()) + " ms";
        if (!warned_unavailable.exchange(true))
            log(LogLevel::Warning, message + " (this warning is shown once per process)");
        else
            log(LogLevel::Info, message);
    }

    /// Whether the remote may be tried now (not backing off); counts a skip otherwise.
    bool available() const {
        if (Clock::now() >= down_until) return true;
        ++counters.skipped;
        return false;
    }

    /// What a reply may hold: an artifact, or an entry's metadata with its
    /// generated source, and never more than the configured limit allows.
    resp::Limits limits() const {
        resp::Limits l;
        l.max_bulk = options.max_artifact_bytes;
        // Saturating: a configured limit near 2^64 must not wrap to a small one.
        const std::uint64_t room = 1 << 20;
        l.max_total = options.max_artifact_bytes > UINT64_MAX - room ? UINT64_MAX : options.max_artifact_bytes + room;
        return l;
    }

    bool connect() const {
        if (connection) return true;
        std::string error;
        connection = resp::Connection::open(address.host, address.port, address.socket, options.timeout, error);
        if (!connection) {
            fault(error);
            return false;
        }
        if (!options.password_env.empty()) {
            const char *password = std::getenv(options.password_env.c_str());
            if (!password) {
                fault("the password variable " + options.password_env + " is not set");
                return false;
            }
            if (!command({"AUTH", password})) return false;
        }
        if (address.db != 0 && !command({"SELECT", std::to_string(address.db)})) return false;
        return true;
    }

    /// Runs one command within the timeout (the whole command, not each
    /// read); nullopt after a fault (already reported).
    std::optional<resp::Value> command(const std::vector<std::string> &args) const {
        if (!connect()) return std::nullopt;
        std::string error;
        std::optional<resp::Value> reply = connection->command(args, options.timeout, limits(), error);
        if (!reply) {
            fault(args[0] + ": " + error);
            return std::nullopt;
        }
        if (reply->kind == resp::Value::Kind::Error) {
            fault("the server refused " + args[0] + ": " + reply->text.substr(0, 200));
            return std::nullopt;
        }
        return reply;
    }

    std::string key(const std::string &hash, const std::string &target) const {
        return options.key_prefix + "v1:" + hash + ":" + target;
    }

    /// The entry at `key`, verified against what was asked (`module` empty: any).
    std::optional<RemoteArtifact> fetch(const std::string &module, const std::string &hash, const std::string &target,
                                        const std::string *expected_source) const {
        std::lock_guard<std::mutex> lock(mutex);
        if (options.require_signature && !keys) { // nothing could be accepted (warned at construction)
            ++counters.skipped;
            return std::nullopt;
        }
        if (!available()) return std::nullopt;
        std::vector<std::string> args{"HMGET", key(hash, target)};
        for (const char *f : fields) args.emplace_back(f);
        const std::optional<resp::Value> reply = command(args);
        if (!reply) return std::nullopt;
        if (reply->kind != resp::Value::Kind::Array || reply->items.size() != field_count) {
            fault("unexpected reply to HMGET");
            return std::nullopt;
        }
        std::string value[field_count];
        bool present[field_count] = {};
        for (std::size_t i = 0; i < field_count; ++i) {
            const resp::Value &r = reply->items[i];
            if (r.kind == resp::Value::Kind::Bulk) {
                value[i] = r.text;
                present[i] = true;
            }
        }
        if (std::none_of(std::begin(present), std::end(present), [](bool p) { return p; })) {
            ++counters.misses;
            return std::nullopt;
        }
        const std::string &e_module = value[0], &e_hash = value[1], &e_target = value[2], &size = value[3],
                          &sha = value[4], &source = value[5], &source_sha = value[6], &key_id = value[8],
                          &signature = value[9];
        RemoteArtifact a{e_module, e_hash, e_target, {}, source, {}};
        // The artifact is fetched apart: HMGET of the metadata first keeps a
        // rejected entry from costing its transfer.
        std::string problem;
        if (!present[0] || !present[1] || !present[2] || !present[3] || !present[4] || !present[5] || !present[6])
            problem = "the entry lacks module, hash, target, size, sha256, source or source_sha256";
        else if ((!module.empty() && e_module != module) || e_hash != hash || e_target != target)
            problem = "the entry is for module '" + escape_for_display(e_module) + "' " +
                      escape_for_display(e_hash.substr(0, 16)) + " " + escape_for_display(e_target) +
                      ", not '" + (module.empty() ? e_module : module) + "' " + hash.substr(0, 16) + " " + target;
        else if (size.empty() || size.find_first_not_of("0123456789") != std::string::npos || size.size() > 19 ||
                 std::stoull(size) > options.max_artifact_bytes)
            problem = "the entry records size '" + escape_for_display(size.substr(0, 40)) + "', more than the limit of " +
                      std::to_string(options.max_artifact_bytes) + " or not a size";
        else if (sha256_hex(source) != source_sha)
            problem = "the source's sha256 " + sha256_hex(source) + " is not the recorded " + source_sha;
        else if (expected_source && source != *expected_source)
            problem = "the entry's source is not the module's generated source";
        if (problem.empty() && options.require_signature) {
            const trust::PublicKey *k = present[8] ? keys->find(key_id) : nullptr;
            if (!present[8] || !present[9])
                problem = "the entry is not signed, and this cache requires signatures";
            else if (!k)
                problem = "the entry is signed by key " + escape_for_display(key_id.substr(0, 64)) + ", which is not among the trusted keys in " +
                          keys->directory().string();
            else if (!k->verify(statement(e_module, e_hash, e_target, size, sha, source_sha), trust::from_hex(signature)))
                problem = "the entry's signature is not valid for key " + k->name();
            else
                a.signed_by = k->name();
        }
        if (problem.empty()) {
            std::optional<resp::Value> bytes = command({"HGET", key(hash, target), "artifact"});
            if (!bytes) return std::nullopt;
            if (bytes->kind != resp::Value::Kind::Bulk) {
                problem = "the entry has no artifact";
            } else {
                a.artifact = std::move(bytes->text);
                if (std::to_string(a.artifact.size()) != size)
                    problem = "the artifact is " + std::to_string(a.artifact.size()) + " bytes, the entry records " + size;
                else if (const std::string actual = sha256_hex(a.artifact); actual != sha)
                    problem = "the artifact's sha256 " + actual + " is not the recorded " + sha;
            }
        }
        if (!problem.empty()) {
            ++counters.rejected;
            log(LogLevel::Warning, "remote cache entry " + key(hash, target) + " is discarded (" + problem +
                                       "); the module is compiled locally");
            return std::nullopt;
        }
        ++counters.hits;
        return a;
    }
};

RemoteCache::RemoteCache(RemoteCacheOptions options, const Logger *logger) : impl_(std::make_unique<Impl>()) {
    impl_->options = std::move(options);
    impl_->address = RemoteAddress::parse(impl_->options.url);
    impl_->logger = logger;
    if (impl_->options.require_signature) {
        // No keys: nothing can be accepted. Not an error (a remote never fails
        // a load, and `cache push` only writes): fetches are skipped, with a
        // warning that says how to name keys or accept unsigned entries.
        if (impl_->options.trusted_keys_dir.empty())
            impl_->log(LogLevel::Warning,
                       "remote cache " + impl_->options.url +
                           ": its entries must be signed by a trusted key, and no trusted keys directory is named, so "
                           "nothing is fetched from it; name one (remote_trusted_keys = DIR, --remote-trusted-keys DIR, "
                           "RemoteCacheOptions::trusted_keys_dir), or accept unsigned entries "
                           "(remote_require_signature = false, --remote-allow-unsigned), which lets anyone who can "
                           "write to the server choose code this host runs");
        else
            impl_->keys = trust::TrustedKeys::load_directory(impl_->options.trusted_keys_dir);
    } else {
        impl_->log(LogLevel::Warning, "remote cache " + impl_->options.url +
                                          " accepts unsigned entries (require_signature is false): anyone who can "
                                          "write to the server can choose code this host runs; require signatures "
                                          "by trusted keys for a cache that others write to");
    }
    if (!impl_->options.signing_key.empty()) impl_->signer = trust::PrivateKey::load_pem(impl_->options.signing_key);
}

RemoteCache::~RemoteCache() = default;

std::optional<RemoteArtifact> RemoteCache::fetch(const std::string &module, const std::string &hash,
                                                 const Target &target, const std::string *expected_source) const {
    return impl_->fetch(module, hash, target.str(), expected_source);
}

std::optional<RemoteArtifact> RemoteCache::fetch_listed(const std::string &hash, const std::string &target) const {
    return impl_->fetch({}, hash, target, nullptr);
}

bool RemoteCache::store(const std::string &module, const std::string &hash, const Target &target,
                        const std::string &source, const std::string &artifact) const {
    const RemoteCacheOptions &o = impl_->options;
    if (o.read_only) return false;
    const std::string target_name = target.str();
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (artifact.size() > o.max_artifact_bytes) {
        ++impl_->counters.too_large;
        impl_->log(LogLevel::Warning, "artifact of module '" + module + "' for " + target_name + " is " +
                                          std::to_string(artifact.size()) +
                                          " bytes, more than the remote cache limit of " +
                                          std::to_string(o.max_artifact_bytes) +
                                          " (max_artifact_bytes); it is kept in the local cache only");
        return false;
    }
    if (!impl_->available()) return false;
    const std::string size = std::to_string(artifact.size()), sha = sha256_hex(artifact), source_sha = sha256_hex(source);
    std::vector<std::string> args{"HSET",         key(hash, target_name), "module", module,     "hash",  hash,
                                  "target",       target_name,            "size",   size,       "sha256", sha,
                                  "source",       source,                 "source_sha256", source_sha, "weft",
                                  version_string, "artifact",             artifact};
    if (impl_->signer) {
        const std::string signature = impl_->signer->sign(statement(module, hash, target_name, size, sha, source_sha));
        args.insert(args.end(), {"key", impl_->signer->id(), "signature", trust::to_hex(signature)});
    } else {
        // A re-store replaces a signed entry whole: no stale signature stays behind.
        if (!impl_->command({"DEL", key(hash, target_name)})) return false;
    }
    if (!impl_->command(args)) return false;
    ++impl_->counters.stores;
    return true;
}

std::vector<std::pair<std::string, std::string>> RemoteCache::list() const {
    std::vector<std::pair<std::string, std::string>> out;
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (!impl_->available()) return out;
    const std::string prefix = impl_->options.key_prefix + "v1:";
    std::string cursor = "0";
    do {
        const std::optional<resp::Value> reply = impl_->command({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"});
        if (!reply) return {};
        using Kind = resp::Value::Kind;
        if (reply->kind != Kind::Array || reply->items.size() != 2 || reply->items[0].kind != Kind::Bulk ||
            reply->items[1].kind != Kind::Array) {
            impl_->fault("unexpected reply to SCAN");
            return {};
        }
        cursor = reply->items[0].text;
        for (const resp::Value &key : reply->items[1].items) {
            if (key.kind != Kind::Bulk || key.text.rfind(prefix, 0) != 0) continue;
            const std::string rest = key.text.substr(prefix.size());
            const auto colon = rest.find(':');
            if (colon == 64) out.emplace_back(rest.substr(0, colon), rest.substr(colon + 1));
        }
    } while (cursor != "0");
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

RemoteCacheCounters RemoteCache::counters() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->counters;
}

const RemoteCacheOptions &RemoteCache::options() const { return impl_->options; }

std::string RemoteCache::key(const std::string &hash, const std::string &target) const { return impl_->key(hash, target); }

} // namespace weft
