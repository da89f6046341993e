#include "weft/check/check.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/build/target.hpp"
#include "weft/support/error.hpp"
#include "weft/support/file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <chrono>
#include <random>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace weft {

namespace fs = std::filesystem;

namespace {

std::string types_key(const BuiltinOverload &o) {
    std::string key = o.name + "(";
    for (const Parameter &p : o.params) key += p.type.code() + ",";
    return key + ")";
}

std::string label(const std::string &plugin) { return "plugin '" + plugin + "'"; }

/// One load: a plugin alone with its requirements (`root` names it), or the
/// whole set together (`root` empty).
struct Request {
    std::vector<fs::path> paths;
    std::vector<fs::path> available;
    std::string who;  // whom a failure of the load itself is charged to
    std::string root; // the plugin whose options (and smoke module) are checked
    bool compile = false;
    bool compile_cuda = true;
    int cuda_arch = 0;
};

/// Outcome of one load.
struct Attempt {
    std::vector<PluginFailure> failures;
    std::vector<PluginContracts> contracts; // of every plugin that loaded, requirements included
};

// --- Smoke modules ---------------------------------------------------------

/// How a kernel parameter of type `t` is written in kernel source; "" when it cannot be one.
std::string spelled(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Scalar:
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return "wp." + t.name();
    case Type::Kind::Native: {
        std::string name = t.native_name();
        if (name.rfind("::", 0) == 0) name.erase(0, 2);
        for (std::size_t at; (at = name.find("::")) != std::string::npos;) name.replace(at, 2, ".");
        return name;
    }
    case Type::Kind::Array: {
        const std::string element = spelled(t.element());
        if (element.empty()) return "";
        return std::string(t.is_indexed_array() ? "wp.indexedarray" : "wp.array") + "(dtype=" + element +
               (t.ndim() == 1 ? "" : ", ndim=" + std::to_string(t.ndim())) + ")";
    }
    default: return "";
    }
}

std::string identifier_part(const std::string &s) {
    std::string out;
    for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
}

std::string resolve_problem(const LoadedPlugin &plugin) {
    std::vector<BuildOptionsSource> sources;
    for (const ModuleBuildOptions &o : plugin.build_options)
        sources.push_back({label(plugin.name()), o, plugin.verified_files});
    try {
        resolve(EffectiveBuildOptions::merge(sources));
    } catch (const UserError &e) {
        return label(plugin.name()) + ": " + e.what();
    }
    return "";
}

int pick_cuda_arch(int requested) {
    if (requested) return requested;
    const std::vector<int> archs = backend::nvrtc_supported_archs();
    if (std::find(archs.begin(), archs.end(), 90) != archs.end() || archs.empty()) return 90;
    return archs.back();
}

/// Problems a loaded plugin has beyond loading: build options that do not
/// resolve, a smoke module that does not build.
std::vector<std::string> verify(Host &host, const LoadedPlugin &plugin, const Request &request) {
    if (std::string problem = resolve_problem(plugin); !problem.empty()) return {problem};
    if (!request.compile) return {};

    // A file, not source text: NVRTC's and Clang's diagnostics then name a
    // file the user can open. Kept in the cache, next to the generated code.
    const fs::path dir = host.cache().root() / "plugin-check";
    const fs::path file = dir / (identifier_part(plugin.name()) + "_smoke.py");
    write_file_atomically(file, smoke_module_source(plugin));
    ModuleLoadOptions options;
    options.check_native_signatures = true;
    options.plugins.emplace(); // the plugin and its requirements, as a module using it gets them
    for (const LoadedPlugin *p : host.plugins()) options.plugins->push_back(p->name());

    std::vector<std::string> problems;
    // A contract writes an adjoint for every argument: one of a native type
    // that is not differentiable has nowhere to go, and any kernel that passes
    // the builtin a value depending on differentiable inputs fails its
    // backward build (never a silent zero). Reported here, before a user meets it.
    for (const BuiltinOverload &b : plugin.builtins) {
        if (b.adjoint_native.empty()) continue;
        for (const Parameter &p : b.params)
            if (p.type.kind() == Type::Kind::Native && !p.type.is_differentiable_native())
                problems.push_back(label(plugin.name()) + ": builtin " + b.signature() + ": its gradient contract " +
                                   b.adjoint_native + " writes the adjoint of parameter '" + p.name +
                                   "' of native type " + p.type.name() +
                                   ", which is not differentiable: the backward pass of any kernel that passes it a "
                                   "value depending on differentiable inputs fails to build. Declare the type "
                                   "differentiable (weft_native_type_desc::differentiable) or take its float parts");
    }
    const std::string what = label(plugin.name()) + ": its smoke module " + file.string() +
                             " (every builtin called, every native type constructed) ";
    // Gradient contracts: the backward pass calls every declared adjoint.
    const bool adjoints = std::any_of(plugin.builtins.begin(), plugin.builtins.end(),
                                      [](const BuiltinOverload &b) { return !b.adjoint_native.empty(); });
    try {
        host.load_module(file, options);
        if (adjoints) host.compile_aot(file, {Target::cpu()}, options, {}, Pass::Backward);
    } catch (const std::exception &e) {
        problems.push_back(what + "does not build on the CPU:\n" + e.what());
    }
    if (request.compile_cuda && backend::nvrtc_available()) {
        const Target target = Target::cuda_ptx(pick_cuda_arch(request.cuda_arch));
        try {
            host.compile_aot(file, {target}, options);
            if (adjoints) host.compile_aot(file, {target}, options, {}, Pass::Backward);
        } catch (const std::exception &e) {
            problems.push_back(what + "does not build with NVRTC (" + target.str() + "):\n" + e.what());
        }
    }
    return problems;
}

Attempt attempt(const Request &request, HostOptions options) {
    options.quiet = true;
    Host host(options);
    LoadReport report = host.load_all(request.paths, request.available);
    Attempt a;
    a.failures = report.failures;
    for (const LoadedPlugin *p : host.plugins()) a.contracts.push_back(contracts_of(*p));
    if (!request.root.empty())
        if (const LoadedPlugin *root = host.plugin(request.root))
            for (std::string &problem : verify(host, *root, request))
                a.failures.push_back({root->name(), root->manifest.path, std::move(problem)});
    return a;
}

// --- Results from a helper process ------------------------------------------
// Records are lines, fields are separated by \x1f; a field escapes '\\', '\n'
// and \x1f, so messages keep their lines. "E" ends a complete report.

std::string escaped(const std::string &s) {
    std::string out;
    for (char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == '\x1f') out += "\\u";
        else out += c;
    }
    return out;
}

std::string unescaped(const std::string &s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        out += c == 'n' ? '\n' : c == 'u' ? '\x1f' : c;
    }
    return out;
}

std::string record(std::initializer_list<std::string> fields) {
    std::string out;
    for (const std::string &f : fields) out += (out.empty() ? "" : "\x1f") + escaped(f);
    return out + "\n";
}

std::string serialize(const Attempt &a, const std::string &token) {
    std::string out = record({"S", token});
    for (const PluginFailure &f : a.failures) out += record({"F", f.plugin, f.where.string(), f.message});
    for (const PluginContracts &c : a.contracts) {
        out += record({"P", c.plugin, c.version, c.manifest.string()});
        for (const auto &b : c.builtins) out += record({"B", b.key, b.identity, b.signature, b.native_name});
        for (const auto &t : c.native_types) out += record({"T", t.name, t.digest, t.description});
    }
    return out + record({"E", token});
}

/// Parses a report; false when it lacks its start or end record carrying
/// `token`. The token is this run's secret, handed to the helper before any
/// plugin code runs there: a plugin that writes a report of its own (and
/// ends the process) cannot make itself look checked. What comes before the
/// last start record, or after the end record, is ignored.
bool deserialize(const std::string &text, const std::string &token, Attempt &a) {
    const std::string start_record = record({"S", token});
    const std::size_t from = text.rfind(start_record);
    if (from == std::string::npos || (from != 0 && text[from - 1] != '\n')) return false;
    std::istringstream in(text.substr(from + start_record.size()));
    std::string line;
    bool complete = false;
    while (!complete && std::getline(in, line)) {
        std::vector<std::string> f;
        std::string::size_type start = 0;
        for (;;) {
            const auto pos = line.find('\x1f', start);
            f.push_back(unescaped(line.substr(start, pos == std::string::npos ? std::string::npos : pos - start)));
            if (pos == std::string::npos) break;
            start = pos + 1;
        }
        complete = f[0] == "E" && f.size() == 2 && f[1] == token;
        if (f[0] == "F" && f.size() == 4) a.failures.push_back({f[1], f[2], f[3]});
        else if (f[0] == "P" && f.size() == 4) a.contracts.push_back({f[1], f[2], f[3], {}, {}});
        else if (f[0] == "B" && f.size() == 5 && !a.contracts.empty())
            a.contracts.back().builtins.push_back({f[1], f[2], f[3], f[4]});
        else if (f[0] == "T" && f.size() == 4 && !a.contracts.empty())
            a.contracts.back().native_types.push_back({f[1], f[2], f[3]});
    }
    return complete;
}

fs::path helper_path(const CheckOptions &options) {
    fs::path helper = options.helper;
    if (helper.empty()) {
        std::error_code ec;
        const fs::path self = fs::read_symlink("/proc/self/exe", ec);
        if (ec) throw UserError("isolated plugin checks: cannot locate the running executable: " + ec.message());
        helper = self.parent_path() / "weft-plugin-probe";
    }
    if (access(helper.c_str(), X_OK) != 0) {
        const int error = errno;
        throw UserError("isolated plugin checks run the helper executable " + helper.string() + ", which " +
                        (error == ENOENT ? "does not exist" : std::string("cannot be run: ") + std::strerror(error)) +
                        " (it is installed next to weft)");
    }
    return helper;
}

std::vector<std::string> helper_arguments(const fs::path &helper, const Request &request, const HostOptions &host) {
    std::vector<std::string> args = {helper.string(), "--who", request.who};
    if (!request.root.empty()) args.insert(args.end(), {"--root", request.root});
    if (!host.use_environment) args.push_back("--no-environment");
    if (!host.core_builtins) args.push_back("--no-core-builtins");
    for (const fs::path &p : host.search_path) args.insert(args.end(), {"--search-path", p.string()});
    if (!host.cache_dir.empty()) args.insert(args.end(), {"--cache-dir", host.cache_dir.string()});
    if (!host.log_categories.empty()) args.insert(args.end(), {"--log-categories", host.log_categories});
    // The trust policy crosses the process boundary: an isolated check opens
    // exactly what an in-process one would.
    const trust::TrustPolicy &policy = host.plugin_trust;
    if (policy.mode != trust::TrustMode::Any)
        args.insert(args.end(), {"--trust", std::string(trust::trust_mode_name(policy.mode))});
    if (!policy.trusted_keys_dir.empty()) args.insert(args.end(), {"--trusted-keys", policy.trusted_keys_dir.string()});
    if (!policy.allow_list_file.empty()) args.insert(args.end(), {"--allow-list", policy.allow_list_file.string()});
    for (const std::string &d : policy.allowed_digests) args.insert(args.end(), {"--allow", d});
    if (request.compile) args.push_back("--compile");
    if (!request.compile_cuda) args.push_back("--no-cuda");
    if (request.cuda_arch) args.insert(args.end(), {"--cuda-arch", std::to_string(request.cuda_arch)});
    for (const fs::path &p : request.available) args.insert(args.end(), {"--available", p.string()});
    args.push_back("--");
    for (const fs::path &p : request.paths) args.push_back(p.string());
    return args;
}

/// A per-run secret the helper must echo around its report.
std::string report_token() {
    std::random_device random;
    std::string token;
    static constexpr char digits[] = "0123456789abcdef";
    for (int i = 0; i < 8; ++i) {
        const unsigned v = random();
        for (int k = 0; k < 4; ++k) {
            token += digits[(v >> (8 * k)) & 0xF];
            token += digits[(v >> (8 * k + 4)) & 0xF];
        }
    }
    return token;
}

/// What a process wrote to a pipe until it exited, and how it ended.
struct Collected {
    std::string text;
    int status = 0;
    bool timed_out = false;
};

/// Reads `fd` until process `pid` exits (not until end-of-file: a process
/// a plugin forked may hold the pipe open) or the deadline passes; then kills
/// the process group `pid` leads (a process run out of time, and whatever a
/// plugin started there and left behind) when `kill_group`, and reaps `pid`.
Collected collect(int fd, pid_t pid, std::chrono::steady_clock::time_point deadline, bool kill_group) {
    Collected c;
    char buffer[4096];
    bool exited = false;
    auto drain = [&] {
        for (;;) {
            const ssize_t n = read(fd, buffer, sizeof buffer);
            if (n > 0) c.text.append(buffer, static_cast<std::size_t>(n));
            else if (n < 0 && errno == EINTR) continue;
            else return n == 0; // end of file, or nothing more to read now
        }
    };
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    bool eof = false;
    while (!exited) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            c.timed_out = true;
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
        pollfd p{fd, POLLIN, 0};
        if (!eof && poll(&p, 1, static_cast<int>(std::min<long long>(left, 50))) > 0) eof = drain();
        else if (eof) std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long long>(left, 10)));
        // Not reaped yet (WNOWAIT): while the process is a zombie its pid, and
        // so its process group's id, cannot be reused by another process.
        siginfo_t info{};
        exited = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
    }
    if (!c.timed_out) drain(); // what it wrote before it exited
    if (kill_group) kill(-pid, SIGKILL);
    while (waitpid(pid, &c.status, 0) < 0 && errno == EINTR) {
    }
    return c;
}

/// How a process that loaded plugins ended, as a failure message ("crashed
/// with signal 11 (...)"), or "" when it exited with status 0.
std::string abnormal_end(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        return "crashed with signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "exited with status " + std::to_string(WEXITSTATUS(status));
    return {};
}

/// Runs attempt() in the helper. A crash, a non-zero exit, an exit without
/// a complete report or a helper still running at the deadline becomes a
/// failure of `request.who`. posix_spawn, not fork(): a forked copy of a
/// process that runs threads (the CPU pool, LLVM, the CUDA driver) may
/// deadlock on a lock another thread held. The helper leads its own process
/// group, so that what a plugin forked there ends with it: such a child kept
/// the report pipe open, and a read until end-of-file never returned.
Attempt attempt_isolated(const Request &request, const HostOptions &host, const fs::path &helper,
                         std::chrono::milliseconds timeout) {
    const std::vector<std::string> args = helper_arguments(helper, request, host);
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);

    int fds[2], secret[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw InternalError(std::string("pipe: ") + std::strerror(errno));
    if (pipe2(secret, O_CLOEXEC) != 0) {
        const int err = errno;
        close(fds[0]);
        close(fds[1]);
        throw InternalError(std::string("pipe: ") + std::strerror(err));
    }
    const std::string token = report_token();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, secret[0], 0); // the token, read before any plugin code runs
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1); // the report; the helper moves it off fd 1
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Ignored signals survive exec: a crash must still kill the helper.
    sigset_t defaults, none;
    sigemptyset(&defaults);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE}) sigaddset(&defaults, sig);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, helper.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(fds[1]);
    close(secret[0]);
    if (spawned != 0) {
        close(fds[0]);
        close(secret[1]);
        throw UserError("cannot run " + helper.string() + ": " + std::strerror(spawned));
    }
    // A token line fits the pipe's buffer: this write does not wait for the helper.
    const std::string token_line = token + "\n";
    [[maybe_unused]] const ssize_t written = write(secret[1], token_line.data(), token_line.size());
    close(secret[1]);

    const Collected c = collect(fds[0], pid, std::chrono::steady_clock::now() + timeout, true);
    const std::string &text = c.text;
    const int status = c.status;
    const bool timed_out = c.timed_out;
    close(fds[0]);
    const fs::path where = request.paths.size() == 1 ? request.paths.front() : fs::path();
    auto failed = [&](const std::string &why) {
        return Attempt{{{request.who, where, label(request.who) + ": the process loading it " + why}}, {}};
    };
    if (timed_out) {
        const auto ms = timeout.count();
        return failed("timed out after " + (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms") +
                      " (it was killed; --isolate-timeout sets the limit)");
    }
    if (const std::string why = abnormal_end(status); !why.empty()) return failed(why);
    Attempt a;
    if (!deserialize(text, token, a))
        return failed("exited with status 0 without reporting a result (did the plugin end the process?)");
    return a;
}

/// A plugin loaded during the check: one that was checked, or a requirement.
struct Loaded {
    PluginContracts contracts;
    bool checked = false;
    std::set<std::string> required_by; // checked plugins it was loaded for
};

fs::path key_of(const fs::path &manifest) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(manifest, ec);
    return ec ? manifest.lexically_normal() : p;
}

std::string join(const std::set<std::string> &names) {
    std::string out;
    for (const std::string &n : names) out += (out.empty() ? "'" : "', '") + n;
    return out + "'";
}

} // namespace

std::string smoke_module_source(const LoadedPlugin &plugin) {
    std::ostringstream out;
    out << "# Smoke module of plugin '" << plugin.name() << "' " << plugin.manifest.version.str()
        << ", written by `weft plugin check --compile`:\n"
        << "# every builtin called, every native type constructed.\n"
        << "import warp as wp\n";
    std::size_t kernels = 0;
    for (std::size_t i = 0; i < plugin.builtins.size(); ++i) {
        const BuiltinOverload &b = plugin.builtins[i];
        std::string params, args, unspellable, locals;
        for (std::size_t k = 0; k < b.params.size(); ++k) {
            const std::string type = spelled(b.params[k].type);
            if (type.empty()) unspellable = b.params[k].name + ": " + b.params[k].type.name();
            params += (k ? ", " : "") + ("a" + std::to_string(k)) + ": " + type;
            // An inout parameter takes a variable the call may write: a local copy.
            if (b.params[k].inout) locals += "    l" + std::to_string(k) + " = a" + std::to_string(k) + "\n";
            args += (k ? ", " : "") + ((b.params[k].inout ? "l" : "a") + std::to_string(k));
        }
        out << "\n\n# builtin " << b.signature() << " [native " << b.native_name << "]\n";
        if (!unspellable.empty()) {
            out << "# not called: a kernel parameter cannot have the type of " << unspellable << "\n";
            continue;
        }
        out << "@wp.kernel\ndef call_" << b.name << "_" << i << "(" << params << "):\n"
            << locals << "    " << (b.result ? "r = " : "") << "wp." << b.name << "(" << args << ")\n";
        ++kernels;
    }
    for (std::size_t i = 0; i < plugin.native_types.size(); ++i) {
        const NativeTypeInfo &t = plugin.native_types[i];
        const std::string type = spelled(t.type());
        out << "\n\n# native type " << t.native_name << ": " << t.describe() << "\n"
            << "@wp.kernel\ndef make_" << identifier_part(t.native_name) << "_" << i << "(v: " << type
            << ", out: wp.array(dtype=" << type << ")):\n"
            << "    d = " << type << "()\n";
        std::string fields;
        for (const ExposedField &f : t.exposed) {
            out << "    d." << f.name << " = v." << f.name << "\n";
            fields += (fields.empty() ? "" : ", ") + ("v." + f.name);
        }
        out << "    out[0] = d\n";
        if (t.initializer == Initializer::Aggregate) out << "    out[1] = " << type << "(" << fields << ")\n";
        ++kernels;
    }
    // A plugin that registers nothing callable can still ship a preamble that does not compile.
    if (kernels == 0) out << "\n\n@wp.kernel\ndef preamble_only():\n    i = wp.tid()\n";
    return out.str();
}

PluginContracts contracts_of(const LoadedPlugin &plugin) {
    PluginContracts c;
    c.plugin = plugin.name();
    c.version = plugin.manifest.version.str();
    c.manifest = plugin.manifest.path;
    for (const BuiltinOverload &o : plugin.builtins)
        c.builtins.push_back({types_key(o), o.identity(), o.signature(), o.native_name});
    for (const NativeTypeInfo &t : plugin.native_types) c.native_types.push_back({t.native_name, t.digest, t.describe()});
    return c;
}

bool CheckReport::ok() const {
    return conflicts.empty() && combined_failures.empty() &&
           std::all_of(plugins.begin(), plugins.end(), [](const PluginCheck &p) { return p.ok; });
}

CheckReport check_plugins(const std::vector<fs::path> &paths, const CheckOptions &options) {
    CheckReport report;
    const fs::path helper = options.isolate ? helper_path(options) : fs::path();
    auto run = [&](Request request) {
        request.available = paths; // plugins in the checked set satisfy each other's requirements
        request.compile = options.compile;
        request.compile_cuda = options.compile_cuda;
        request.cuda_arch = options.cuda_arch;
        return options.isolate ? attempt_isolated(request, options.host, helper, options.isolate_timeout)
                               : attempt(request, options.host);
    };

    // 1. Each plugin alone, with its requirements.
    std::map<fs::path, Loaded> loaded; // by canonical manifest path
    std::vector<fs::path> loadable;
    for (const fs::path &path : paths) {
        PluginCheck check;
        check.path = path;
        try {
            const PluginManifest m = read_manifest(locate_manifest(path));
            check.plugin = m.name;
            check.version = m.version.str();
            for (const std::string &w : m.warnings) report.warnings.push_back(w);
        } catch (const UserError &e) {
            check.plugin = path.string();
            check.message = e.what();
            report.plugins.push_back(std::move(check));
            continue;
        }
        Attempt a = run({{path}, {}, check.plugin, check.plugin});
        std::vector<std::string> own;
        for (const PluginFailure &f : a.failures)
            if (f.plugin == check.plugin) own.push_back(f.message);
        if (own.empty() && !a.failures.empty()) own.push_back(a.failures.front().message);
        for (const std::string &m : own) check.message += (check.message.empty() ? "" : "\n") + m;
        check.ok = own.empty();
        bool root_loaded = false;
        for (PluginContracts &c : a.contracts) root_loaded |= c.plugin == check.plugin;
        if (root_loaded) {
            // Contracts count even when a smoke module failed: the plugin does load.
            for (PluginContracts &c : a.contracts) {
                Loaded &l = loaded[key_of(c.manifest)];
                if (c.plugin == check.plugin) l.checked = true;
                else l.required_by.insert(check.plugin);
                l.contracts = std::move(c);
            }
            loadable.push_back(path);
        }
        report.plugins.push_back(std::move(check));
    }
    std::sort(report.warnings.begin(), report.warnings.end());
    report.warnings.erase(std::unique(report.warnings.begin(), report.warnings.end()), report.warnings.end());
    std::sort(report.plugins.begin(), report.plugins.end(), [](const PluginCheck &a, const PluginCheck &b) {
        return std::tie(a.plugin, a.path) < std::tie(b.plugin, b.path);
    });

    // 2. Pairwise, over every plugin loaded above (requirements too, so A
    //    requiring B that conflicts with C is found): different contracts under one key.
    std::vector<const Loaded *> all;
    for (const auto &[_, l] : loaded) all.push_back(&l);
    std::sort(all.begin(), all.end(), [](const Loaded *a, const Loaded *b) {
        return std::tie(a->contracts.plugin, a->contracts.manifest) < std::tie(b->contracts.plugin, b->contracts.manifest);
    });
    auto via = [](const Loaded &l) {
        return l.checked ? std::string()
                         : "; '" + l.contracts.plugin + "' is loaded as a requirement of " + join(l.required_by);
    };
    std::set<std::string> explained;
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (std::size_t i = 0; i < all.size(); ++i) {
        for (std::size_t j = i + 1; j < all.size(); ++j) {
            // Two plugins of one name never load together; the combined load says so.
            if (all[i]->contracts.plugin == all[j]->contracts.plugin) continue;
            const PluginContracts &x = all[i]->contracts;
            const PluginContracts &y = all[j]->contracts;
            const std::string context = via(*all[i]) + via(*all[j]);
            auto add = [&](std::string key, std::string subject, std::string message) {
                if (!seen.insert({x.plugin, y.plugin, key}).second) return;
                report.conflicts.push_back({x.plugin, y.plugin, std::move(subject), message + context});
                for (const Loaded *l : {all[i], all[j]}) {
                    explained.insert(l->contracts.plugin);
                    explained.insert(l->required_by.begin(), l->required_by.end());
                }
            };
            for (const auto &bx : x.builtins)
                for (const auto &by : y.builtins) {
                    if (bx.key != by.key || bx.identity == by.identity) continue;
                    add("builtin " + bx.key, "builtin " + bx.signature.substr(0, bx.signature.find(" ->")),
                        "plugins '" + x.plugin + "' and '" + y.plugin + "' conflict on builtin overload " +
                            bx.key.substr(0, bx.key.find('(')) + ": '" + x.plugin + "' registers " + bx.signature +
                            " [native " + bx.native_name + "], '" + y.plugin + "' registers " + by.signature +
                            " [native " + by.native_name + "]");
                }
            for (const auto &tx : x.native_types)
                for (const auto &ty : y.native_types) {
                    if (tx.name != ty.name || tx.digest == ty.digest) continue;
                    add("type " + tx.name, "native type " + tx.name,
                        "plugins '" + x.plugin + "' and '" + y.plugin + "' give native type '" + tx.name +
                            "' different definitions: '" + x.plugin + "' has " + tx.description + "; '" + y.plugin +
                            "' has " + ty.description);
                }
        }
    }
    std::sort(report.conflicts.begin(), report.conflicts.end(), [](const Conflict &a, const Conflict &b) {
        return std::tie(a.first, a.second, a.subject) < std::tie(b.first, b.second, b.subject);
    });

    // 3. All together: catches what pairs cannot (e.g. two versions of one plugin).
    if (!loadable.empty()) {
        Attempt combined = run({loadable, {}, "(all)", ""}); // no root: nothing is compiled
        for (PluginFailure &f : combined.failures)
            if (!explained.count(f.plugin)) report.combined_failures.push_back(std::move(f));
    }
    return report;
}

// --- The helper ------------------------------------------------------------

namespace {

/// The probe's loader: a child of the helper, and the only process that maps
/// plugin code. It writes what it found, unauthenticated, to `results`; the
/// helper judges it by how this process ended.
[[noreturn]] void run_loader(const Request &request, const HostOptions &host, int results) {
    Attempt a;
    try {
        a = attempt(request, host);
    } catch (const std::exception &e) {
        a = Attempt{{{request.who, {}, label(request.who) + ": " + e.what()}}, {}};
    }
    const std::string out = serialize(a, "loader");
    for (std::size_t done = 0; done < out.size();) {
        const ssize_t n = write(results, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) std::_Exit(3);
        done += static_cast<std::size_t>(n);
    }
    close(results);
    // exit(), not _Exit(): a plugin's destructors and atexit handlers run, as
    // they would in an application, and a crash there is the plugin's.
    std::exit(0);
}

} // namespace

int plugin_probe_main(int argc, char **argv) {
    Request request;
    HostOptions host;
    bool paths = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UserError("option " + arg + " needs a value");
            return argv[++i];
        };
        try {
            if (paths) request.paths.emplace_back(arg);
            else if (arg == "--") paths = true;
            else if (arg == "--who") request.who = value();
            else if (arg == "--root") request.root = value();
            else if (arg == "--no-environment") host.use_environment = false;
            else if (arg == "--no-core-builtins") host.core_builtins = false;
            else if (arg == "--search-path") host.search_path.emplace_back(value());
            else if (arg == "--cache-dir") host.cache_dir = value();
            else if (arg == "--log-categories") host.log_categories = value();
            else if (arg == "--trust") host.plugin_trust.mode = trust::parse_trust_mode(value());
            else if (arg == "--trusted-keys") host.plugin_trust.trusted_keys_dir = value();
            else if (arg == "--allow-list") host.plugin_trust.allow_list_file = value();
            else if (arg == "--allow") host.plugin_trust.allowed_digests.insert(value());
            else if (arg == "--compile") request.compile = true;
            else if (arg == "--no-cuda") request.compile_cuda = false;
            else if (arg == "--cuda-arch") request.cuda_arch = std::stoi(value());
            else if (arg == "--available") request.available.emplace_back(value());
            else throw UserError("unknown option '" + arg + "'");
        } catch (const std::exception &e) {
            std::fprintf(stderr, "weft-plugin-probe: %s (it is run by `weft plugin check --isolate`)\n", e.what());
            return 2;
        }
    }
    // This process never maps a plugin: its loader child does. It is not
    // dumpable, so a plugin running in the child (the same user) can neither
    // read its memory (the token, once read) nor open its descriptors (the
    // report) through /proc: the verdict is this process's view of how the
    // loader ended (its exit status, from the kernel), which no plugin code
    // can write. A forged report the plugin writes and then exits on reaches
    // only this process, as data it does not believe without a clean exit.
    prctl(PR_SET_DUMPABLE, 0);
    int results[2];
    const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || pipe2(results, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "weft-plugin-probe: cannot set up its loader: %s\n", std::strerror(errno));
        return 2;
    }
    // Single-threaded here (nothing started yet): fork() is safe.
    const pid_t loader = fork();
    if (loader < 0) {
        std::fprintf(stderr, "weft-plugin-probe: cannot start its loader: %s\n", std::strerror(errno));
        return 2;
    }
    if (loader == 0) {
        // Neither the token (on stdin, not read yet) nor the report (stdout)
        // is the loader's: stdin is /dev/null, stdout goes to stderr (a
        // chatty plugin), every other descriptor is closed.
        if (dup2(null, 0) < 0 || dup2(2, 1) < 0) std::_Exit(2);
        // Dumpable again (cores, /proc as before): this process holds no secret.
        prctl(PR_SET_DUMPABLE, 1);
        for (int fd = 3; fd < 1024; ++fd)
            if (fd != results[1]) close(fd);
        run_loader(request, host, results[1]);
    }
    close(results[1]);
    // The run's token arrives on stdin; stdin is then /dev/null.
    std::string token;
    for (char c; token.size() < 128;) {
        const ssize_t n = read(0, &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || c == '\n') break;
        token += c;
    }
    if (token.empty() || dup2(null, 0) < 0) {
        std::fprintf(stderr, "weft-plugin-probe: no report token on stdin (it is run by `weft plugin check --isolate`)\n");
        kill(loader, SIGKILL);
        return 2;
    }
    close(null);
    const int report = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (report < 0 || dup2(2, 1) < 0) {
        std::fprintf(stderr, "weft-plugin-probe: cannot set up its report: %s\n", std::strerror(errno));
        kill(loader, SIGKILL);
        return 2;
    }
    // Descriptors the caller leaked into this process are none of a plugin's business.
    for (int fd = 3; fd < 1024; ++fd)
        if (fd != report && fd != results[0]) close(fd);

    // No deadline here: the caller's (--isolate-timeout) ends this process group.
    const Collected c = collect(results[0], loader, std::chrono::steady_clock::time_point::max(), false);
    close(results[0]);
    Attempt a;
    const fs::path where = request.paths.size() == 1 ? request.paths.front() : fs::path();
    auto failed = [&](const std::string &why) {
        return Attempt{{{request.who, where, label(request.who) + ": the process loading it " + why}}, {}};
    };
    if (const std::string why = abnormal_end(c.status); !why.empty()) a = failed(why);
    else if (!deserialize(c.text, "loader", a))
        a = failed("exited with status 0 without reporting a result (did the plugin end the process?)");
    const std::string out = serialize(a, token);
    for (std::size_t done = 0; done < out.size();) {
        const ssize_t n = write(report, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 3;
        done += static_cast<std::size_t>(n);
    }
    close(report);
    return 0;
}

} // namespace weft
