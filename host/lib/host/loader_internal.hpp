// Pieces of the loader shared between its source files; not installed.
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/host/host.hpp"
#include "weft/support/log.hpp"
#include "weft/registry/registry.hpp"

#include <weft/plugin.h>

#include <filesystem>
#include <string>
#include <vector>

namespace weft {

Discovery discover_plugins(const std::vector<std::filesystem::path> &search_path);

/// Throws UserError "not a valid shared library: REASON" unless `path` is a
/// regular ELF shared object for this host's class, byte order and machine
/// whose header tables and loadable segments lie inside the file. Run before
/// dlopen, which would fault (SIGBUS) on a truncated file.
void check_shared_library_file(const std::filesystem::path &path);

/// A string a plugin passed across the ABI, copied after checking that it is
/// UTF-8 (it reaches JSON output, generated source and terminals). Throws
/// RegistrationError "FIELD is not valid UTF-8 (byte 0xNN at offset K)".
/// NULL gives "".
std::string string_from_plugin(const char *s, const std::string &field);

} // namespace weft

/// The staging context behind weft_host_api::ctx while one plugin's init runs.
struct weft_host_context {
    std::string plugin;
    weft::Registry::Transaction transaction;
    const weft::Logger *logger = nullptr;
    std::vector<weft::ModuleBuildOptions> build_options;
    std::string last_error;
    std::string reported_error;       // from report_error
    std::vector<std::string> rejected; // every rejected call, in order
};

namespace weft {

/// The v1 host function table for one plugin's init. Strings it points to
/// must outlive the call (they belong to the caller).
weft_host_api make_host_api(weft_host_context &ctx, const char *plugin_directory);

} // namespace weft
