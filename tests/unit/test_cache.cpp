#include "test_support.hpp"

#include "weft/cache/cache.hpp"
#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <set>

#include <fcntl.h>
#include <linux/fs.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

pid_t spawn(const std::vector<std::string> &args, const std::vector<std::string> &extra_env = {}) {
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char *> envp;
    for (char **e = environ; *e; ++e) envp.push_back(*e);
    for (const std::string &e : extra_env) envp.push_back(const_cast<char *>(e.c_str()));
    envp.push_back(nullptr);
    pid_t pid = 0;
    REQUIRE(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()) == 0);
    return pid;
}

/// The pid of a process that has exited: it names a dead writer's temporary.
pid_t dead_pid() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    REQUIRE(child > 0);
    waitpid(child, nullptr, 0);
    return child;
}

/// Makes a directory's contents impossible to remove while it lives: no write
/// permission for a normal user, the immutable flag for root (who ignores
/// permissions). `ok` is false where neither works.
struct Unremovable {
    fs::path dir;
    bool immutable = false;
    bool ok = false;
    explicit Unremovable(fs::path d) : dir(std::move(d)) {
        fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
        if (access(dir.c_str(), W_OK) != 0) {
            ok = true;
            return;
        }
        immutable = set_immutable(true);
        ok = immutable;
    }
    ~Unremovable() {
        if (immutable) set_immutable(false);
        fs::permissions(dir, fs::perms::owner_all);
    }
    bool set_immutable(bool on) const {
        const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
        if (fd < 0) return false;
        int flags = 0;
        bool done = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
        flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
        done = done && ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
        close(fd);
        return done;
    }
};

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

TEST_CASE("cache: an entry that cannot be read right now is a miss and is never removed") {
    TempCache t("unreadable");
    t.cache.store("physics", hash_a, Target::cpu(), "// generated\n", "OBJECT BYTES");
    const fs::path dir = t.cache.entry_directory("physics", hash_a);
    // Out of file descriptors (EMFILE): entry.json cannot be opened, but is fine.
    // A low soft limit keeps the starved stretch short, and no assertion runs in it.
    rlimit saved{};
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
    rlimit low = saved;
    low.rlim_cur = std::min<rlim_t>(saved.rlim_cur, 256);
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
    std::vector<int> held;
    held.reserve(256);
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held.push_back(fd);
    const int open_errno = errno;
    const auto miss = t.cache.find("physics", hash_a, Target::cpu());
    for (int fd : held) ::close(fd);
    ::setrlimit(RLIMIT_NOFILE, &saved);
    REQUIRE(open_errno == EMFILE);
    CHECK_FALSE(miss);
    REQUIRE(t.log.size() == 1);
    CHECK_THAT(t.log[0], Catch::Contains("cannot be read (entry.json cannot be opened: Too many open files); it is a miss "
                                         "and is left as it is"));
    // Nothing was removed: with descriptors back, the same entry hits.
    CHECK(fs::exists(dir / "entry.json"));
    const auto hit = t.cache.find("physics", hash_a, Target::cpu());
    REQUIRE(hit);
    CHECK(hit->content == "OBJECT BYTES");
}

TEST_CASE("cache: only full-width hashes are keys, module names never become paths") {
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

TEST_CASE("cache: an artifact copied with its metadata from another entry is damaged, not another module's code") {
    TempCache t("substituted");
    const CachedArtifact s1 = t.cache.store("s1", hash_a, Target::cpu(), "src1", "CODE OF S1");
    const CachedArtifact s2 = t.cache.store("s2", hash_b, Target::cpu(), "src2", "CODE OF S2");
    // The substitution: s2's artifact and metadata in place of s1's.
    fs::remove(s1.path);
    fs::copy_file(s2.path, s1.path.parent_path() / s2.path.filename());
    fs::copy_file(s2.path.parent_path() / "cpu.json", s1.path.parent_path() / "cpu.json",
                  fs::copy_options::overwrite_existing);
    const std::string problem = "metadata records module hash " + hash_b + ", not this entry's " + hash_a +
                                " (an artifact from another entry)";
    const CacheReport report = t.cache.verify(false);
    REQUIRE(report.findings.size() == 1);
    CHECK(report.findings[0].path == s1.path.parent_path() / "cpu.json");
    CHECK(report.findings[0].problem == problem);
    CHECK_FALSE(t.cache.find("s1", hash_a, Target::cpu()));
    REQUIRE(t.log.size() == 1);
    CHECK_THAT(t.log[0], Catch::Contains("cpu.json is corrupt (" + problem + ")"));
    CHECK(t.cache.find("s2", hash_b, Target::cpu())->content == "CODE OF S2");
    // The rebuild stores s1's own code again.
    t.cache.store("s1", hash_a, Target::cpu(), "src1", "CODE OF S1");
    CHECK(t.cache.find("s1", hash_a, Target::cpu())->content == "CODE OF S1");
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

TEST_CASE("cache: clear removes everything, stats count it first") {
    TempCache t("clear");
    t.cache.store("a", hash_a, Target::cpu(), "src", "1234");
    t.cache.store("b", hash_b, Target::cpu(), "src", "5678");
    const CacheStats s = t.cache.stats();
    CHECK(s.entries == 2);
    CHECK(s.artifacts == 2);
    CHECK(s.bytes > 8);
    const CacheClearResult c = t.cache.clear();
    CHECK(c.entries_removed == 2);
    CHECK(c.other_removed == 0);
    CHECK(c.failures.empty());
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

TEST_CASE("cache: an entry.json that is not a regular file is reported, never read, and clearable") {
    TempCache t("entry_json_kind");
    t.cache.store("a", hash_a, Target::cpu(), "src", "1234");
    t.cache.store("b", hash_b, Target::cpu(), "src", "5678");
    const fs::path dir = t.cache.entry_directory("a", hash_a);
    fs::remove(dir / "entry.json");
    std::string problem;
    SECTION("a directory") {
        fs::create_directories(dir / "entry.json");
        problem = "entry.json is a directory, not a regular file";
    }
    SECTION("a FIFO: reading must not block") {
        REQUIRE(mkfifo((dir / "entry.json").c_str(), 0600) == 0);
        problem = "entry.json is a FIFO, not a regular file";
    }
    SECTION("over the size limit") {
        std::ofstream(dir / "entry.json") << std::string(ArtifactCache::metadata_limit + 1, ' ');
        problem = "entry.json is 65537 bytes, more than the limit of 65536";
    }
    const CacheReport r = t.cache.scan();
    REQUIRE(r.entries.size() == 1);
    CHECK(r.entries[0].module == "b");
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].path == dir);
    CHECK(r.findings[0].problem == problem);
    const CacheStats s = t.cache.stats();
    CHECK(s.entries == 1);
    CHECK(s.artifacts == 1);
    CHECK(s.damaged == 1);
    CHECK_FALSE(t.cache.find("a", hash_a, Target::cpu()));
    REQUIRE(t.log.size() == 1);
    CHECK_THAT(t.log[0], Catch::Contains(dir.string() + " is damaged (" + problem + ")"));

    const CacheClearResult c = t.cache.clear();
    CHECK(c.entries_removed == 1);
    CHECK(c.other_removed == 1);
    CHECK(c.failures.empty());
    CHECK_FALSE(fs::exists(t.root / "v1" / "entries"));
}

TEST_CASE("cache: a damaged entry is a miss once, and the next store replaces it so the lookup after hits") {
    TempCache t("heal");
    t.cache.store("m", hash_a, Target::cpu(), "src", "bytes");
    const fs::path dir = t.cache.entry_directory("m", hash_a);
    const fs::path outside = t.root / "outside";
    SECTION("entry.json missing") { fs::remove(dir / "entry.json"); }
    SECTION("entry.json truncated") { fs::resize_file(dir / "entry.json", 10); }
    SECTION("entry.json a directory") {
        fs::remove(dir / "entry.json");
        fs::create_directories(dir / "entry.json");
    }
    SECTION("the entry a symbolic link: replaced, its target left alone") {
        fs::rename(dir, outside);
        fs::create_directory_symlink(outside, dir);
    }
    CHECK_FALSE(t.cache.find("m", hash_a, Target::cpu()));
    REQUIRE(t.log.size() == 1);
    CHECK_THAT(t.log[0], Catch::Contains("is damaged"));

    t.cache.store("m", hash_a, Target::cpu(), "src", "bytes");
    REQUIRE(t.log.size() == 2);
    CHECK_THAT(t.log[1], Catch::StartsWith("replacing damaged entry " + dir.string()));
    const auto hit = t.cache.find("m", hash_a, Target::cpu());
    REQUIRE(hit);
    CHECK(hit->content == "bytes");
    CHECK(t.log.size() == 2); // healed: the lookup after the store says nothing
    CHECK(fs::symlink_status(dir).type() == fs::file_type::directory);
    CHECK(t.cache.verify(false).findings.empty());
    CHECK(files_under(t.root / "v1" / "tmp") == 0); // the damaged entry was moved aside and removed
    if (fs::exists(outside)) CHECK(fs::exists(outside / "entry.json"));
}

TEST_CASE("cache: list and stats count only well-formed entries, temporaries are counted apart") {
    TempCache t("strays");
    t.cache.store("a", hash_a, Target::cpu(), "src", "1234");
    t.cache.store("b", hash_b, Target::cpu(), "src", "5678");
    const pid_t dead = dead_pid();
    const fs::path entries = t.root / "v1" / "entries";
    std::ofstream(entries / "README.txt") << "not an entry";
    fs::create_directories(entries / "random-dir");
    // A writer killed while adding a target to an existing entry leaves its temporary beside the artifacts.
    const fs::path half = t.cache.entry_directory("a", hash_a) / "artifacts" /
                          (".tmp." + std::to_string(dead) + ".0.1.cuda-compute_90-ptx.json");
    std::ofstream(half) << "{half";
    const fs::path staging = t.root / "v1" / "tmp" / (".tmp." + std::to_string(dead) + ".3.1");
    fs::create_directories(staging);

    const CacheReport r = t.cache.scan();
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[0].targets == std::vector<std::string>{"cpu"});
    CHECK(r.entries[1].targets == std::vector<std::string>{"cpu"});
    REQUIRE(r.findings.size() == 2);
    CHECK(r.findings[0].path == entries / "README.txt");
    CHECK_THAT(r.findings[0].problem, Catch::Contains("a regular file that is not a cache entry"));
    CHECK(r.findings[1].path == entries / "random-dir");
    std::set<fs::path> temporaries;
    for (const CacheTemporary &tmp : r.temporaries) {
        CHECK(tmp.stale);
        temporaries.insert(tmp.path);
    }
    CHECK(temporaries == std::set<fs::path>{half, staging});

    const CacheStats s = t.cache.stats();
    CHECK(s.entries == 2);
    CHECK(s.artifacts == 2);
    CHECK(s.damaged == 2);
    CHECK(s.temporaries == 2);
    CHECK(s.stale_temporaries == 2);
    CHECK(t.cache.list().size() == 2);
}

TEST_CASE("cache: a symbolic link in entries/ is reported, never followed, and clear removes only the link") {
    TempCache t("symlink");
    t.cache.store("a", hash_a, Target::cpu(), "src", "1234");
    // A complete-looking entry outside the cache, linked in under a valid entry name.
    const fs::path outside = t.root / "outside";
    fs::copy(t.cache.entry_directory("a", hash_a), outside, fs::copy_options::recursive);
    std::ofstream(outside / "entry.json", std::ios::trunc) << "{\"module\": \"x\", \"hash\": \"" << hash_b << "\"}";
    const fs::path link = t.cache.entry_directory("x", hash_b);
    fs::create_directory_symlink(outside, link);

    const CacheReport r = t.cache.scan();
    REQUIRE(r.entries.size() == 1);
    CHECK(r.entries[0].module == "a");
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].path == link);
    CHECK(r.findings[0].problem == "is a symbolic link (not followed)");
    CHECK_FALSE(t.cache.find("x", hash_b, Target::cpu()));

    const CacheClearResult c = t.cache.clear();
    CHECK(c.entries_removed == 1);
    CHECK(c.other_removed == 1);
    CHECK(fs::symlink_status(link).type() == fs::file_type::not_found);
    CHECK(fs::exists(outside / "entry.json"));
}

TEST_CASE("cache: clear counts what it removed and reports what it could not remove") {
    TempCache t("clear_counts");
    t.cache.store("a", hash_a, Target::cpu(), "src", "1234");
    t.cache.store("b", hash_b, Target::cpu(), "src", "5678");
    std::ofstream(t.root / "v1" / "entries" / "stray.txt") << "not an entry";
    const fs::path b = t.cache.entry_directory("b", hash_b);
    Unremovable lock(b / "artifacts");
    const CacheClearResult c = t.cache.clear();
    CHECK(c.other_removed == 1);
    if (!lock.ok) {
        WARN("no way to make a directory unremovable here: the failure half is not exercised");
        CHECK(c.entries_removed == 2);
        return;
    }
    CHECK(c.entries_removed == 1);
    REQUIRE(c.failures.size() == 1);
    CHECK(c.failures[0].path == b);
    CHECK(c.failures[0].action == CacheFinding::Action::Failed);
    CHECK_THAT(c.failures[0].problem, Catch::StartsWith("cannot remove: "));
    CHECK(fs::exists(b / "artifacts"));
}

TEST_CASE("cache: verify checks every artifact's size and digest and the source, dry run only reports") {
    TempCache t("verify");
    const std::string h_good = sha256_hex("good"), h_flip = sha256_hex("flip"), h_gone = sha256_hex("gone"),
                      h_meta = sha256_hex("meta"), h_src = sha256_hex("src");
    t.cache.store("good", h_good, Target::cpu(), "src", "GOOD");
    const CachedArtifact flip = t.cache.store("flip", h_flip, Target::cpu(), "src", "AAAA");
    std::ofstream(flip.path, std::ios::trunc) << "AAAB"; // same size, other bytes: only the digest tells
    const CachedArtifact gone = t.cache.store("gone", h_gone, Target::cpu(), "src", "GONE");
    fs::remove(gone.path);
    const CachedArtifact meta = t.cache.store("meta", h_meta, Target::cpu(), "src", "META");
    std::ofstream(meta.path.parent_path() / "cpu.json", std::ios::trunc) << "{";
    t.cache.store("src", h_src, Target::cpu(), "src", "SRC");
    std::ofstream(t.cache.entry_directory("src", h_src) / "module.src", std::ios::trunc) << "edited";
    const fs::path stale = t.root / "v1" / "tmp" / (".tmp." + std::to_string(dead_pid()) + ".0.1");
    fs::create_directories(stale);

    const auto check_findings = [&](const CacheReport &r, CacheFinding::Action action) {
        REQUIRE(r.findings.size() == 4);
        std::map<fs::path, std::string> problems;
        for (const CacheFinding &f : r.findings) {
            CHECK(f.action == action);
            problems[f.path] = f.problem;
        }
        CHECK_THAT(problems[flip.path.parent_path() / "cpu.json"], Catch::StartsWith("sha256 " + sha256_hex("AAAB")));
        CHECK(problems[gone.path.parent_path() / "cpu.json"] == "artifact file missing");
        CHECK(problems[meta.path.parent_path() / "cpu.json"] == "metadata is not valid JSON (truncated?)");
        CHECK_THAT(problems[t.cache.entry_directory("src", h_src)],
                   Catch::StartsWith("module.src has sha256 " + sha256_hex("edited")));
        CHECK(r.artifacts_checked == 4);
        // The stale staging folder, and the artifact the broken metadata named, which waits out
        // the grace period (a writer may be about to publish metadata for it).
        REQUIRE(r.temporaries.size() == 2);
        CHECK(r.temporaries[0].path == stale);
        CHECK(r.temporaries[0].stale);
        CHECK(r.temporaries[1].path == meta.path);
        CHECK_FALSE(r.temporaries[1].stale);
    };
    const CacheReport dry = t.cache.verify(false);
    check_findings(dry, CacheFinding::Action::Reported);
    CHECK(fs::exists(flip.path));
    CHECK(fs::exists(t.cache.entry_directory("src", h_src)));
    CHECK(fs::exists(stale));
    // list does not hash artifacts or sources: it sees the missing file and the broken metadata only.
    CHECK(t.cache.scan().findings.size() == 2);

    const CacheReport fixed = t.cache.verify(true);
    check_findings(fixed, CacheFinding::Action::Removed);
    CHECK(fixed.temporaries[0].removed);
    CHECK_FALSE(fs::exists(flip.path));
    CHECK_FALSE(fs::exists(t.cache.entry_directory("src", h_src)));
    CHECK_FALSE(fs::exists(stale));

    const CacheReport again = t.cache.verify(true);
    CHECK(again.findings.empty());
    REQUIRE(again.temporaries.size() == 1);
    CHECK(again.temporaries[0].path == meta.path);
    CHECK_FALSE(again.temporaries[0].stale);
    CHECK(again.entries.size() == 4);
    CHECK(t.cache.find("good", h_good, Target::cpu())->content == "GOOD");
    CHECK_FALSE(t.cache.find("flip", h_flip, Target::cpu()));
    CHECK(t.log.empty()); // verify repaired it: the lookup is a plain miss
}

TEST_CASE("cache: store() touches only its own entry, a full sweep is remove_stale_temporaries or verify") {
    TempCache t("store_scope");
    const std::string dead = std::to_string(dead_pid());
    for (int i = 0; i < 50; ++i)
        t.cache.store("m", sha256_hex(std::to_string(i)), Target::cpu(), "src", "bytes " + std::to_string(i));
    const auto stale_in = [&](int i) {
        const fs::path p = t.cache.entry_directory("m", sha256_hex(std::to_string(i))) / "artifacts" /
                           (".tmp." + dead + ".0.1.cpu.json");
        std::ofstream(p) << "{half";
        return p;
    };
    const fs::path other = stale_in(1), own = stale_in(2);
    t.cache.store("m", sha256_hex("new"), Target::cpu(), "src", "new");
    CHECK(fs::exists(other)); // not walked
    t.cache.store("m", sha256_hex("2"), Target::cuda_ptx(90), "src", "ptx");
    CHECK_FALSE(fs::exists(own)); // the entry it writes to is swept
    CHECK(fs::exists(other));
    CHECK(t.cache.remove_stale_temporaries() == 1);
    CHECK_FALSE(fs::exists(other));
}

TEST_CASE("cache: a writer killed between publishing the artifact and its metadata leaves a miss, store heals, "
          "verify repairs") {
    TempCache t("killed");
    const std::string writer = (fs::path(WEFT_TEST_TOOLS_DIR) / "cache_writer").string();
    const fs::path go = t.root / "go";
    fs::create_directories(t.root);
    std::ofstream(go) << "go";
    const std::string h0 = sha256_hex("entry-0");
    const std::string ptx = Target::cuda_ptx(90).str();
    // The entry exists with a CPU artifact, so adding the PTX takes the two-rename path.
    REQUIRE(wait_for(spawn({writer, t.root.string(), "killed", "1", go.string()})) == 0);
    REQUIRE(wait_for(spawn({writer, t.root.string(), "killed", "1", go.string(), ptx},
                           {"WEFT_CACHE_WRITER_KILL_AT=artifact-published"})) == 128 + SIGKILL);

    const fs::path artifacts = t.cache.entry_directory("killed", h0) / "artifacts";
    std::vector<fs::path> orphans;
    for (const auto &f : fs::directory_iterator(artifacts))
        if (f.path().filename().string().rfind(ptx + ".", 0) == 0) orphans.push_back(f.path());
    REQUIRE(orphans.size() == 1);
    const fs::path orphan = orphans[0];
    CHECK(orphan.extension() == ".bin");
    CHECK_FALSE(fs::exists(artifacts / (ptx + ".json")));

    // A plain miss, without a warning; the CPU artifact is untouched.
    CHECK_FALSE(t.cache.find("killed", h0, Target::cuda_ptx(90)));
    CHECK(t.cache.find("killed", h0, Target::cpu()));
    CHECK(t.log.empty());
    REQUIRE(t.cache.list().size() == 1);
    CHECK(t.cache.list()[0].targets == std::vector<std::string>{"cpu"});

    SECTION("the next store heals it") {
        REQUIRE(wait_for(spawn({writer, t.root.string(), "killed", "1", go.string(), ptx})) == 0);
        const auto hit = t.cache.find("killed", h0, Target::cuda_ptx(90));
        REQUIRE(hit);
        CHECK(hit->path == orphan);
        CHECK(hit->content.size() == 4096 * 64 + ptx.size());
        CHECK(t.cache.verify(false).findings.empty());
        CHECK(files_under(artifacts) == 4); // two artifacts, two metadata files, nothing left over
    }
    SECTION("verify leaves a fresh orphan to its writer and removes it once it is old") {
        const CacheReport fresh = t.cache.verify(true);
        CHECK(fresh.findings.empty());
        REQUIRE(fresh.temporaries.size() == 1);
        CHECK(fresh.temporaries[0].path == orphan);
        CHECK_FALSE(fresh.temporaries[0].stale);
        REQUIRE(fs::exists(orphan));

        fs::last_write_time(orphan, fs::file_time_type::clock::now() - std::chrono::hours(1));
        const CacheReport dry = t.cache.verify(false);
        REQUIRE(dry.findings.size() == 1);
        CHECK(dry.findings[0].path == orphan);
        CHECK_THAT(dry.findings[0].problem, Catch::Contains("no metadata refers to"));
        CHECK(fs::exists(orphan));
        const CacheReport fixed = t.cache.verify(true);
        REQUIRE(fixed.findings.size() == 1);
        CHECK(fixed.findings[0].action == CacheFinding::Action::Removed);
        CHECK_FALSE(fs::exists(orphan));
        CHECK(t.cache.verify(false).findings.empty());
        CHECK(t.cache.find("killed", h0, Target::cpu()));
    }
}
