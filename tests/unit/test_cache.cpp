#include "test_support.hpp"

#include "weft/build/cache.hpp"
#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace weft;
using weft::test::message_of;

namespace fs = std::filesystem;

namespace {

struct TempCache {
    fs::path root;
    std::vector<std::string> log;
    Logger logger{[this](LogLevel, std::string_view, std::string_view m) { log.emplace_back(m); }, "cache"};
    ArtifactCache cache;
    explicit TempCache(const std::string &name)
        : root(fs::temp_directory_path() / ("weft_cache_" + name)), cache((fs::remove_all(root), root), &logger) {}
    ~TempCache() { fs::remove_all(root); }
};

const std::string hash_a = sha256_hex("a");
const std::string hash_b = sha256_hex("b");

std::size_t files_under(const fs::path &dir) {
    std::size_t n = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file()) ++n;
    return n;
}

pid_t spawn(const std::vector<std::string> &args) {
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    REQUIRE(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) == 0);
    return pid;
}

int wait_for(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

TEST_CASE("cache: store then find returns the verified artifact") {
    TempCache t("roundtrip");
    CHECK_FALSE(t.cache.find("physics", hash_a, Target::cpu()));
    const CachedArtifact stored = t.cache.store("physics", hash_a, Target::cpu(), "// generated\n", "OBJECT BYTES");
    CHECK(stored.sha256 == sha256_hex("OBJECT BYTES"));
    const auto hit = t.cache.find("physics", hash_a, Target::cpu());
    REQUIRE(hit);
    CHECK(hit->content == "OBJECT BYTES");
    CHECK(hit->path == stored.path);
    // Named by module and the full-width hash; source and metadata beside the artifact.
    const fs::path dir = t.cache.entry_directory("physics", hash_a);
    CHECK(dir.filename() == "physics-" + hash_a);
    CHECK(dir.parent_path().parent_path() == t.root / "v1");
    CHECK(fs::exists(dir / "module.src"));
    CHECK(fs::exists(dir / "entry.json"));
    CHECK(fs::exists(dir / "artifacts" / "cpu.json"));
    // Another target joins the same entry; another hash is another entry.
    t.cache.store("physics", hash_a, Target::cuda_ptx(90), "// generated\n", "PTX");
    CHECK(t.cache.find("physics", hash_a, Target::cuda_ptx(90))->content == "PTX");
    CHECK_FALSE(t.cache.find("physics", hash_b, Target::cpu()));
    const auto entries = t.cache.list();
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].targets == std::vector<std::string>{"cpu", "cuda-compute_90-ptx"});
    CHECK(entries[0].module == "physics");
    CHECK(t.log.empty());
}

TEST_CASE("cache: only full-width hashes are keys; module names never become paths") {
    TempCache t("keys");
    CHECK_THAT(message_of<UserError>([&] { t.cache.find("m", hash_a.substr(0, 7), Target::cpu()); }),
               Catch::Contains("is not a full-width SHA-256 hex digest"));
    CHECK(t.cache.entry_directory("../../etc/passwd", hash_a).filename() == "_.._.._etc_passwd-" + hash_a);
}

TEST_CASE("cache: a corrupted artifact is detected, reported once, never returned, and rebuilt") {
    TempCache t("corrupt");
    const CachedArtifact stored = t.cache.store("m", hash_a, Target::cpu(), "src", std::string(4096, 'x'));
    SECTION("truncated") { fs::resize_file(stored.path, 100); }
    SECTION("same size, other bytes") {
        std::fstream f(stored.path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(2000);
        f.put('y');
    }
    CHECK_FALSE(t.cache.find("m", hash_a, Target::cpu()));
    REQUIRE(t.log.size() == 1);
    CHECK_THAT(t.log[0], Catch::Contains("cpu.json is corrupt"));
    CHECK_THAT(t.log[0], Catch::Contains("will be rebuilt"));
    CHECK_FALSE(t.cache.find("m", hash_a, Target::cpu()));
    CHECK(t.log.size() == 1); // once
    t.cache.store("m", hash_a, Target::cpu(), "src", std::string(4096, 'x'));
    REQUIRE(t.cache.find("m", hash_a, Target::cpu()));
    CHECK(t.cache.find("m", hash_a, Target::cpu())->content == std::string(4096, 'x'));
}

TEST_CASE("cache: an entry whose metadata names another hash is not a hit") {
    TempCache t("wrong_hash");
    t.cache.store("m", hash_a, Target::cpu(), "src", "bytes");
    const fs::path dir = t.cache.entry_directory("m", hash_a);
    std::ofstream(dir / "entry.json", std::ios::trunc) << "{\"hash\": \"" << hash_b << "\"}";
    CHECK_FALSE(t.cache.find("m", hash_a, Target::cpu()));
    CHECK_THAT(t.log.at(0), Catch::Contains("does not carry the full hash"));
}

TEST_CASE("cache: a stale temporary left by a killed writer is ignored and cleaned") {
    TempCache t("stale");
    // A real process that is gone: its pid names the temporary.
    const pid_t child = fork();
    if (child == 0) _exit(0);
    REQUIRE(child > 0);
    waitpid(child, nullptr, 0);
    const fs::path stale = t.root / "v1" / "tmp" / (".tmp." + std::to_string(child) + ".0.1");
    fs::create_directories(stale / "artifacts");
    std::ofstream(stale / "artifacts" / "cpu.json") << "{half written";
    const fs::path live = t.root / "v1" / "tmp" / (".tmp." + std::to_string(getpid()) + ".999.1");
    fs::create_directories(live);

    CHECK(t.cache.stats().stale_temporaries == 1);
    CHECK(t.cache.list().empty()); // ignored: not an entry
    t.cache.store("m", hash_a, Target::cpu(), "src", "bytes");
    CHECK_FALSE(fs::exists(stale));
    CHECK(fs::exists(live)); // a live writer's temporary is left alone
    CHECK(t.cache.stats().stale_temporaries == 0);
    CHECK(t.cache.find("m", hash_a, Target::cpu())->content == "bytes");
}

TEST_CASE("cache: two processes publishing the same entries at once both succeed, one valid entry each") {
    TempCache t("race");
    const std::string writer = (fs::path(WEFT_TEST_TOOLS_DIR) / "cache_writer").string();
    const fs::path go = t.root / "go";
    fs::create_directories(t.root);
    const int count = 40;
    const pid_t a = spawn({writer, t.root.string(), "raced", std::to_string(count), go.string()});
    const pid_t b = spawn({writer, t.root.string(), "raced", std::to_string(count), go.string()});
    std::ofstream(go) << "go";
    CHECK(wait_for(a) == 0);
    CHECK(wait_for(b) == 0);

    const auto entries = t.cache.list();
    CHECK(entries.size() == static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const std::string h = sha256_hex("entry-" + std::to_string(i));
        const auto hit = t.cache.find("raced", h, Target::cpu());
        REQUIRE(hit);
        CHECK(hit->content.size() == 4096 * 64);
        // One artifact file and its metadata, source and entry.json: nothing half-written left over.
        CHECK(files_under(t.cache.entry_directory("raced", h)) == 4);
    }
    CHECK(files_under(t.root / "v1" / "tmp") == 0);
    CHECK(t.log.empty());
}

TEST_CASE("cache: clear removes everything; stats count it first") {
    TempCache t("clear");
    t.cache.store("a", hash_a, Target::cpu(), "src", "1234");
    t.cache.store("b", hash_b, Target::cpu(), "src", "5678");
    const CacheStats s = t.cache.stats();
    CHECK(s.entries == 2);
    CHECK(s.artifacts == 2);
    CHECK(s.bytes > 8);
    CHECK(t.cache.clear() == 2);
    CHECK(t.cache.list().empty());
    CHECK_FALSE(t.cache.find("a", hash_a, Target::cpu()));
}

TEST_CASE("cache: default root honours WEFT_CACHE_DIR, then XDG_CACHE_HOME, then HOME") {
    const char *old_home = std::getenv("HOME");
    const std::string home = old_home ? old_home : "";
    setenv("WEFT_CACHE_DIR", "/tmp/explicit", 1);
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    CHECK(ArtifactCache::default_root() == "/tmp/explicit");
    unsetenv("WEFT_CACHE_DIR");
    CHECK(ArtifactCache::default_root() == "/tmp/xdg/weft");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/tmp/home", 1);
    CHECK(ArtifactCache::default_root() == "/tmp/home/.cache/weft");
    setenv("HOME", home.c_str(), 1);
    // The Host API overrides the environment.
    HostOptions o = weft::test::test_host_options();
    o.cache_dir = "/tmp/api_cache";
    setenv("WEFT_CACHE_DIR", "/tmp/explicit", 1);
    Host host(o);
    CHECK(host.cache().root() == "/tmp/api_cache/v1");
    unsetenv("WEFT_CACHE_DIR");
}
