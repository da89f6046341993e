// The loaded modules of a host, one per (module name, device). Not
// synchronized: its owner guards it (the host, with the name claims).
#pragma once

#include "loaded_module.hpp"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft::modules {

class ModuleTable {
public:
    using Module = std::shared_ptr<CompiledModule::Impl>;

    /// The module of that name loaded on `device` (nullptr: none).
    Module find(std::string_view name, Device device) const;
    /// Makes `module` the loaded module of its name on `device` and returns
    /// the one it replaces: released by the caller outside its lock
    /// (unloading code runs static destructors, and a CUDA unload may wait for the device).
    Module put(std::string_view name, Device device, Module module);
    /// Takes the modules of that name off every device, for the caller to release.
    std::vector<Module> remove(std::string_view name);
    /// Takes every module, for the caller to release.
    std::vector<Module> take_all();

private:
    std::map<std::string, Module, std::less<>> modules_; // "<name>\n<device>": a name's devices are adjacent
};

} // namespace weft::modules
