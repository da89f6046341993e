// A cache someone else wrote to (issue 18): what is at a cache path is checked
// before it is used, and a host given a tampered cache still runs the code its
// kernels say, or fails with a message; it never reads without end or runs
// another module's code.
#include "test_support.hpp"

#include "weft/cache/cache.hpp"
#include "weft/host/host.hpp"
#include "weft/pipeline/pipeline.hpp"
#include "weft/support/error.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

namespace {

struct TempCache {
    fs::path path;
    explicit TempCache(const std::string &name)
        : path(fs::temp_directory_path() / ("weft_tamper_" + name + "_" + std::to_string(::getpid()))) {
        fs::remove_all(path);
    }
    ~TempCache() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path, ec);
    }
};

HostOptions options_for(const TempCache &cache, std::vector<std::string> *log = nullptr) {
    HostOptions o = weft::test::test_host_options(log);
    o.cache_dir = cache.path;
    o.quiet = true;
    // The cache's own PCH is what these tests tamper with, not the build's prebuilt one.
    o.prebuilt_dir = std::filesystem::path();
    return o;
}

const Type f32 = Type::scalar(Scalar::Float32);

/// A module whose kernel writes x + y into out[0]; `tag` makes its hash its own.
std::string adder(const std::string &tag) {
    return "import warp as wp\n\n@wp.kernel\ndef add_" + tag +
           "(out: wp.array(dtype=float), x: float, y: float):\n    out[0] = x + y\n";
}

float run_adder(Host &host, const std::string &tag, float x, float y) {
    CompiledModule m = host.load_module_source("m_" + tag, adder(tag));
    Array out = Array::from_vector(f32, std::vector<float>{0});
    m.kernel("add_" + tag).launch({1}, {out, x, y});
    return out.to_vector<float>()[0];
}

std::string joined(const std::vector<std::string> &lines) {
    std::string out;
    for (const std::string &l : lines) out += l + "\n";
    return out;
}

std::vector<fs::path> files_in(const fs::path &dir, const std::string &extension) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == extension) out.push_back(it->path());
    return out;
}

} // namespace

TEST_CASE("cache tampering: whatever is at the PCH path instead of a file is replaced, not followed") {
    TempCache cache("pch");
    {
        Host host(options_for(cache));
        CHECK(run_adder(host, "a", 1, 30) == 31);
    }
    const std::vector<fs::path> pchs = files_in(cache.path / "v1" / "pch", ".pch");
    REQUIRE(pchs.size() == 1);
    const fs::path pch = pchs[0];

    // A directory there failed every new module until `cache clear`.
    fs::remove(pch);
    fs::create_directories(pch / "inside");
    {
        std::vector<std::string> log;
        Host host(options_for(cache, &log));
        CHECK(run_adder(host, "b", 2, 30) == 32);
        CHECK(fs::is_regular_file(fs::symlink_status(pch)));
        CHECK_THAT(joined(log), Catch::Contains(pch.string() + " is a directory, not one weft wrote: replacing it"));
    }
    // A link is not followed, wherever it points (/dev/zero was read without end).
    fs::remove(pch);
    fs::create_symlink("/dev/zero", pch);
    {
        std::vector<std::string> log;
        Host host(options_for(cache, &log));
        CHECK(run_adder(host, "c", 3, 30) == 33);
        CHECK(fs::is_regular_file(fs::symlink_status(pch)));
        CHECK_THAT(joined(log), Catch::Contains(pch.string() + " is a symbolic link, not one weft wrote: replacing it"));
    }
}

namespace {

fs::path materialized_scalar_h(const TempCache &cache) {
    std::vector<fs::path> dirs;
    for (const fs::directory_entry &e : fs::directory_iterator(cache.path / "v1" / "runtime-headers"))
        if (e.path().filename().string()[0] != '.') dirs.push_back(e.path());
    REQUIRE(dirs.size() == 1);
    return dirs[0] / "weft" / "rt" / "scalar.h";
}

/// Makes the materialized float add subtract; returns the header's original text.
std::string break_float_add(const fs::path &scalar_h) {
    std::ifstream in(scalar_h, std::ios::binary);
    const std::string original((std::istreambuf_iterator<char>(in)), {});
    std::string edited = original;
    const std::string from = "else return T(a + b);";
    const auto at = edited.find(from);
    REQUIRE(at != std::string::npos);
    edited.replace(at, from.size(), "else return T(a - b);");
    std::ofstream(scalar_h, std::ios::binary | std::ios::trunc) << edited;
    return original;
}

} // namespace

TEST_CASE("cache tampering: edited runtime headers under the cache root are found and rewritten before a compile") {
    TempCache cache("headers");
    {
        Host host(options_for(cache));
        CHECK(run_adder(host, "a", 1, 30) == 31);
    }
    const fs::path scalar_h = materialized_scalar_h(cache);
    const std::string original = break_float_add(scalar_h);
    fs::remove_all(cache.path / "v1" / "pch"); // the PCH is rebuilt from what is on disk

    // `cache verify` names the file, and leaves it in a dry run.
    ArtifactCache artifacts(cache.path);
    std::vector<CacheFinding> findings = pipeline::verify_compile_files(artifacts, false);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].problem == scalar_h.string() + " differs from the header compiled into weft");
    CHECK(findings[0].action == CacheFinding::Action::Reported);

    {
        Host host(options_for(cache));
        CHECK(run_adder(host, "b", 1, 30) == 31); // was -29
    }
    std::ifstream in(scalar_h, std::ios::binary);
    CHECK(std::string((std::istreambuf_iterator<char>(in)), {}) == original);
    CHECK(pipeline::verify_compile_files(artifacts, false).empty());

    // An added header would be found by an #include before weft's: also rewritten.
    std::ofstream(scalar_h.parent_path() / "extra.h") << "#error planted\n";
    findings = pipeline::verify_compile_files(artifacts, true);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].problem == (scalar_h.parent_path() / "extra.h").string() + " is not a weft runtime header (rewritten)");
    CHECK(findings[0].action == CacheFinding::Action::Removed);
    CHECK_FALSE(fs::exists(scalar_h.parent_path() / "extra.h"));
}

TEST_CASE("cache tampering: a precompiled header that does not match its recorded digest is rebuilt, and verify reports it") {
    TempCache cache("pch_digest");
    {
        Host host(options_for(cache));
        CHECK(run_adder(host, "a", 1, 30) == 31);
    }
    const std::vector<fs::path> pchs = files_in(cache.path / "v1" / "pch", ".pch");
    REQUIRE(pchs.size() == 1);
    CHECK(fs::exists(pchs[0].string() + ".sha256"));
    {
        std::fstream f(pchs[0], std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(1000);
        f.put('\x7f');
    }
    ArtifactCache artifacts(cache.path);
    std::vector<CacheFinding> findings = pipeline::verify_compile_files(artifacts, false);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].path == pchs[0]);
    CHECK_THAT(findings[0].problem, Catch::StartsWith("has sha256 ") && Catch::EndsWith(" was recorded when it was built"));
    {
        std::vector<std::string> log;
        Host host(options_for(cache, &log));
        CHECK(run_adder(host, "b", 2, 30) == 32);
        CHECK_THAT(joined(log), Catch::Contains("rebuilding the precompiled runtime header " + pchs[0].string() + ": it has sha256 "));
    }
    CHECK(pipeline::verify_compile_files(artifacts, false).empty());
    // A PCH from before digests were recorded is rebuilt too.
    fs::remove(pchs[0].string() + ".sha256");
    CHECK_THAT(pipeline::verify_compile_files(artifacts, false).at(0).problem, Catch::StartsWith("has no digest recorded"));
}

namespace {

/// Makes every directory under `root` (and `root`) read-only while it lives:
/// no write permission for a normal user, the immutable flag for root (who
/// ignores permissions). `ok` is false where neither holds.
struct ReadOnlyTree {
    std::vector<fs::path> dirs;
    bool immutable = false;
    bool ok = false;
    explicit ReadOnlyTree(const fs::path &root) {
        dirs.push_back(root);
        for (const fs::directory_entry &e : fs::recursive_directory_iterator(root))
            if (e.symlink_status().type() == fs::file_type::directory) dirs.push_back(e.path());
        for (const fs::path &d : dirs) fs::permissions(d, fs::perms::owner_read | fs::perms::owner_exec);
        if (::access(root.c_str(), W_OK) != 0) {
            ok = true;
            return;
        }
        immutable = true;
        for (const fs::path &d : dirs) ok = set_immutable(d, true) || ok;
        ok = !writable(root);
    }
    ~ReadOnlyTree() {
        for (const fs::path &d : dirs) {
            if (immutable) set_immutable(d, false);
            fs::permissions(d, fs::perms::owner_all);
        }
    }
    static bool writable(const fs::path &dir) {
        const fs::path probe = dir / ".probe";
        const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0) return false;
        ::close(fd);
        ::unlink(probe.c_str());
        return true;
    }
    static bool set_immutable(const fs::path &dir, bool on) {
        const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
        if (fd < 0) return false;
        int flags = 0;
        bool done = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
        flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
        done = done && ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
        ::close(fd);
        return done;
    }
};

std::size_t count_containing(const std::vector<std::string> &lines, const std::string &text) {
    return static_cast<std::size_t>(
        std::count_if(lines.begin(), lines.end(), [&](const std::string &l) { return l.find(text) != std::string::npos; }));
}

} // namespace

TEST_CASE("read-only cache: hits are served, misses compile in memory with one warning naming path and errno") {
    TempCache cache("read_only");
    {
        Host host(options_for(cache));
        CHECK(run_adder(host, "a", 1, 30) == 31);
    }
    ReadOnlyTree read_only(cache.path);
    if (!read_only.ok) {
        WARN("skipped: the cache directory cannot be made read-only here (no permission bits or immutable flag)");
        return;
    }
    std::vector<std::string> log;
    Host host(options_for(cache, &log));
    CHECK(run_adder(host, "a", 1, 30) == 31);           // a hit
    CHECK(run_adder(host, "b", 2, 30) == 32);           // a miss, compiled in memory (was: the load failed)
    CHECK(run_adder(host, "c", 3, 30) == 33);           // another: no second warning
    CHECK(count_containing(log, "cannot be written") == 1);
    CHECK_THAT(joined(log), Catch::Contains("the cache at " + (cache.path / "v1").string() + " cannot be written (") &&
                                Catch::Contains("(errno ") &&
                                Catch::Contains("modules it does not hold are compiled in memory and not stored"));
    CompiledModule b = host.load_module_source("m_b", adder("b"));
    CHECK(b.artifact_path().empty());
    CHECK_FALSE(fs::exists(cache.path / "v1" / "entries" / ("m_b-" + b.hash())));
}

TEST_CASE("read-only cache: an empty read-only cache compiles in memory instead of throwing a filesystem error") {
    TempCache cache("read_only_empty");
    fs::create_directories(cache.path);
    ReadOnlyTree read_only(cache.path);
    if (!read_only.ok) {
        WARN("skipped: the cache directory cannot be made read-only here (no permission bits or immutable flag)");
        return;
    }
    std::vector<std::string> log;
    Host host(options_for(cache, &log));
    CHECK(run_adder(host, "a", 4, 30) == 34);
    CHECK(run_adder(host, "b", 5, 30) == 35);
    CHECK(count_containing(log, "cannot be written") == 1);
    CHECK_THAT(joined(log), Catch::Contains(cache.path.string()) && Catch::Contains("(errno "));
    // An AOT build has nowhere to put what it compiled without an output directory: it says so.
    const fs::path source = fs::temp_directory_path() / ("weft_tamper_aot_" + std::to_string(::getpid()) + ".py");
    std::ofstream(source) << adder("aot");
    CHECK_THAT(message_of<UserError>([&] { host.compile_aot(source, {Target::cpu()}, {}, {}); }),
               Catch::Contains("was compiled but the cache cannot be written to hold it: name an output directory"));
    fs::remove(source);
}

TEST_CASE("full disk: a cache with a few hundred KB free compiles in memory instead of LLVM ending the process") {
    // A small tmpfs in a private mount namespace of a child process: the PCH
    // write fills it. Before, LLVM printed "IO failure on output stream: No
    // space left on device" and called exit(1), which no try could catch.
    TempCache cache("full_disk");
    fs::create_directories(cache.path / "mnt");
    const fs::path report = cache.path / "report.txt";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            ::mount("tmpfs", (cache.path / "mnt").c_str(), "tmpfs", 0, "size=1m") != 0)
            ::_exit(77);
        int code = 1;
        std::string text;
        try {
            struct statvfs s {};
            ::statvfs((cache.path / "mnt").c_str(), &s);
            const std::uint64_t free_bytes = std::uint64_t(s.f_bavail) * s.f_frsize;
            const std::uint64_t keep = 300 * 1024;
            std::ofstream(cache.path / "mnt" / "filler", std::ios::binary)
                << std::string(free_bytes > keep ? free_bytes - keep : 0, 'x');
            std::vector<std::string> log;
            HostOptions o = options_for(cache, &log);
            o.cache_dir = cache.path / "mnt" / "cache";
            {
                Host host(o);
                const float sum = run_adder(host, "a", 1, 30);
                const float again = run_adder(host, "b", 2, 30);
                code = sum == 31 && again == 32 ? 0 : 2;
            }
            text = joined(log);
        } catch (const std::exception &e) {
            text = std::string("exception: ") + e.what();
            code = 3;
        }
        std::ofstream(report) << text;
        ::_exit(code);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        WARN("skipped: mounting a tmpfs in a private mount namespace is not permitted here");
        return;
    }
    std::ifstream in(report);
    const std::string log((std::istreambuf_iterator<char>(in)), {});
    INFO(log);
    CHECK(WEXITSTATUS(status) == 0);
    CHECK_THAT(log, Catch::Contains("cannot be written (") && Catch::Contains("No space left on device") &&
                        Catch::Contains("modules it does not hold are compiled in memory and not stored"));
}

TEST_CASE("cache tampering: clear and verify never delete through a linked entries folder") {
    TempCache cache("linked_entries");
    const fs::path victim = cache.path / "victim";
    fs::create_directories(victim / "precious");
    { std::ofstream(victim / "precious" / "data.txt") << "keep me\n"; }
    { std::ofstream(victim / "notes.txt") << "keep me too\n"; }
    const ArtifactCache c(cache.path);
    fs::create_directories(c.root());
    fs::create_directory_symlink(victim, c.root() / "entries");
    fs::create_directory_symlink(victim, c.root() / "tmp");

    const CacheReport report = c.verify(true);
    CHECK(fs::exists(victim / "precious" / "data.txt"));
    CHECK(fs::exists(victim / "notes.txt"));
    REQUIRE(report.findings.size() == 2);
    CHECK(report.findings[0].path == c.root() / "tmp");
    CHECK(report.findings[0].problem == "is a symbolic link, not a directory (a cache never follows links)");
    CHECK(report.findings[0].action == CacheFinding::Action::Removed);
    CHECK(report.findings[1].path == c.root() / "entries");
    CHECK_FALSE(fs::exists(fs::symlink_status(c.root() / "entries")));

    fs::create_directory_symlink(victim, c.root() / "entries");
    const CacheClearResult cleared = c.clear();
    CHECK(cleared.failures.empty());
    CHECK(cleared.entries_removed == 0);
    CHECK(cleared.other_removed == 0);
    CHECK(fs::exists(victim / "precious" / "data.txt"));
    CHECK(fs::exists(victim / "notes.txt"));
    CHECK_FALSE(fs::exists(fs::symlink_status(c.root() / "entries")));
}
