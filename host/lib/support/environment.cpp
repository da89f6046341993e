#include "weft/support/environment.hpp"

#include <cstdlib>

#include <sys/auxv.h>

namespace weft {

bool secure_execution() { return getauxval(AT_SECURE) != 0; }

const char *environment_override(const char *name) { return secure_execution() ? nullptr : std::getenv(name); }

} // namespace weft
