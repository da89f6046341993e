// Environment variables that override where weft looks (plugin paths, the
// cache directory, debug categories, the remote cache) are read through here.
// When the process runs with elevated privileges (setuid or setgid: the
// kernel's AT_SECURE flag, as glibc and the Vulkan loader use it) they are
// ignored, so whoever starts a privileged program cannot point it at their
// own plugins or cache.
#pragma once

namespace weft {

/// getauxval(AT_SECURE): the process was started setuid/setgid (or with
/// file capabilities), so its environment is not to be trusted.
bool secure_execution();

/// getenv(name), or nullptr when secure_execution() is true.
const char *environment_override(const char *name);

} // namespace weft
