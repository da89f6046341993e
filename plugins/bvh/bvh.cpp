// The bvh plugin: Warp's wp.Bvh(lowers, uppers) as a host object. The tree is
// built on the host (bvh_build.hpp) and copied to the object's device; it
// keeps the caller's lowers and uppers (retained), which refit reads again.
#include <weft/plugin.hpp>

#include "bvh_build.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

WEFT_KERNEL_TYPE(weft_bvh::Query, "weft_bvh::Query")

namespace {

using weft::plugin::Error;
using weft::plugin::ObjectArgs;
using weft::plugin::ObjectContext;
namespace build = weft_bvh::build;

/// Reads lowers and uppers (device or host) into boxes, checking them.
std::vector<build::Box> read_boxes(ObjectContext &ctx, const float (*lowers)[3], const float (*uppers)[3], std::int64_t n) {
    std::vector<float> lo(static_cast<std::size_t>(n) * 3), hi(static_cast<std::size_t>(n) * 3);
    if (n) {
        ctx.download(lo.data(), &lowers[0][0], lo.size());
        ctx.download(hi.data(), &uppers[0][0], hi.size());
    }
    std::vector<build::Box> boxes(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            const float l = lo[i * 3 + static_cast<std::size_t>(k)], h = hi[i * 3 + static_cast<std::size_t>(k)];
            if (!std::isfinite(l) || !std::isfinite(h))
                throw Error(WEFT_ERROR_INVALID_ARGUMENT, "lowers[" + std::to_string(i) + "] or uppers[" +
                                                             std::to_string(i) + "] is not finite");
            if (l > h)
                throw Error(WEFT_ERROR_INVALID_ARGUMENT, "lowers[" + std::to_string(i) + "] is above uppers[" +
                                                             std::to_string(i) + "] on axis " + std::to_string(k));
            boxes[i].lo[k] = l;
            boxes[i].hi[k] = h;
        }
    }
    return boxes;
}

class Bvh {
public:
    Bvh(ObjectContext &ctx, const ObjectArgs &args) {
        std::int64_t n = 0, m = 0;
        lowers_ = args.elements<float[3]>("lowers", &n);
        uppers_ = args.elements<float[3]>("uppers", &m);
        if (n != m)
            throw Error(WEFT_ERROR_INVALID_ARGUMENT,
                        "uppers: " + std::to_string(m) + " boxes, but lowers has " + std::to_string(n));
        if (n > 0x3fffffff) throw Error(WEFT_ERROR_INVALID_ARGUMENT, "lowers: more than 2^30 boxes");
        count_ = n;
        descriptor_ = static_cast<weft_bvh::Tree *>(ctx.device_alloc(sizeof(weft_bvh::Tree)));
        tree_.build(ctx, read_boxes(ctx, lowers_, uppers_, n));
        publish(ctx);
    }

    std::uint64_t id() const { return reinterpret_cast<std::uintptr_t>(descriptor_); }

    /// refit(): the same tree over the boxes' current values.
    void refit(ObjectContext &ctx, const ObjectArgs &) {
        tree_.refit(ctx, read_boxes(ctx, lowers_, uppers_, count_));
        publish(ctx);
    }

    void release(ObjectContext &ctx) {
        tree_.release(ctx);
        ctx.device_free(descriptor_);
    }

private:
    /// The descriptor kernels read: the tree, and the items' boxes (the caller's arrays).
    void publish(ObjectContext &ctx) {
        weft_bvh::Tree t = tree_.tree();
        t.item_lowers = lowers_;
        t.item_uppers = uppers_;
        ctx.copy(descriptor_, &t, sizeof t, WEFT_COPY_HOST_TO_DEVICE);
    }

    const float (*lowers_)[3] = nullptr;
    const float (*uppers_)[3] = nullptr;
    std::int64_t count_ = 0;
    weft_bvh::Tree *descriptor_ = nullptr;
    build::DeviceTree tree_;
};

using vec3 = weft::plugin::vec3;
using weft_bvh::Query;

void init(weft::plugin::Registrar &r) {
    r.add(weft::plugin::NativeType<Query>(
              "weft_bvh::Query",
              {WEFT_FIELD(Query, tree), WEFT_FIELD(Query, stack), WEFT_FIELD(Query, count), WEFT_FIELD(Query, slot),
               WEFT_FIELD(Query, slot_end), WEFT_FIELD(Query, is_ray), WEFT_FIELD(Query, reserved),
               WEFT_FIELD(Query, lower), WEFT_FIELD(Query, upper)})
              .doc("A BVH box or ray query in progress (Warp's BvhQuery)."));
    r.builtin<Query(std::uint64_t, vec3, vec3)>("bvh_query_aabb", {"id", "low", "high"}, "weft_bvh::query_aabb",
                                                "The items whose boxes overlap [low, high].");
    r.builtin<Query(std::uint64_t, vec3, vec3)>("bvh_query_ray", {"id", "start", "dir"}, "weft_bvh::query_ray",
                                                "The items whose boxes the ray start + t dir (t >= 0) meets.");
    r.builtin<bool(Query &, int &)>("bvh_query_next", {"query", "index"}, "weft_bvh::query_next",
                                    "Advances the query: the next item into index, false when done.");
    r.add(weft::plugin::ObjectType<Bvh>("bvh")
              .doc("Warp's wp.Bvh(lowers, uppers): a binned-SAH tree over boxes.")
              .params({{"lowers", "array(dtype=vec3)", false, true}, {"uppers", "array(dtype=vec3)", false, true}})
              .method<&Bvh::refit>("refit", {}, "Recomputes the boxes from lowers and uppers (the same tree)."));

    const std::string include = r.plugin_directory() + "/include";
    weft::plugin::BuildOptions options;
    options.cpu_include_dirs = {include};
    options.cuda_include_dirs = {include};
    options.cpu_preamble = "#include \"weft_bvh.h\"\n";
    options.cuda_preamble = "#include \"weft_bvh.h\"\n";
    options.build_dependencies = {include + "/weft_bvh.h", include + "/weft_bvh_core.h"};
    r.add(options);
}

} // namespace

WEFT_PLUGIN("bvh", "1.0.0", init)
