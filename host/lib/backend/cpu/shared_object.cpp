// A CPU module's object linked into a shared object, for later processes to
// map with dlopen instead of creating the JIT and linking the object (see
// load_shared_object in jit.cpp). The link is the system linker's, through
// the clang driver: it runs beside a load, never in its way (the host links
// in the background and keeps the result in its cache).
#include "internal.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

extern char **environ;

namespace weft::backend {

namespace cpu {
std::string_view shared_stubs_object();
} // namespace cpu

namespace fs = std::filesystem;

namespace {

void write_file(const fs::path &path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) throw BackendError("cannot write " + path.string());
}

std::string read_file(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Runs argv[0] with argv, its output (both streams) to `log`; returns its exit status.
int run(const std::vector<std::string> &args, const fs::path &log) {
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw BackendError("cannot run " + args[0] + ": " + std::strerror(spawned));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw BackendError("waiting for " + args[0] + ": " + std::strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

} // namespace

bool shared_objects_supported() {
    // shared_stubs.c has its jumps for this one (it is empty elsewhere).
#if defined(__x86_64__) && defined(__linux__)
    return true;
#else
    return false;
#endif
}

std::string link_shared_object(std::string_view object, const fs::path &work_dir) {
    if (!shared_objects_supported()) throw BackendError("shared objects: not supported on this platform");
    fs::create_directories(work_dir);
    std::vector<std::string> args{clang_executable().string(),
                                  "-shared",
                                  // Nothing of the C runtime: the module's own static
                                  // constructors and destructors are run by weft
                                  // (static_init.cpp, the stubs' __cxa_atexit).
                                  "-nostdlib",
                                  // Its references to its own symbols bind to them,
                                  // whatever else the process defines.
                                  "-Wl,-Bsymbolic",
                                  "-Wl,-z,now",
                                  "-Wl,-z,noexecstack",
                                  "-o",
                                  (work_dir / "module.so").string()};
    std::vector<std::vector<char>> objects = unbundle_objects(std::vector<char>(object.begin(), object.end()));
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const fs::path part = work_dir / ("part" + std::to_string(i) + ".o");
        write_file(part, std::string_view(objects[i].data(), objects[i].size()));
        args.push_back(part.string());
    }
    const fs::path stubs = work_dir / "stubs.o";
    write_file(stubs, cpu::shared_stubs_object());
    args.push_back(stubs.string());
    const fs::path log = work_dir / "link.log";
    const int status = run(args, log);
    if (status != 0) {
        std::string output = read_file(log);
        while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
        throw BackendError("linking a shared object failed (status " + std::to_string(status) + ")" +
                           (output.empty() ? std::string() : ": " + output));
    }
    return read_file(work_dir / "module.so");
}

} // namespace weft::backend
