// The loaded modules of a host by (module name, device).
#include "module_table.hpp"

namespace weft::modules {

namespace {
std::string key(std::string_view name, Device device) { return std::string(name) + "\n" + device.name(); }
} // namespace

ModuleTable::Module ModuleTable::find(std::string_view name, Device device) const {
    const auto it = modules_.find(key(name, device));
    return it == modules_.end() ? nullptr : it->second;
}

ModuleTable::Module ModuleTable::put(std::string_view name, Device device, Module module) {
    Module &slot = modules_[key(name, device)];
    Module replaced = std::move(slot);
    slot = std::move(module);
    return replaced;
}

std::vector<ModuleTable::Module> ModuleTable::remove(std::string_view name) {
    std::vector<Module> out;
    const std::string prefix = std::string(name) + "\n";
    for (auto it = modules_.lower_bound(prefix); it != modules_.end() && it->first.starts_with(prefix);) {
        out.push_back(std::move(it->second));
        it = modules_.erase(it);
    }
    return out;
}

std::vector<ModuleTable::Module> ModuleTable::take_all() {
    std::vector<Module> out;
    for (auto &[name, module] : modules_) out.push_back(std::move(module));
    modules_.clear();
    return out;
}

} // namespace weft::modules
