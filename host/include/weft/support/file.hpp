// Reading input files (manifests, kernel sources) that a user or a plugin
// directory names: only regular files, and only up to a size, so a FIFO,
// /dev/zero or a directory is an error rather than a hang, an out-of-memory
// abort or an empty "file".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace weft {

/// Reads all of `path`. Throws UserError "PATH: cannot read WHAT: REASON" when
/// it does not exist, is not a regular file (saying what it is), is larger
/// than `max_bytes` or cannot be read. `what` is e.g. "plugin manifest".
std::string read_input_file(const std::filesystem::path &path, std::uintmax_t max_bytes, std::string_view what);

/// read_input_file, except that nothing at `path` (no such entry, or a path
/// component that is not a directory) gives nullopt instead of an error.
std::optional<std::string> read_input_file_if_present(const std::filesystem::path &path, std::uintmax_t max_bytes,
                                                      std::string_view what);

/// Writes `content` to a temporary beside `path` (named after `path`, this
/// process and a counter), then renames it into place: readers, and
/// concurrent writers of the same content, never see a torn file. Creates the
/// parent directory. Throws UserError naming `path`; no temporary is left.
void write_file_atomically(const std::filesystem::path &path, std::string_view content);

/// Creates `path` (which must not exist; a final link is not followed) with
/// `content`. Throws UserError "PATH: cannot write: REASON (errno N)", the
/// partial file removed: a full disk shows here, at write or at close.
void write_new_file(const std::filesystem::path &path, std::string_view content);

/// "REASON (errno N)" for an errno value.
std::string errno_text(int err);

/// "a directory", "a FIFO", "a character device", "a symbolic link loop", ...:
/// what is at `path` when it is not a regular file, for error messages; "" for
/// a regular file, "nothing (no such file or directory)" when nothing is there.
std::string describe_file_kind(const std::filesystem::path &path);

} // namespace weft
