// Conflict checking for a set of plugins before shipping them together.
//
// Each plugin is loaded alone (with its requirements) into a fresh host, its
// contracts are compared pairwise with every other plugin's, and finally all
// are loaded into one host. The report depends only on the set of plugins,
// not on the order they were given in. With `isolate`, every load runs in a
// child process, so a plugin that crashes is reported instead of fatal.
#pragma once

#include "weft/host/host.hpp"

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
    std::vector<Builtin> builtins;
    std::vector<NativeType> native_types;
};

struct PluginCheck {
    std::string plugin;          // manifest name, or the path when unreadable
    std::filesystem::path path;  // the path as given
    std::string version;         // "" when the manifest could not be read
    bool ok = false;             // loads alone, with its requirements
    std::string message;         // why not, when !ok
};

struct Conflict {
    std::string first;  // plugin names, first < second
    std::string second;
    std::string subject; // "builtin f(float32)" or "native type ns::T"
    std::string message; // complete, names both plugins
};

struct CheckReport {
    std::vector<PluginCheck> plugins; // sorted by plugin name
    std::vector<Conflict> conflicts;  // sorted
    std::vector<PluginFailure> combined_failures; // loading all together, not explained above
    std::vector<std::string> warnings;            // manifest warnings
    bool ok() const;
};

struct CheckOptions {
    HostOptions host;     // search path etc. for every host the check creates
    bool isolate = false; // load in child processes
};

CheckReport check_plugins(const std::vector<std::filesystem::path> &paths, const CheckOptions &options = {});

/// The contracts a loaded plugin registered.
PluginContracts contracts_of(const LoadedPlugin &plugin);

} // namespace weft
