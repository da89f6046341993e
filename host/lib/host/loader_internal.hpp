// Pieces of the loader shared between its source files; not installed.
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/host/host.hpp"
#include "weft/host/object.hpp"
#include "weft/support/log.hpp"
#include "weft/registry/registry.hpp"

#include <weft/plugin.h>

#include <array>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

Discovery discover_plugins(const std::vector<std::filesystem::path> &search_path);

/// read_manifest(locate_manifest(path)), with the same results and errors,
/// in fewer system calls when `path` is a plugin directory.
PluginManifest read_plugin_manifest(const std::filesystem::path &path);

/// Throws UserError "not a valid shared library: REASON" unless `path` is a
/// regular ELF shared object for this host's class, byte order and machine
/// whose header tables and loadable segments lie inside the file. Run before
/// dlopen, which would fault (SIGBUS) on a truncated file.
void check_shared_library_file(const std::filesystem::path &path);

/// What a shared library asks of the dynamic loader: the libraries it needs
/// (DT_NEEDED) and the directories it searches first (DT_RUNPATH, DT_RPATH).
struct LibraryDependencies {
    std::vector<std::string> needed;
    std::vector<std::string> search_dirs;
};
/// Read from the library's bytes (already checked as an ELF shared object);
/// UserError "not a valid shared library: ..." for tables outside the bytes.
LibraryDependencies read_library_dependencies(std::string_view bytes);
/// Under a trust policy, why the dependencies are refused, or "": every
/// library the loader would map beside a checked plugin must come from the
/// system library directories, found there by name, with no RUNPATH or RPATH
/// naming another directory.
std::string untrusted_dependency(const LibraryDependencies &deps);
/// Each needed library's path in the system library directories (those
/// untrusted_dependency accepted): loaded by these paths before the plugin, so
/// that the dynamic loader's own search (its cache lists /usr/local/lib first,
/// LD_LIBRARY_PATH before both) finds them loaded already, by soname.
std::vector<std::string> system_dependency_paths(const LibraryDependencies &deps);

/// A string a plugin passed across the ABI, copied after checking that it is
/// UTF-8 (it reaches JSON output, generated source and terminals). Throws
/// RegistrationError "FIELD is not valid UTF-8 (byte 0xNN at offset K)".
/// NULL gives "".
std::string string_from_plugin(const char *s, const std::string &field);

} // namespace weft

namespace weft {

/// What one plugin's init stages; the loader reads it once init has returned.
struct InitSession {
    std::string plugin;
    Registry::Transaction transaction;
    const Logger *logger = nullptr;
    std::vector<ModuleBuildOptions> build_options;
    std::vector<ObjectTypeInfo> object_types; // weft_register_object_type, in call order
    std::string reported_error;       // from report_error
    std::vector<std::string> rejected; // every rejected call, in order
    BuiltinSpec builtin_spec;          // register_builtin's input, reused (see host_api.cpp)
    /// Kernel type names register_builtin has checked in this init. Their
    /// checks (length, nesting, UTF-8) depend on the text alone, and a plugin
    /// spells the same few in every registration: a repeat is compared, not
    /// scanned again (bench/plugin_load).
    struct CheckedTypeNames {
        static constexpr std::size_t capacity = 8;
        std::array<std::string, capacity> names;
        std::size_t count = 0;
        bool contains(std::string_view name) const {
            for (std::size_t i = 0; i < count; ++i)
                if (names[i] == name) return true;
            return false;
        }
        void add(std::string_view name) {
            if (count < capacity) names[count++] = name;
        }
    } checked_type_names;
};

} // namespace weft

/// The object behind weft_host_api::ctx. A plugin may keep the table or the
/// context past init (in a thread, a destructor, a static): both live in this
/// object, which is never freed, and once init has returned every call through
/// it is refused with a status instead of touching the loader's dead frame.
/// A few hundred bytes per plugin load is the price of no dangling pointer.
struct weft_host_context {
    std::mutex mutex;
    std::unique_ptr<weft::InitSession> session; // null once init has returned
    std::string last_error;
    std::string plugin_directory;
    weft_host_api api{};
};

namespace weft {

/// A context with its v1 host function table (ctx->api) for one plugin's init.
/// The context stays valid for the life of the process.
weft_host_context &open_host_context(std::unique_ptr<InitSession> session, std::string plugin_directory);

/// Ends init for `ctx`: waits for a call in progress, then refuses every later
/// call. Returns what init staged.
std::unique_ptr<InitSession> close_host_context(weft_host_context &ctx);

} // namespace weft
