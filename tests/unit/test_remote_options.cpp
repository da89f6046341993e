// Remote cache configuration without a server: URLs, the configuration file,
// and a server that is not there.
#include "test_support.hpp"

#include "cache/resp.hpp"
#include "weft/cache/remote_cache.hpp"
#include "weft/support/error.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>

using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

TEST_CASE("remote cache URLs: hosts ports databases and sockets") {
    RemoteAddress a = RemoteAddress::parse("redis://cache.example");
    CHECK(a.host == "cache.example");
    CHECK(a.port == 6379);
    CHECK(a.db == 0);
    a = RemoteAddress::parse("redis://10.0.0.5:7000/3");
    CHECK(a.host == "10.0.0.5");
    CHECK(a.port == 7000);
    CHECK(a.db == 3);
    a = RemoteAddress::parse("redis://[::1]:6380");
    CHECK(a.host == "::1");
    CHECK(a.port == 6380);
    a = RemoteAddress::parse("unix:///run/redis/redis.sock?db=2");
    CHECK(a.socket == "/run/redis/redis.sock");
    CHECK(a.host.empty());
    CHECK(a.db == 2);
}

TEST_CASE("remote cache URLs: mistakes are named") {
    const std::string expected = " (expected redis://HOST[:PORT][/DB] or unix:///PATH[?db=N])";
    CHECK(message_of<UserError>([] { RemoteAddress::parse("http://cache"); }) ==
          "remote cache URL 'http://cache': unknown scheme" + expected);
    CHECK(message_of<UserError>([] { RemoteAddress::parse("redis://user:secret@cache"); }) ==
          "remote cache URL 'redis://user:secret@cache': credentials do not belong in the URL; name an environment "
          "variable that holds the password" + expected);
    CHECK(message_of<UserError>([] { RemoteAddress::parse("redis://cache:99999"); }) ==
          "remote cache URL 'redis://cache:99999': port out of range" + expected);
    CHECK(message_of<UserError>([] { RemoteAddress::parse("redis://cache:http"); }) ==
          "remote cache URL 'redis://cache:http': port 'http' is not a number");
    CHECK(message_of<UserError>([] { RemoteAddress::parse("unix:relative.sock"); }) ==
          "remote cache URL 'unix:relative.sock': the socket path must be absolute" + expected);
}

TEST_CASE("remote cache: a bad URL fails host construction") {
    HostOptions o = test::test_host_options();
    o.remote_cache.url = "redis//nowhere";
    CHECK_THAT(message_of<UserError>([&] { Host h(o); }), Catch::StartsWith("remote cache URL 'redis//nowhere': unknown scheme"));
}

TEST_CASE("remote cache: a refused connection is one error then a back-off") {
    RemoteCacheOptions o;
    o.url = "unix:///nonexistent/weft-test.sock";
    o.timeout = std::chrono::milliseconds(100);
    o.require_signature = false;
    std::vector<std::string> warnings;
    Logger logger([&](LogLevel level, std::string_view, std::string_view m) {
        if (level >= LogLevel::Warning && m.find("accepts unsigned entries") == std::string_view::npos)
            warnings.emplace_back(m);
    });
    RemoteCache remote(o, &logger);
    const std::string hash(64, 'b');
    CHECK_FALSE(remote.fetch("m", hash, Target::cpu()));
    CHECK_FALSE(remote.store("m", hash, Target::cpu(), "source", "artifact"));
    CHECK_FALSE(remote.fetch("m", hash, Target::cpu()));
    const RemoteCacheCounters c = remote.counters();
    CHECK(c.errors == 1);
    CHECK(c.skipped == 2);
    CHECK(c.hits + c.misses + c.stores == 0);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::StartsWith("remote cache unix:///nonexistent/weft-test.sock is unavailable (cannot "
                                              "connect: "));
}

TEST_CASE("remote cache: the configuration file sets every remote option") {
    const fs::path dir = fs::temp_directory_path() / "weft_remote_config";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "weft.toml") << "[cache]\nremote = \"redis://cache:6390/1\"\nremote_read_only = true\n"
                                        "remote_prefix = \"team:\"\nremote_password_env = \"CACHE_PASSWORD\"\n"
                                        "remote_timeout_ms = 250\nremote_backoff_ms = 5000\n"
                                        "remote_max_artifact_bytes = 1000\nremote_require_signature = false\n"
                                        "remote_trusted_keys = \"keys\"\nremote_signing_key = \"/etc/weft/signer.pem\"\n";
    HostOptions o;
    apply_config_file(o, dir / "weft.toml");
    const RemoteCacheOptions &r = o.remote_cache;
    CHECK(r.url == "redis://cache:6390/1");
    CHECK(r.read_only);
    CHECK(r.key_prefix == "team:");
    CHECK(r.password_env == "CACHE_PASSWORD");
    CHECK(r.timeout == std::chrono::milliseconds(250));
    CHECK(r.backoff == std::chrono::milliseconds(5000));
    CHECK(r.max_artifact_bytes == 1000);
    CHECK_FALSE(r.require_signature); // true unless a configuration says otherwise
    CHECK(r.trusted_keys_dir == dir / "keys");
    CHECK(r.signing_key == "/etc/weft/signer.pem");
    std::ofstream(dir / "bad.toml") << "[cache]\nremote_read_only = \"yes\"\n";
    CHECK(message_of<UserError>([&] { apply_config_file(o, dir / "bad.toml"); }) ==
          (dir / "bad.toml").string() + ":2:20: 'cache.remote_read_only' must be true or false");
    fs::remove_all(dir);
}

TEST_CASE("remote reply parser: replies parse the same fed whole or a byte at a time") {
    const std::string reply = "*4\r\n$3\r\nabc\r\n$-1\r\n:42\r\n*2\r\n+OK\r\n$0\r\n\r\n";
    resp::Parser whole;
    REQUIRE(whole.feed(reply) == resp::Parser::State::Done);
    resp::Parser bytes;
    for (std::size_t i = 0; i + 1 < reply.size(); ++i)
        REQUIRE(bytes.feed(std::string_view(&reply[i], 1)) == resp::Parser::State::NeedMore);
    REQUIRE(bytes.feed(std::string_view(&reply.back(), 1)) == resp::Parser::State::Done);
    for (const resp::Parser *p : {&whole, &bytes}) {
        const resp::Value &v = p->value();
        REQUIRE(v.kind == resp::Value::Kind::Array);
        REQUIRE(v.items.size() == 4);
        CHECK(v.items[0].text == "abc");
        CHECK(v.items[1].kind == resp::Value::Kind::Nil);
        CHECK(v.items[2].integer == 42);
        CHECK(v.items[3].items[0].text == "OK");
        CHECK(v.items[3].items[1].kind == resp::Value::Kind::Bulk);
        CHECK(v.items[3].items[1].text.empty());
        CHECK(p->trailing_bytes() == 0);
    }
    CHECK(resp::encode({"HGET", "k", ""}) == "*3\r\n$4\r\nHGET\r\n$1\r\nk\r\n$0\r\n\r\n");
}

TEST_CASE("remote reply parser: sizes are refused from the header, before the bytes arrive") {
    resp::Limits limits;
    limits.max_bulk = 1000;
    limits.max_total = 1500;
    resp::Parser big(limits);
    // 2 GB announced: refused at once, with nothing of it buffered.
    CHECK(big.feed("*10\r\n$2147483648\r\n") == resp::Parser::State::Failed);
    CHECK(big.error() == "the server announced a field of 2147483648 bytes, more than the limit of 1000");
    resp::Parser total(limits);
    CHECK(total.feed("*2\r\n$900\r\n" + std::string(900, 'x') + "\r\n$900\r\n") == resp::Parser::State::Failed);
    CHECK(total.error() == "the server announced replies of 1800 bytes in all, more than the limit of 1500");
    resp::Parser deep(limits);
    CHECK(deep.feed("*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n") == resp::Parser::State::Failed);
    CHECK(deep.error() == "the server sent arrays nested deeper than 4");
    resp::Parser many(limits);
    CHECK(many.feed("*99999999999\r\n") == resp::Parser::State::Failed);
    resp::Parser garbage(limits);
    CHECK(garbage.feed("HTTP/1.1 400 Bad Request\r\n") == resp::Parser::State::Failed);
    CHECK(garbage.error() == "the server sent a reply that does not start with a RESP type (0x48)");
    resp::Parser endless(limits);
    CHECK(endless.feed("+" + std::string(70000, 'x')) == resp::Parser::State::Failed);
    resp::Parser pending(limits);
    CHECK(pending.feed("$10\r\nabc") == resp::Parser::State::NeedMore);
    CHECK(pending.announced_bytes() == 10);
    CHECK(pending.feed("defghij\r\n") == resp::Parser::State::Done);
    CHECK(pending.value().text == "abcdefghij");
    resp::Parser unterminated(limits);
    CHECK(unterminated.feed("$3\r\nabcXY") == resp::Parser::State::Failed);
}
