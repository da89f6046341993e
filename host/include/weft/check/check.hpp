// Conflict checking for a set of plugins before shipping them together.
//
// Each plugin is loaded alone (with its requirements) into a fresh host, its
// build options are resolved and, on request, a smoke module that uses all it
// registers is compiled. The contracts of every plugin loaded that way (the
// checked ones and their requirements) are compared pairwise, and finally all
// are loaded into one host. The report depends only on the set of plugins,
// not on the order they were given in. With `isolate`, every load runs in a
// helper process, so a plugin that crashes is reported instead of fatal.
#pragma once

#include "weft/host/host.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace weft {

/// What one plugin registers, as compared between plugins.
struct PluginContracts {
    struct Builtin {
        std::string key;       // name + parameter type codes: what dispatch sees
        std::string identity;  // BuiltinOverload::identity()
        std::string signature; // BuiltinOverload::signature()
        std::string native_name;
    };
    struct NativeType {
        std::string name;
        std::string digest;
        std::string description; // NativeTypeInfo::describe()
    };
    std::string plugin;
    std::string version;
    std::filesystem::path manifest; // tells apart two plugins of one name
    std::vector<Builtin> builtins;
    std::vector<NativeType> native_types;
};

struct PluginCheck {
    std::string plugin;          // manifest name, or the path when unreadable
    std::filesystem::path path;  // the path as given
    std::string version;         // "" when the manifest could not be read
    bool ok = false;             // loads alone with its requirements, options resolve, smoke module builds
    std::string message;         // why not, when !ok: every problem, one per line
};

struct Conflict {
    std::string first;  // plugin names, first < second
    std::string second;
    std::string subject; // "builtin f(float32)" or "native type ns::T"
    std::string message; // complete, names both plugins (and what required them)
};

struct CheckReport {
    std::vector<PluginCheck> plugins; // sorted by plugin name, then path
    std::vector<Conflict> conflicts;  // sorted
    std::vector<PluginFailure> combined_failures; // loading all together, not explained above
    std::vector<std::string> warnings;            // manifest warnings
    bool ok() const;
};

struct CheckOptions {
    HostOptions host;     // search path etc. for every host the check creates
    /// Load in helper processes (see `helper`): a crash, or an exit without a
    /// report, is a failure of the plugin being loaded.
    bool isolate = false;
    /// How long one helper may run before it (and what it started) is killed
    /// and the load reported as "timed out".
    std::chrono::milliseconds isolate_timeout{std::chrono::seconds(60)};
    /// Build each plugin's smoke module (smoke_module_source) on the CPU and,
    /// with `compile_cuda` and NVRTC available, as PTX for `cuda_arch`.
    bool compile = false;
    bool compile_cuda = true;
    int cuda_arch = 0; // 0: 90 if NVRTC supports it, else its newest architecture
    /// The executable isolated loads run in (it calls plugin_probe_main).
    /// Empty: weft-plugin-probe in the directory of the running executable.
    std::filesystem::path helper;
};

CheckReport check_plugins(const std::vector<std::filesystem::path> &paths, const CheckOptions &options = {});

/// The contracts a loaded plugin registered.
PluginContracts contracts_of(const LoadedPlugin &plugin);

/// Kernel source that calls every builtin `plugin` registered (one kernel
/// each, taking the parameters as kernel parameters) and, per native type,
/// default-constructs it, reads and writes every exposed field, constructs it
/// from its fields when it is an aggregate and stores it in an array.
std::string smoke_module_source(const LoadedPlugin &plugin);

/// The helper side of an isolated check: reads the run's token from stdin
/// (then /dev/null), closes every other descriptor it inherited, loads what
/// the command line names, reports on the stdout it was started with (its own
/// stdout then goes to stderr, so plugin output cannot corrupt the report) and
/// exits 0; 2 on a bad command line. The report starts and ends with records
/// carrying the token: a process that exits without them did not finish, and
/// a plugin that does not know the token cannot forge them.
int plugin_probe_main(int argc, char **argv);

} // namespace weft
