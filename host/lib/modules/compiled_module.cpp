// The application's view of loaded modules and kernels (weft::CompiledModule,
// weft::Kernel): lookups, generic-kernel instances, the backward pass, and
// launches, which the kernel's DeviceCode runs.
#include "loaded_module.hpp"

#include "weft/support/error.hpp"

#include <algorithm>

namespace weft {

namespace fs = std::filesystem;

namespace {

thread_local LaunchObserver observer;

bool takes(const Kernel::Impl &k, const std::vector<KernelArg> &args) {
    if (k.entry.params.size() != args.size()) return false;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (!(k.entry.params[i].type == args[i].type())) return false;
    return true;
}

/// The instance of `k`'s generic kernel that takes `args` (k itself when it is not overloaded).
const Kernel::Impl &instance_for(const Kernel::Impl &k, const std::vector<KernelArg> &args) {
    if (!k.overloaded || takes(k, args)) return k;
    std::string instances;
    for (const auto &x : k.owner->kernels) {
        if (x->name() != k.name()) continue;
        if (takes(*x, args)) return *x;
        std::string sig;
        for (const KernelParam &p : x->entry.params) sig += (sig.empty() ? "" : ", ") + p.type.name();
        instances += "\n    (" + sig + ")";
    }
    std::string given;
    for (const KernelArg &a : args) given += (given.empty() ? "" : ", ") + a.type().name();
    throw LaunchError("kernel '" + k.name() + "' (module '" + k.owner->name + "') is generic and has no instance for "
                      "the argument types (" + given + "); weft makes the instances declared with wp.overload when the "
                      "module loads, add wp.overload(" + k.name() + ", [types]) for these. Its instances:" + instances);
}

/// The kernel called `name`, else the one whose decorator's name= (Warp's
/// kernel key) is `name`; UserError naming the module's kernels when there is none.
const std::shared_ptr<Kernel::Impl> &find_kernel(const CompiledModule::Impl &m, std::string_view name) {
    for (const auto &k : m.kernels)
        if (k->name() == name) return k;
    for (const auto &k : m.kernels)
        if (!k->key().empty() && k->key() == name) return k;
    std::string known;
    for (const auto &k : m.kernels) known += (known.empty() ? "" : ", ") + k->name();
    throw UserError("module '" + m.name + "' has no kernel '" + std::string(name) + "' (its kernels: " +
                    (known.empty() ? "none" : known) + ")");
}

} // namespace

LaunchObserver exchange_launch_observer(LaunchObserver next) {
    const LaunchObserver previous = observer;
    observer = next;
    return previous;
}

const std::string &Kernel::name() const { return impl_->name(); }
const std::vector<KernelParam> &Kernel::params() const { return impl_->entry.params; }

void Kernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args) const {
    launch(dim, args, LaunchOptions{});
}

void Kernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, Stream *stream) const {
    launch(dim, args, LaunchOptions{stream});
}

StructValue Kernel::make_struct(std::string_view param) const {
    std::string names;
    for (const KernelParam &p : impl_->entry.params) {
        if (p.name == param) {
            if (p.type.kind() != Type::Kind::Struct)
                throw UserError("kernel '" + impl_->name() + "': parameter '" + p.name + "' is " + p.type.name() +
                                ", not a struct");
            return StructValue(p.type);
        }
        names += (names.empty() ? "" : ", ") + p.name + ": " + p.type.name();
    }
    throw UserError("kernel '" + impl_->name() + "' has no parameter '" + std::string(param) + "'; its parameters: " + names);
}

Device Kernel::device() const { return impl_->device; }
const std::string &Kernel::module() const { return impl_->owner->name; }
const std::string &Kernel::module_hash() const { return impl_->owner->hash; }
int Kernel::tid_dims() const { return impl_->entry.tid_dims; }
bool Kernel::tiled() const { return impl_->entry.tiled; }

Kernel Kernel::backward() const {
    const CompiledModule::Impl &module = *impl_->owner;
    if (!impl_->entry.no_backward.empty())
        throw UserError("kernel '" + impl_->name() + "' (module '" + module.name + "') has no backward pass: " +
                        impl_->entry.no_backward);
    std::shared_ptr<CompiledModule::Impl> b;
    {
        std::lock_guard<std::mutex> lock(module.backward_mutex);
        if (!module.backward) {
            if (!module.build_backward)
                throw UserError("kernel '" + impl_->name() + "' (module '" + module.name + "') has no backward pass");
            module.backward = module.build_backward();
        }
        b = module.backward;
    }
    // The instance with this one's parameters first (a generic kernel's instances share its name).
    const std::vector<KernelParam> &mine = impl_->entry.params;
    const auto same_params = [&](const Kernel::Impl &k) {
        if (k.entry.params.size() < mine.size()) return false;
        for (std::size_t i = 0; i < mine.size(); ++i)
            if (!(k.entry.params[i].type == mine[i].type)) return false;
        return true;
    };
    for (const std::shared_ptr<Kernel::Impl> &k : b->kernels)
        if (k->name() == impl_->name() && same_params(*k)) {
            Kernel out;
            out.impl_ = std::shared_ptr<const Impl>(b, k.get());
            return out;
        }
    throw UserError("kernel '" + impl_->name() + "' (module '" + module.name +
                    "') has no backward pass: it is declared with enable_backward=False or an external entry point ABI");
}

void Kernel::launch_adjoint(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args,
                            const std::vector<KernelArg> &adj_args, const LaunchOptions &options) const {
    if (const Impl &chosen = instance_for(*impl_, args); &chosen != impl_.get()) {
        Kernel k;
        k.impl_ = std::shared_ptr<const Impl>(impl_, &chosen);
        return k.launch_adjoint(dim, args, adj_args, options);
    }
    const std::size_t n = impl_->entry.params.size();
    if (adj_args.size() != n)
        throw LaunchError("launch_adjoint of kernel '" + impl_->name() + "': it has " + std::to_string(n) +
                          " parameters, so " + std::to_string(n) + " adjoint arguments, got " +
                          std::to_string(adj_args.size()));
    const Kernel b = backward();
    std::vector<KernelArg> all = args;
    all.insert(all.end(), adj_args.begin(), adj_args.end());
    b.launch(dim, all, options);
}

void Kernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args,
                    const LaunchOptions &options) const {
    if (const Impl &chosen = instance_for(*impl_, args); &chosen != impl_.get()) {
        Kernel k;
        k.impl_ = std::shared_ptr<const Impl>(impl_, &chosen); // the same module, kept loaded
        return k.launch(dim, args, options);
    }
    if (options.stream && options.stream->device() != impl_->device)
        throw LaunchError("kernel '" + impl_->name() + "' runs on " + impl_->device.name() + "; the stream is on " +
                          options.stream->device().name());
    impl_->owner->code->launch(impl_, dim, args, options);
    // A launch that was refused (bad arguments, failed checks) is not seen.
    if (observer.launched) observer.launched(observer.context, *this, dim, args, options);
}

CompiledModule::CompiledModule(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

const std::string &CompiledModule::name() const { return impl_->name; }
const std::string &CompiledModule::hash() const { return impl_->hash; }
bool CompiledModule::from_cache() const { return impl_->from_cache; }
bool CompiledModule::from_shared_object() const { return impl_->from_shared_object; }
double CompiledModule::load_ms() const { return impl_->load_ms; }
const fs::path &CompiledModule::artifact_path() const { return impl_->artifact_path; }
const fs::path &CompiledModule::generated_source_path() const { return impl_->generated_source_path; }
const fs::path &CompiledModule::source_path() const { return impl_->source_path; }
Device CompiledModule::device() const { return impl_->device; }

std::vector<std::string> CompiledModule::kernel_names() const {
    // The instances of a generic kernel (wp.overload) share one name, listed once.
    std::vector<std::string> names;
    for (const auto &k : impl_->kernels)
        if (std::find(names.begin(), names.end(), k->name()) == names.end()) names.push_back(k->name());
    return names;
}

std::vector<Kernel> CompiledModule::kernels() const {
    std::vector<Kernel> out;
    for (const std::shared_ptr<Kernel::Impl> &k : impl_->kernels) {
        Kernel x;
        x.impl_ = std::shared_ptr<const Kernel::Impl>(impl_, k.get());
        out.push_back(std::move(x));
    }
    return out;
}

Kernel CompiledModule::kernel(std::string_view name) const {
    Kernel out;
    // Shares ownership of the module: the kernel's code stays loaded while the handle lives.
    out.impl_ = std::shared_ptr<const Kernel::Impl>(impl_, find_kernel(*impl_, name).get());
    return out;
}

} // namespace weft
