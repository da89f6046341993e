// The host half of the runtime headers (rt_calls.cpp): the functions
// generated CPU code calls in the host, by linker name, for the CPU JIT to
// define in each module it links.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace weft::rt_host {

const std::vector<std::pair<std::string, void *>> &calls();

} // namespace weft::rt_host
