#include "weft/host/check.hpp"

#include "weft/support/error.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace weft {

namespace fs = std::filesystem;

namespace {

std::string types_key(const BuiltinOverload &o) {
    std::string key = o.name + "(";
    for (const Parameter &p : o.params) key += p.type.code() + ",";
    return key + ")";
}

/// Outcome of loading one plugin alone (or everything together).
struct Attempt {
    std::vector<PluginFailure> failures;
    std::vector<PluginContracts> contracts; // of the root plugins that loaded
};

Attempt attempt(const std::vector<fs::path> &paths, const std::vector<fs::path> &available,
                const HostOptions &options) {
    Host host(options);
    LoadReport report = host.load_all(paths, available);
    Attempt a;
    a.failures = report.failures;
    for (const LoadedPlugin *p : host.plugins()) a.contracts.push_back(contracts_of(*p));
    return a;
}

// --- A tiny line protocol for results coming back from a child process. ---
// Fields are separated by \x1f, records by \n; neither occurs in names,
// signatures or messages we produce (messages are sanitized).

std::string clean(std::string s) {
    for (char &c : s)
        if (c == '\n' || c == '\x1f') c = ' ';
    return s;
}

std::string serialize(const Attempt &a) {
    std::ostringstream out;
    for (const PluginFailure &f : a.failures)
        out << "F\x1f" << clean(f.plugin) << "\x1f" << clean(f.where.string()) << "\x1f" << clean(f.message) << "\n";
    for (const PluginContracts &c : a.contracts) {
        out << "P\x1f" << c.plugin << "\x1f" << c.version << "\n";
        for (const auto &b : c.builtins)
            out << "B\x1f" << b.key << "\x1f" << b.identity << "\x1f" << b.signature << "\x1f" << b.native_name << "\n";
        for (const auto &t : c.native_types) out << "T\x1f" << t.name << "\x1f" << t.digest << "\x1f" << t.description << "\n";
    }
    return out.str();
}

Attempt deserialize(const std::string &text) {
    Attempt a;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::string::size_type start = 0;
        for (;;) {
            const auto pos = line.find('\x1f', start);
            f.push_back(line.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
            if (pos == std::string::npos) break;
            start = pos + 1;
        }
        if (f[0] == "F" && f.size() == 4) a.failures.push_back({f[1], f[2], f[3]});
        else if (f[0] == "P" && f.size() == 3) a.contracts.push_back({f[1], f[2], {}, {}});
        else if (f[0] == "B" && f.size() == 5 && !a.contracts.empty())
            a.contracts.back().builtins.push_back({f[1], f[2], f[3], f[4]});
        else if (f[0] == "T" && f.size() == 4 && !a.contracts.empty())
            a.contracts.back().native_types.push_back({f[1], f[2], f[3]});
    }
    return a;
}

/// Runs attempt() in a child process; a crash becomes a failure of `who`.
Attempt attempt_isolated(const std::vector<fs::path> &paths, const std::vector<fs::path> &available,
                         const HostOptions &options, const std::string &who) {
    int fds[2];
    if (pipe(fds) != 0) throw InternalError(std::string("pipe: ") + std::strerror(errno));
    const pid_t pid = fork();
    if (pid < 0) throw InternalError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        // The parent's crash handlers (a test framework's, a sanitizer's) must not
        // turn the plugin's crash into an orderly exit: die by the signal instead.
        for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
        std::string out;
        try {
            out = serialize(attempt(paths, available, options));
        } catch (const std::exception &e) {
            out = serialize(Attempt{{{who, {}, "plugin '" + who + "': " + e.what()}}, {}});
        }
        std::size_t done = 0;
        while (done < out.size()) {
            const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
            if (n <= 0) _exit(3);
            done += static_cast<std::size_t>(n);
        }
        _exit(0);
    }
    close(fds[1]);
    std::string text;
    char buffer[4096];
    for (;;) {
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        return Attempt{{{who, paths.empty() ? fs::path() : paths.front(),
                         "plugin '" + who + "': the process loading it crashed with signal " + std::to_string(sig) +
                             " (" + strsignal(sig) + ")"}},
                       {}};
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return Attempt{{{who, {}, "plugin '" + who + "': the process loading it exited with status " +
                                      std::to_string(WEXITSTATUS(status))}},
                       {}};
    return deserialize(text);
}

} // namespace

PluginContracts contracts_of(const LoadedPlugin &plugin) {
    PluginContracts c;
    c.plugin = plugin.name();
    c.version = plugin.manifest.version.str();
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
    // Plugins in the checked set satisfy each other's requirements.
    auto run = [&](const std::vector<fs::path> &ps, const std::string &who) {
        return options.isolate ? attempt_isolated(ps, paths, options.host, who) : attempt(ps, paths, options.host);
    };

    // 1. Each plugin alone.
    std::map<std::string, PluginContracts> contracts; // by plugin name
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
        Attempt a = run({path}, check.plugin);
        auto own = std::find_if(a.failures.begin(), a.failures.end(),
                                [&](const PluginFailure &f) { return f.plugin == check.plugin; });
        if (own != a.failures.end()) {
            check.message = own->message;
        } else if (!a.failures.empty()) {
            check.message = a.failures.front().message;
        } else {
            check.ok = true;
            loadable.push_back(path);
            for (PluginContracts &c : a.contracts)
                if (c.plugin == check.plugin) contracts[c.plugin] = std::move(c);
        }
        report.plugins.push_back(std::move(check));
    }
    std::sort(report.warnings.begin(), report.warnings.end());
    std::sort(report.plugins.begin(), report.plugins.end(),
              [](const PluginCheck &a, const PluginCheck &b) { return a.plugin < b.plugin; });

    // 2. Pairwise: every pair of plugins that register different contracts under one key.
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (auto a = contracts.begin(); a != contracts.end(); ++a) {
        for (auto b = std::next(a); b != contracts.end(); ++b) {
            const PluginContracts &x = a->second;
            const PluginContracts &y = b->second;
            for (const auto &bx : x.builtins)
                for (const auto &by : y.builtins) {
                    if (bx.key != by.key || bx.identity == by.identity) continue;
                    const std::string subject = "builtin " + bx.signature.substr(0, bx.signature.find(" ->"));
                    if (!seen.insert({x.plugin, y.plugin, bx.key}).second) continue;
                    report.conflicts.push_back(
                        {x.plugin, y.plugin, subject,
                         "plugins '" + x.plugin + "' and '" + y.plugin + "' conflict on builtin overload " +
                             bx.key.substr(0, bx.key.find('(')) + ": '" + x.plugin + "' registers " + bx.signature +
                             " [native " + bx.native_name + "], '" + y.plugin + "' registers " + by.signature +
                             " [native " + by.native_name + "]"});
                }
            for (const auto &tx : x.native_types)
                for (const auto &ty : y.native_types) {
                    if (tx.name != ty.name || tx.digest == ty.digest) continue;
                    report.conflicts.push_back({x.plugin, y.plugin, "native type " + tx.name,
                                                "plugins '" + x.plugin + "' and '" + y.plugin +
                                                    "' give native type '" + tx.name + "' different definitions: '" +
                                                    x.plugin + "' has " + tx.description + "; '" + y.plugin +
                                                    "' has " + ty.description});
                }
        }
    }
    std::sort(report.conflicts.begin(), report.conflicts.end(), [](const Conflict &a, const Conflict &b) {
        return std::tie(a.first, a.second, a.subject) < std::tie(b.first, b.second, b.subject);
    });

    // 3. All together: catches what pairs cannot (e.g. two requirement versions).
    std::set<std::string> explained;
    for (const Conflict &c : report.conflicts) {
        explained.insert(c.first);
        explained.insert(c.second);
    }
    if (!loadable.empty()) {
        Attempt all = run(loadable, "(all)");
        for (PluginFailure &f : all.failures)
            if (!explained.count(f.plugin)) report.combined_failures.push_back(std::move(f));
    }
    return report;
}

} // namespace weft
