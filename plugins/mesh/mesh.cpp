// The mesh plugin: Warp's wp.Mesh(points, indices, velocities) as a host
// object with its BVH (bvh_build.hpp, binned SAH over the triangles' bounds).
// The mesh keeps the caller's arrays (retained) and reads them in kernels, as
// Warp's does: a kernel may move the points, and refit() updates the tree.
#include <weft/plugin.hpp>

#include "bvh_build.hpp"
#include "weft_mesh_types.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

WEFT_KERNEL_TYPE(weft_mesh::QueryPoint, "weft_mesh::QueryPoint")
WEFT_KERNEL_TYPE(weft_mesh::QueryRay, "weft_mesh::QueryRay")
WEFT_KERNEL_TYPE(weft_mesh::QueryAABB, "weft_mesh::QueryAABB")

namespace {

using weft::plugin::Error;
using weft::plugin::ObjectArgs;
using weft::plugin::ObjectContext;
namespace build = weft_bvh::build;

class Mesh {
public:
    Mesh(ObjectContext &ctx, const ObjectArgs &args) {
        std::int64_t num_points = 0, num_indices = 0;
        points_ = args.elements<float[3]>("points", &num_points);
        indices_ = args.elements<int>("indices", &num_indices);
        if (num_indices % 3 != 0)
            throw Error(WEFT_ERROR_INVALID_ARGUMENT,
                        "indices: " + std::to_string(num_indices) + " values is not a multiple of 3 (three per triangle)");
        if (num_indices == 0) throw Error(WEFT_ERROR_INVALID_ARGUMENT, "indices: a mesh needs at least one triangle");
        if (num_points > 0x7fffffff || num_indices / 3 > 0x3fffffff)
            throw Error(WEFT_ERROR_INVALID_ARGUMENT, "points or indices: more than a mesh can index with int32");
        if (args.has("velocities")) {
            std::int64_t num_velocities = 0;
            velocities_ = args.elements<float[3]>("velocities", &num_velocities);
            if (num_velocities != num_points)
                throw Error(WEFT_ERROR_INVALID_ARGUMENT, "velocities: " + std::to_string(num_velocities) +
                                                             " values for " + std::to_string(num_points) + " points");
        }
        host_.num_points = static_cast<int>(num_points);
        host_.num_tris = static_cast<int>(num_indices / 3);
        host_indices_.resize(static_cast<std::size_t>(num_indices));
        ctx.download(host_indices_.data(), indices_, host_indices_.size());
        for (std::size_t i = 0; i < host_indices_.size(); ++i)
            if (host_indices_[i] < 0 || host_indices_[i] >= num_points)
                throw Error(WEFT_ERROR_INVALID_ARGUMENT, "indices[" + std::to_string(i) + "] = " +
                                                             std::to_string(host_indices_[i]) + " is outside the " +
                                                             std::to_string(num_points) + " points");
        descriptor_ = static_cast<weft_mesh::Mesh *>(ctx.device_alloc(sizeof(weft_mesh::Mesh)));
        tree_.build(ctx, triangle_boxes(ctx));
        publish(ctx);
    }

    std::uint64_t id() const { return reinterpret_cast<std::uintptr_t>(descriptor_); }

    /// refit(): the same tree over the points' current positions.
    void refit(ObjectContext &ctx, const ObjectArgs &) {
        tree_.refit(ctx, triangle_boxes(ctx));
        publish(ctx);
    }

    void release(ObjectContext &ctx) {
        tree_.release(ctx);
        ctx.device_free(descriptor_);
    }

private:
    std::vector<build::Box> triangle_boxes(ObjectContext &ctx) const {
        std::vector<float> p(static_cast<std::size_t>(host_.num_points) * 3);
        if (!p.empty()) ctx.download(p.data(), &points_[0][0], p.size());
        for (std::size_t i = 0; i < p.size(); ++i)
            if (!std::isfinite(p[i]))
                throw Error(WEFT_ERROR_INVALID_ARGUMENT, "points[" + std::to_string(i / 3) + "] is not finite");
        std::vector<build::Box> boxes(static_cast<std::size_t>(host_.num_tris));
        float edge_sum = 0.0f; // in float, in Warp's order: the same average to the last bit
        const auto length = [](const float *a, const float *b) {
            const float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
            return std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        };
        for (std::size_t t = 0; t < boxes.size(); ++t) {
            const float *v[3];
            for (int c = 0; c < 3; ++c) {
                v[c] = &p[static_cast<std::size_t>(host_indices_[t * 3 + static_cast<std::size_t>(c)]) * 3];
                boxes[t].grow(v[c], v[c]);
            }
            edge_sum += length(v[0], v[1]) + length(v[0], v[2]) + length(v[2], v[1]);
        }
        average_edge_length_ = edge_sum / static_cast<float>(host_.num_tris * 3);
        return boxes;
    }

    /// The descriptor kernels read: the tree and the caller's arrays.
    void publish(ObjectContext &ctx) {
        host_.tree = tree_.tree();
        host_.points = points_;
        host_.velocities = velocities_;
        host_.indices = indices_;
        host_.average_edge_length = average_edge_length_;
        ctx.copy(descriptor_, &host_, sizeof host_, WEFT_COPY_HOST_TO_DEVICE);
    }

    const float (*points_)[3] = nullptr;
    const float (*velocities_)[3] = nullptr;
    const int *indices_ = nullptr;
    std::vector<int> host_indices_;
    mutable float average_edge_length_ = 0.0f; // set with the boxes
    weft_mesh::Mesh host_{};
    weft_mesh::Mesh *descriptor_ = nullptr;
    build::DeviceTree tree_;
};

using vec3 = weft::plugin::vec3;
using weft_mesh::QueryAABB;
using weft_mesh::QueryPoint;
using weft_mesh::QueryRay;

void init(weft::plugin::Registrar &r) {
    r.add(weft::plugin::NativeType<QueryPoint>("weft_mesh::QueryPoint",
                                               {WEFT_FIELD(QueryPoint, result), WEFT_FIELD(QueryPoint, sign),
                                                WEFT_FIELD(QueryPoint, face), WEFT_FIELD(QueryPoint, u),
                                                WEFT_FIELD(QueryPoint, v)})
              .expose("result", "bool")
              .expose("sign", "float32")
              .expose("face", "int32")
              .expose("u", "float32")
              .expose("v", "float32")
              .doc("Warp's MeshQueryPoint: result, sign, face, u, v."));
    r.add(weft::plugin::NativeType<QueryRay>(
              "weft_mesh::QueryRay",
              {WEFT_FIELD(QueryRay, result), WEFT_FIELD(QueryRay, sign), WEFT_FIELD(QueryRay, face),
               WEFT_FIELD(QueryRay, t), WEFT_FIELD(QueryRay, u), WEFT_FIELD(QueryRay, v), WEFT_FIELD(QueryRay, normal)})
              .expose("result", "bool")
              .expose("sign", "float32")
              .expose("face", "int32")
              .expose("t", "float32")
              .expose("u", "float32")
              .expose("v", "float32")
              .expose("normal", "vec3")
              .doc("Warp's MeshQueryRay: result, sign, face, t, u, v, normal."));
    r.add(weft::plugin::NativeType<QueryAABB>("weft_mesh::QueryAABB",
                                              {WEFT_FIELD(QueryAABB, walk), WEFT_FIELD(QueryAABB, mesh)})
              .doc("Warp's MeshQueryAABB: a box query over a mesh's triangles in progress."));
    r.builtin<QueryPoint(std::uint64_t, vec3, float)>(
        "mesh_query_point_no_sign", {"id", "point", "max_dist"}, "weft_mesh::query_point_no_sign",
        "The closest point on the mesh within max_dist: face and barycentrics (u, v).");
    r.builtin<QueryPoint(std::uint64_t, vec3, float, float)>(
        "mesh_query_point_sign_normal", {"id", "point", "max_dist", "epsilon"}, "weft_mesh::query_point_sign_normal",
        "The closest point within max_dist and its sign (+1 outside, -1 inside) from the angle-weighted normal of the "
        "closest feature; epsilon scales the average edge length that merges nearly equal features.");
    r.builtin<QueryPoint(std::uint64_t, vec3, float)>("mesh_query_point_sign_normal", {"id", "point", "max_dist"},
                                                      "weft_mesh::query_point_sign_normal_default",
                                                      "mesh_query_point_sign_normal with epsilon 1e-3.");
    r.builtin<QueryPoint(std::uint64_t, vec3, float)>(
        "mesh_query_point", {"id", "point", "max_dist"}, "weft_mesh::query_point",
        "The closest point within max_dist and its side (-1 inside) by a vote of three axis rays.");
    r.builtin<QueryPoint(std::uint64_t, vec3, float)>(
        "mesh_query_furthest_point_no_sign", {"id", "point", "min_dist"}, "weft_mesh::query_furthest_point_no_sign",
        "The point of the mesh furthest from point, beyond min_dist: face and barycentrics (u, v).");
    r.builtin<QueryRay(std::uint64_t, vec3, vec3, float)>("mesh_query_ray", {"id", "start", "dir", "max_t"},
                                                          "weft_mesh::query_ray",
                                                          "The first hit of the ray start + t dir, t < max_t.");
    r.builtin<QueryAABB(std::uint64_t, vec3, vec3)>("mesh_query_aabb", {"id", "low", "high"}, "weft_mesh::query_aabb",
                                                    "The faces whose bounds overlap [low, high].");
    r.builtin<bool(QueryAABB &, int &)>("mesh_query_aabb_next", {"query", "index"}, "weft_mesh::query_aabb_next",
                                        "Advances the query: the next face into index, false when done.");
    r.builtin<vec3(std::uint64_t, int, float, float)>("mesh_eval_position", {"id", "face", "bary_u", "bary_v"},
                                                      "weft_mesh::eval_position", "The point at (u, v) on a face.");
    r.builtin<vec3(std::uint64_t, int, float, float)>("mesh_eval_velocity", {"id", "face", "bary_u", "bary_v"},
                                                      "weft_mesh::eval_velocity",
                                                      "The velocity at (u, v) on a face (zero without velocities).");
    r.builtin<vec3(std::uint64_t, int)>("mesh_get_point", {"id", "index"}, "weft_mesh::get_point",
                                        "The point at face-vertex index (face * 3 + corner).");
    r.builtin<vec3(std::uint64_t, int)>("mesh_get_velocity", {"id", "index"}, "weft_mesh::get_velocity",
                                        "The velocity at face-vertex index (zero without velocities).");
    r.builtin<int(std::uint64_t, int)>("mesh_get_index", {"id", "index"}, "weft_mesh::get_index",
                                       "The flat index array's value at face * 3 + corner.");
    r.add(weft::plugin::ObjectType<Mesh>("mesh")
              .doc("Warp's wp.Mesh(points, indices, velocities=None): triangles over points, with a BVH.")
              .params({{"points", "array(dtype=vec3)", false, true},
                       {"indices", "array(int32)", false, true},
                       {"velocities", "array(dtype=vec3)", true, true},
                       {"support_winding_number", "bool", true}})
              .method<&Mesh::refit>("refit", {}, "Recomputes the tree's boxes from the points (the same tree)."));

    const std::string include = r.plugin_directory() + "/include";
    weft::plugin::BuildOptions options;
    options.cpu_include_dirs = {include};
    options.cuda_include_dirs = {include};
    options.cpu_preamble = "#include \"weft_mesh.h\"\n";
    options.cuda_preamble = "#include \"weft_mesh.h\"\n";
    options.build_dependencies = {include + "/weft_mesh.h", include + "/weft_mesh_types.h",
                                  include + "/weft_bvh_core.h"};
    r.add(options);
}

} // namespace

WEFT_PLUGIN("mesh", "1.0.0", init)
