// The shared artifact cache against a real redis-server per test: hosts with
// separate local caches share it, faults fall back to compiling, tampered and
// unsigned entries are rejected, read-only clients never write.
#include "redis_server.hpp"

#include "weft/cache/cache_counters.hpp"
#include "weft/cache/remote_cache.hpp"
#include "weft/host/host.hpp"
#include "weft/runtime/array.hpp"
#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/socket.h>

using namespace weft;
using weft::test::RedisServer;
namespace fs = std::filesystem;

namespace {

const char *const saxpy_source = R"(
import warp as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float), alpha: float):
    i = wp.tid()
    out[i] = alpha * x[i] + y[i]
)";

/// A scratch directory per test, for the local caches.
struct Scratch {
    fs::path root;
    explicit Scratch(const std::string &name) : root(fs::temp_directory_path() / ("weft_remote_" + name)) {
        fs::remove_all(root);
        fs::create_directories(root);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
};

/// Warnings a host logged.
struct Log {
    std::vector<std::string> warnings;
    LogSink sink() {
        return [this](LogLevel level, std::string_view, std::string_view message) {
            if (level >= LogLevel::Warning && message.find("accepts unsigned entries") == std::string_view::npos)
                warnings.emplace_back(message);
        };
    }
    std::size_t count(const std::string &fragment) const {
        return static_cast<std::size_t>(std::count_if(warnings.begin(), warnings.end(), [&](const std::string &w) {
            return w.find(fragment) != std::string::npos;
        }));
    }
};

HostOptions options(const fs::path &cache, const std::string &url, Log *log = nullptr) {
    HostOptions o;
    o.use_environment = false;
    o.cache_dir = cache;
    o.quiet = true;
    o.remote_cache.url = url;
    o.remote_cache.timeout = std::chrono::milliseconds(300);
    // What these tests check is not signatures (one test below is): unsigned
    // entries accepted, and the warning that says so is not counted.
    o.remote_cache.require_signature = false;
    if (log) o.log_sink = log->sink();
    return o;
}

/// Loads saxpy (under `name`) and checks that it computes 2x + y.
void load_and_run(Host &host, const std::string &name = "saxpy") {
    CompiledModule m = host.load_module_source(name, saxpy_source);
    const Type f32 = Type::scalar(Scalar::Float32);
    const std::int64_t n = 1000;
    std::vector<float> xs(n), ys(n);
    for (std::int64_t i = 0; i < n; ++i) {
        xs[i] = static_cast<float>(i);
        ys[i] = 1.0f;
    }
    Array x = Array::from_vector(f32, xs), y = Array::from_vector(f32, ys), out = Array::zeros(f32, {n});
    m.kernel("saxpy").launch({n}, {x, y, out, 2.0f});
    const std::vector<float> result = out.to_vector<float>();
    REQUIRE(result.size() == static_cast<std::size_t>(n));
    CHECK(result[0] == 1.0f);
    CHECK(result[999] == 1999.0f);
}

/// The one key the remote holds after one module was stored.
std::string only_key(RedisServer &redis) {
    REQUIRE(redis.command({"DBSIZE"}) == "1");
    return redis.command({"RANDOMKEY"});
}

void make_key(const fs::path &dir, const std::string &name) {
    fs::create_directories(dir / "trusted");
    const std::string key = (dir / (name + ".pem")).string();
    const std::string cmd = "openssl genpkey -algorithm ed25519 -out '" + key + "' 2>/dev/null && openssl pkey -in '" +
                            key + "' -pubout -out '" + (dir / "trusted" / (name + ".pem")).string() + "' 2>/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
}

} // namespace

TEST_CASE("remote cache: a second host with its own local cache compiles nothing") {
    RedisServer redis;
    Scratch scratch("shared");
    {
        Host first(options(scratch.root / "a", redis.url()));
        load_and_run(first);
        const CacheCounters c = first.cache_counters();
        CHECK(c.compiles == 1);
        CHECK(c.remote.misses == 1);
        CHECK(c.remote.stores == 1);
    }
    CHECK(redis.command({"DBSIZE"}) == "1");
    {
        Host second(options(scratch.root / "b", redis.url()));
        load_and_run(second);
        const CacheCounters c = second.cache_counters();
        CHECK(c.compiles == 0);
        CHECK(c.local_misses == 1);
        CHECK(c.remote.hits == 1);
        CHECK(c.remote.stores == 0);
    }
    {
        // What the remote gave is now local: a third host on b's cache never asks the remote.
        Host third(options(scratch.root / "b", redis.url()));
        load_and_run(third);
        const CacheCounters c = third.cache_counters();
        CHECK(c.local_hits == 1);
        CHECK(c.compiles == 0);
        CHECK(c.remote.hits + c.remote.misses == 0);
    }
    // Each host added its counts to its local cache's stats.json (`weft cache stats`).
    const CacheCounters b = read_cache_counters(ArtifactCache(scratch.root / "b"));
    CHECK(b.local_hits == 1);
    CHECK(b.remote.hits == 1);
    CHECK(b.compiles == 0);
    CHECK(read_cache_counters(ArtifactCache(scratch.root / "a")).compiles == 1);
}

TEST_CASE("remote cache: killing the server mid-run never fails a load and warns once") {
    RedisServer redis;
    Scratch scratch("killed");
    Log log;
    HostOptions o = options(scratch.root / "a", redis.url(), &log);
    Host host(o);
    load_and_run(host, "first");
    CHECK(host.cache_counters().remote.stores == 1);
    redis.stop();
    load_and_run(host, "second"); // compiled: the remote is gone
    load_and_run(host, "third");  // compiled without trying the remote: backing off
    const CacheCounters c = host.cache_counters();
    CHECK(c.compiles == 3);
    CHECK(c.remote.errors == 1);
    CHECK(c.remote.skipped == 3); // third's fetch and store, ... and second's store after its failed fetch
    Host other(options(scratch.root / "b", o.remote_cache.url, &log));
    load_and_run(other, "fourth");
    CHECK(other.cache_counters().remote.errors == 1);
    CHECK(log.count("is unavailable") == 1); // once per process
    CHECK(log.count("(this warning is shown once per process)") == 1);
}

TEST_CASE("remote cache: a server that accepts but never answers costs one timeout") {
    // A listening socket nobody accepts on: connecting succeeds, replies never come.
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listener >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0);
    REQUIRE(::listen(listener, 16) == 0);
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length) == 0);
    RemoteCacheOptions o;
    o.require_signature = false;
    o.url = "redis://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
    o.timeout = std::chrono::milliseconds(200);
    Logger quiet([](LogLevel, std::string_view, std::string_view) {}, "");
    RemoteCache remote(o, &quiet);
    const std::string hash(64, 'a');
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(remote.fetch("m", hash, Target::cpu()));
    CHECK_FALSE(remote.fetch("m", hash, Target::cpu())); // backing off: not tried
    const auto elapsed = std::chrono::steady_clock::now() - start;
    CHECK(elapsed >= std::chrono::milliseconds(150));
    CHECK(elapsed < std::chrono::milliseconds(2000));
    CHECK(remote.counters().errors == 1);
    CHECK(remote.counters().skipped == 1);
    ::close(listener);
}

TEST_CASE("remote cache: a tampered artifact is rejected and compiled locally") {
    RedisServer redis;
    Scratch scratch("tampered");
    {
        Host writer(options(scratch.root / "a", redis.url()));
        load_and_run(writer);
    }
    const std::string key = only_key(redis);
    std::string artifact = redis.command({"HGET", key, "artifact"});
    REQUIRE(artifact.size() > 100);
    artifact[artifact.size() / 2] = static_cast<char>(artifact[artifact.size() / 2] ^ 0x40);
    redis.command({"HSET", key, "artifact", artifact});
    {
        Log log;
        Host reader(options(scratch.root / "b", redis.url(), &log));
        load_and_run(reader);
        const CacheCounters c = reader.cache_counters();
        CHECK(c.remote.rejected == 1);
        CHECK(c.remote.hits == 0);
        CHECK(c.compiles == 1);
        CHECK(c.remote.stores == 1); // the good artifact replaces the bad one
        REQUIRE(log.warnings.size() == 1);
        CHECK_THAT(log.warnings[0], Catch::StartsWith("remote cache entry " + key + " is discarded (the artifact's sha256 "));
        CHECK_THAT(log.warnings[0], Catch::EndsWith("); the module is compiled locally"));
    }
    // Metadata that does not match what was asked for is rejected the same way.
    redis.command({"HSET", key, "module", "someone_else"});
    {
        Log log;
        Host reader(options(scratch.root / "c", redis.url(), &log));
        load_and_run(reader);
        CHECK(reader.cache_counters().remote.rejected == 1);
        REQUIRE(log.warnings.size() == 1);
        CHECK_THAT(log.warnings[0], Catch::Contains("(the entry is for module 'someone_else' "));
    }
    // A source that is not the module's (its digest made to match) is rejected too.
    {
        Host repair(options(scratch.root / "e", redis.url()));
        load_and_run(repair); // restores the good entry
    }
    const std::string forged = "// not saxpy\n";
    redis.command({"HSET", key, "source", forged, "source_sha256", sha256_hex(forged)});
    {
        Log log;
        Host reader(options(scratch.root / "f", redis.url(), &log));
        load_and_run(reader);
        CHECK(reader.cache_counters().remote.rejected == 1);
        REQUIRE(log.warnings.size() == 1);
        CHECK_THAT(log.warnings[0], Catch::Contains("(the entry's source is not the module's generated source)"));
    }
    Host fresh(options(scratch.root / "d", redis.url()));
    load_and_run(fresh);
    CHECK(fresh.cache_counters().remote.hits == 1); // repaired by the last compile
}

TEST_CASE("remote cache: a read-only client never writes") {
    RedisServer redis;
    Scratch scratch("read_only");
    HostOptions o = options(scratch.root / "a", redis.url());
    o.remote_cache.read_only = true;
    {
        Host reader(o);
        load_and_run(reader);
        const CacheCounters c = reader.cache_counters();
        CHECK(c.compiles == 1);
        CHECK(c.remote.misses == 1);
        CHECK(c.remote.stores == 0);
    }
    CHECK(redis.command({"DBSIZE"}) == "0");
    const std::string commands = redis.command({"INFO", "commandstats"});
    CHECK(commands.find("cmdstat_hset") == std::string::npos);
    CHECK(commands.find("cmdstat_del") == std::string::npos);
    CHECK(commands.find("cmdstat_hmget") != std::string::npos);
    // It still reads what a writer stored.
    {
        Host writer(options(scratch.root / "w", redis.url()));
        load_and_run(writer, "other");
    }
    Host reader(o);
    load_and_run(reader, "other");
    CHECK(reader.cache_counters().remote.hits == 1);
}

TEST_CASE("remote cache: required signatures admit entries of trusted writers only") {
    RedisServer redis;
    Scratch scratch("signed");
    make_key(scratch.root, "writer");
    HostOptions reader_options = options(scratch.root / "r1", redis.url());
    reader_options.remote_cache.require_signature = true;
    reader_options.remote_cache.trusted_keys_dir = scratch.root / "trusted";
    {
        Host unsigned_writer(options(scratch.root / "w1", redis.url()));
        load_and_run(unsigned_writer);
    }
    {
        Log log;
        HostOptions o = reader_options;
        o.log_sink = log.sink();
        Host reader(o);
        load_and_run(reader);
        CHECK(reader.cache_counters().remote.rejected == 1);
        REQUIRE(log.warnings.size() == 1);
        CHECK_THAT(log.warnings[0], Catch::Contains("(the entry is not signed, and this cache requires signatures)"));
    }
    {
        HostOptions o = options(scratch.root / "w2", redis.url());
        o.remote_cache.signing_key = scratch.root / "writer.pem";
        Host signed_writer(o);
        load_and_run(signed_writer, "signed_saxpy");
    }
    reader_options.cache_dir = scratch.root / "r2";
    Host reader(reader_options);
    load_and_run(reader, "signed_saxpy");
    CHECK(reader.cache_counters().remote.hits == 1);
    CHECK(reader.cache_counters().compiles == 0);
}

TEST_CASE("remote cache: an artifact over the size limit stays local with a clear message") {
    RedisServer redis;
    Scratch scratch("too_large");
    Log log;
    HostOptions o = options(scratch.root / "a", redis.url(), &log);
    o.remote_cache.max_artifact_bytes = 64;
    Host host(o);
    load_and_run(host);
    CHECK(host.cache_counters().remote.too_large == 1);
    CHECK(redis.command({"DBSIZE"}) == "0");
    REQUIRE(log.warnings.size() == 1);
    CHECK_THAT(log.warnings[0], Catch::StartsWith("artifact of module 'saxpy' for cpu is "));
    CHECK_THAT(log.warnings[0], Catch::EndsWith(" bytes, more than the remote cache limit of 64 (max_artifact_bytes); "
                                                "it is kept in the local cache only"));
}

TEST_CASE("remote cache: list and fetch_listed see what was stored") {
    RedisServer redis;
    Scratch scratch("list");
    {
        Host writer(options(scratch.root / "a", redis.url()));
        load_and_run(writer);
    }
    RemoteCacheOptions o;
    o.require_signature = false;
    o.url = redis.url();
    RemoteCache remote(o);
    const auto listed = remote.list();
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].first.size() == 64);
    CHECK(listed[0].second == "cpu");
    const auto fetched = remote.fetch_listed(listed[0].first, listed[0].second);
    REQUIRE(fetched);
    CHECK(fetched->module == "saxpy");
    CHECK(fetched->source.find("saxpy") != std::string::npos);
    CHECK(remote.key(listed[0].first, "cpu") == "weft:v1:" + listed[0].first + ":cpu");
}

namespace {

/// A server on loopback that answers one command with what `reply` writes:
/// what a hostile or broken remote does, which no real redis-server will.
class HostileServer {
public:
    explicit HostileServer(std::function<void(int fd)> reply) {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(listener_, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0);
        REQUIRE(::listen(listener_, 4) == 0);
        socklen_t length = sizeof address;
        REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr *>(&address), &length) == 0);
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this, reply = std::move(reply)] {
            pollfd p{listener_, POLLIN, 0};
            if (::poll(&p, 1, 5000) != 1) return;
            const int fd = ::accept(listener_, nullptr, nullptr);
            if (fd < 0) return;
            char buffer[4096];
            if (::recv(fd, buffer, sizeof buffer, 0) > 0) reply(fd);
            ::close(fd);
        });
    }
    ~HostileServer() {
        stop = true;
        thread_.join();
        ::close(listener_);
    }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
    std::atomic<bool> stop{false};

private:
    int listener_ = -1;
    int port_ = 0;
    std::thread thread_;
};

} // namespace

TEST_CASE("remote cache: a server trickling its reply costs the command's deadline, not forever") {
    // One byte every 100 ms: each read comes within any per-read timeout,
    // and the reply never ends. The timeout bounds the whole command.
    HostileServer server([&server](int fd) {
        const std::string reply = "*10\r\n$6\r\nmodule\r\n";
        for (int i = 0; !server.stop && i < 600; ++i) {
            if (::send(fd, &reply[static_cast<std::size_t>(i) % reply.size()], 1, MSG_NOSIGNAL) != 1) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });
    RemoteCacheOptions o;
    o.require_signature = false;
    o.url = server.url();
    o.timeout = std::chrono::milliseconds(300);
    std::vector<std::string> messages;
    Logger logger(
        [&](LogLevel, std::string_view, std::string_view m) {
            if (m.find("accepts unsigned entries") == std::string_view::npos) messages.emplace_back(m);
        },
        "cache");
    RemoteCache remote(o, &logger);
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(remote.fetch("m", std::string(64, 'a'), Target::cpu()));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    CHECK(elapsed >= std::chrono::milliseconds(250));
    CHECK(elapsed < std::chrono::milliseconds(1500));
    CHECK(remote.counters().errors == 1);
    REQUIRE(messages.size() == 1);
    CHECK_THAT(messages[0], Catch::Contains("HMGET: no complete reply within the command's deadline of 300 ms"));
}

TEST_CASE("remote cache: a 2 GB field is refused from its header, without reading it") {
    HostileServer server([&server](int fd) {
        const std::string header = "*10\r\n$2147483648\r\n";
        if (::send(fd, header.data(), header.size(), MSG_NOSIGNAL) < 0) return;
        const std::string junk(1 << 20, 'x'); // as much as the client will take, until it hangs up
        for (int i = 0; !server.stop && i < 2048; ++i)
            if (::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL) < 0) return;
    });
    RemoteCacheOptions o;
    o.require_signature = false;
    o.url = server.url();
    o.timeout = std::chrono::milliseconds(2000);
    std::vector<std::string> messages;
    Logger logger(
        [&](LogLevel, std::string_view, std::string_view m) {
            if (m.find("accepts unsigned entries") == std::string_view::npos) messages.emplace_back(m);
        },
        "cache");
    RemoteCache remote(o, &logger);
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(remote.fetch("m", std::string(64, 'a'), Target::cpu()));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1000));
    REQUIRE(messages.size() == 1);
    CHECK_THAT(messages[0], Catch::Contains("HMGET: the server announced a field of 2147483648 bytes, more than the "
                                            "limit of 67108864"));
}

TEST_CASE("remote cache: signatures are required by default, and accepting unsigned entries is a warning") {
    RemoteCacheOptions o;
    o.url = "redis://127.0.0.1:1";
    std::vector<std::string> warnings;
    Logger logger([&](LogLevel level, std::string_view, std::string_view m) {
        if (level >= LogLevel::Warning) warnings.emplace_back(m);
    });
    {
        RemoteCache remote(o, &logger);
        REQUIRE(warnings.size() == 1);
        CHECK_THAT(warnings[0], Catch::StartsWith("remote cache redis://127.0.0.1:1: its entries must be signed by a "
                                                  "trusted key, and no trusted keys directory is named, so nothing is "
                                                  "fetched from it"));
        // Not even tried: nothing it could return would be accepted.
        CHECK_FALSE(remote.fetch("m", std::string(64, 'a'), Target::cpu()));
        CHECK(remote.counters().skipped == 1);
        CHECK(remote.counters().errors == 0);
    }
    warnings.clear();
    o.require_signature = false;
    RemoteCache remote(o, &logger);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "remote cache redis://127.0.0.1:1 accepts unsigned entries (require_signature is false): "
                         "anyone who can write to the server can choose code this host runs; require signatures by "
                         "trusted keys for a cache that others write to");
}

TEST_CASE("remote cache: a field announced large and then trickled gets no more time than a small one") {
    HostileServer server([&server](int fd) {
        const std::string header = "*10\r\n$60000000\r\n"; // under the 64 MiB limit: accepted, then awaited
        if (::send(fd, header.data(), header.size(), MSG_NOSIGNAL) < 0) return;
        for (int i = 0; !server.stop && i < 600; ++i) {
            if (::send(fd, "x", 1, MSG_NOSIGNAL) != 1) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });
    RemoteCacheOptions o;
    o.require_signature = false;
    o.url = server.url();
    o.timeout = std::chrono::milliseconds(300);
    Logger quiet([](LogLevel, std::string_view, std::string_view) {}, "");
    RemoteCache remote(o, &quiet);
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(remote.fetch("m", std::string(64, 'a'), Target::cpu()));
    // Announcing 60 MB once bought the reader 1.8 s more; now only bytes that arrive count.
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1200));
    CHECK(remote.counters().errors == 1);
}
