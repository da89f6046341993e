// CPU code of a loaded module: mapped from the shared object the cache keeps
// for the artifact (shared_objects.hpp), else its object linked into the JIT;
// launches run across the host's thread pool (runtime/launch.hpp).
#include "device_code.hpp"

#include "shared_objects.hpp"
#include "weft/backend/cpu_compiler.hpp"
#include "weft/runtime/launch.hpp"

#include <atomic>
#include <cstring>
#include <type_traits>

namespace weft::modules {

namespace {

class CpuCode final : public DeviceCode {
public:
    /// What a launch of one kernel needs beyond its arguments.
    struct KernelCode {
        CpuEntry entry = nullptr; // the kernel, or its dense copy when strided_section > 0
        // A kernel with a dense copy (codegen::strided_macro) runs it when each
        // of these array parameters (index, element size) is dense in its last
        // dimension; else the strided copy runs, linked into the module's code
        // when a launch first needs it.
        std::vector<std::pair<std::size_t, std::uint64_t>> dense_arrays;
        mutable std::atomic<CpuEntry> strided{nullptr};
        CpuLaunchPlan plan;
    };

    std::unique_ptr<backend::JitModule> jit;
    int *expect_failures = nullptr;    // the module's counter (weft_expect_failures)
    FailureLog *failure_log = nullptr; // weft_failure_log: debug mode's first bounds failures
    int *bounds_failures = nullptr;    // weft_bounds_failures: all of them
    Logger logger;
    std::vector<std::unique_ptr<KernelCode>> kernels; // by Kernel::Impl::index
    std::function<std::string(int section)> build_strided;
    mutable std::mutex launch_mutex; // expect_* accounting is per launch
    mutable std::mutex strided_mutex;

    /// Looks up everything the module's code must answer for (BackendError when a symbol is missing).
    void attach(const std::vector<codegen::KernelEntry> &entries) {
        kernels.clear();
        expect_failures = static_cast<int *>(jit->lookup("weft_expect_failures"));
        failure_log = static_cast<FailureLog *>(jit->lookup("weft_failure_log"));
        bounds_failures = static_cast<int *>(jit->lookup("weft_bounds_failures"));
        for (const codegen::KernelEntry &e : entries) {
            auto k = std::make_unique<KernelCode>();
            using Fn = std::remove_pointer_t<CpuEntry>;
            k->entry = jit->lookup_function<Fn>(e.strided_section > 0 ? codegen::dense_symbol(e) : e.symbol);
            // The arrays generated code tests (an indexed array reads its base
            // array through index arrays, so its own density never matters).
            if (e.strided_section > 0)
                for (std::size_t i = 0; i < e.params.size(); ++i) {
                    const Type &t = e.params[i].type;
                    if (t.kind() == Type::Kind::Array && !t.is_indexed_array())
                        k->dense_arrays.emplace_back(i, t.element().size());
                }
            k->plan.loops = e.loops;
            k->plan.serial = e.serial;
            for (int g : e.private_gradients) {
                const Type &t = e.params.at(static_cast<std::size_t>(g)).type;
                if (t.kind() != Type::Kind::Array || t.is_indexed_array() ||
                    (t.element().scalar_type() != Scalar::Float32 && t.element().scalar_type() != Scalar::Float64))
                    throw InternalError("kernel '" + e.name + "': private gradient " + std::to_string(g) +
                                        " is not an array of float32 or float64 values");
                k->plan.private_gradients.push_back(
                    {static_cast<std::size_t>(g), t.element().scalar_type() == Scalar::Float64, t.element().size()});
            }
            kernels.push_back(std::move(k));
        }
    }

    /// The entry that runs `k` on these arguments.
    CpuEntry entry_for(const Kernel::Impl &k, const PackedArgs &packed) const {
        const KernelCode &code = *kernels[k.index];
        if (k.entry.strided_section == 0) return code.entry;
        bool dense = true;
        for (const auto &[i, element_size] : code.dense_arrays)
            dense = dense && innermost_dense(packed.pointers()[i], element_size);
        if (dense) return code.entry;
        if (CpuEntry e = code.strided.load(std::memory_order_acquire)) return e;
        const std::lock_guard<std::mutex> lock(strided_mutex);
        if (CpuEntry e = code.strided.load(std::memory_order_acquire)) return e;
        if (!build_strided)
            throw LaunchError("kernel '" + k.name() + "' (module '" + k.owner->name + "'): an argument array is strided "
                              "in its last dimension, and this module has no strided copy of the kernel");
        const std::string object = build_strided(k.entry.strided_section);
        jit->add_object(std::vector<char>(object.begin(), object.end()),
                        backend::strided_copy_part(k.entry.strided_section));
        const CpuEntry e = jit->lookup_function<std::remove_pointer_t<CpuEntry>>(codegen::strided_symbol(k.entry));
        code.strided.store(e, std::memory_order_release);
        return e;
    }

    /// Runs one launch and reports its failed expect_* checks.
    void run(const Kernel::Impl &k, const std::vector<std::int64_t> &dim, const PackedArgs &packed, ThreadPool &pool,
             const char *context, int block_dim) const {
        // One launch of a module at a time reads and resets its failure counters
        // and log: cleared first, so a launch that threw before reading them
        // leaves nothing to the next one.
        std::lock_guard<std::mutex> lock(launch_mutex);
        auto *counter = reinterpret_cast<std::atomic<int> *>(expect_failures);
        counter->store(0);
        // A message is written only under a claimed count, so a zero count
        // means a clean log: no 2 KiB memset per launch.
        if (bounds_failures && __atomic_exchange_n(bounds_failures, 0, __ATOMIC_SEQ_CST) != 0 && failure_log)
            std::memset(failure_log, 0, sizeof(FailureLog));
        if (block_dim == 1) {
            launch_cpu(entry_for(k, packed), dim, packed, pool, kernels[k.index]->plan);
        } else {
            CpuLaunchPlan plan = kernels[k.index]->plan;
            plan.block_dim = block_dim;
            launch_cpu(entry_for(k, packed), dim, packed, pool, plan);
        }
        const int failed = counter->exchange(0);
        if (!failed) return;
        const int bounds = bounds_failures ? __atomic_exchange_n(bounds_failures, 0, __ATOMIC_SEQ_CST) : 0;
        FailureLog log{};
        if (failure_log) {
            log = *failure_log;
            std::memset(failure_log, 0, sizeof log);
        }
        throw_failed_checks("kernel '" + k.name() + "' (module '" + k.owner->name + "')" + context, failed, bounds,
                            failure_log ? &log : nullptr, logger);
    }

    void launch(const std::shared_ptr<const Kernel::Impl> &k, const std::vector<std::int64_t> &dim,
                const std::vector<KernelArg> &args, const LaunchOptions &options) const override {
        // A tiled launch's blocks have block_dim lanes (block_dim() reads it); other CPU launches 1, as Warp.
        if (k->entry.tiled && options.block_dim < 0)
            throw LaunchError("kernel '" + k->name() + "': block size " + std::to_string(options.block_dim) +
                              " is negative (a tile kernel's block_dim: 1 or more, or 0 for " +
                              std::to_string(default_tile_block_dim) + ")");
        const int block_dim = k->entry.tiled ? (options.block_dim > 0 ? options.block_dim : default_tile_block_dim) : 1;
        check_launchable(k->name(), k->external(), k->entry.tid_dims, dim);
        std::shared_ptr<ThreadPool> pool = k->live_pool();
        if (!options.stream) {
            run(*k, dim, pack_launch_args(*k, args), *pool, "", block_dim);
            return;
        }
        // Shared, not moved in: the stream's tasks are std::function, which must be copyable.
        auto packed = std::make_shared<const PackedArgs>(pack_launch_args(*k, args));
        // `k` keeps the module's code loaded until the task has run.
        options.stream->enqueue(
            [this, k, packed, dim, pool, block_dim] { run(*k, dim, *packed, *pool, ", on a stream", block_dim); });
    }

    std::string kernel_signatures() const override {
        const auto *digest = static_cast<const char *>(jit->lookup(codegen::kernel_signatures_symbol));
        return std::string(digest, strnlen(digest, 65));
    }
};

} // namespace

std::unique_ptr<DeviceCode> load_cpu_code(const pipeline::Artifact &artifact, const CodeContext &context,
                                          bool &from_shared_object) {
    auto code = std::make_unique<CpuCode>();
    code->logger = context.logger;
    code->build_strided = context.build_strided;
    // The shared object the cache keeps for the artifact, else its object
    // linked into the JIT. A module loaded from the cache is one that is
    // reused: a shared object is made from it for next time. One just
    // compiled may never be loaded again, and a link in the background would
    // take a core from the first launches for nothing.
    const std::string code_name = artifact.module + "-" + artifact.hash.substr(0, 8);
    from_shared_object = false;
    if (context.shared && context.cache) code->jit = context.shared->load(*context.cache, artifact, code_name);
    if (code->jit) {
        try {
            code->attach(artifact.kernels);
            from_shared_object = true;
        } catch (const backend::BackendError &e) {
            // A shared object that maps but lacks what its object has is a
            // miss like one that does not map.
            context.logger.log(LogLevel::Info, "cache", std::string(e.what()) + "; linking its object instead");
            code->jit.reset();
        }
    }
    if (!code->jit) {
        code->jit = backend::CpuJit::instance().load(std::vector<char>(artifact.bytes.begin(), artifact.bytes.end()),
                                                     code_name);
        code->attach(artifact.kernels);
        if (context.shared && context.cache && artifact.from_cache && !artifact.path.empty())
            context.shared->keep(*context.cache, artifact);
    }
    return code;
}

} // namespace weft::modules
