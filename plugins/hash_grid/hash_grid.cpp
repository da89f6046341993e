// The hash_grid plugin: Warp's wp.HashGrid as a host object. The grid is
// built on the host (a stable counting sort of the points by cell, so each
// cell keeps its points in the order they were given, as Warp's radix sort
// does) and copied to the grid's device; kernels query it by id.
#include "weft_hash_grid_types.h"

#include <weft/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

WEFT_KERNEL_TYPE(weft_hash_grid::Query, "weft_hash_grid::Query")

namespace {

using weft::plugin::Error;
using weft::plugin::ObjectArgs;
using weft::plugin::ObjectContext;
using weft_hash_grid::Grid;

/// The grid's device memory: the descriptor kernels read, and its arrays.
class HashGrid {
public:
    HashGrid(ObjectContext &ctx, const ObjectArgs &args) {
        const std::int64_t dims[3] = {args.integer("dim_x"), args.integer("dim_y"), args.integer("dim_z")};
        const char *names[3] = {"dim_x", "dim_y", "dim_z"};
        std::int64_t cells = 1;
        for (int i = 0; i < 3; ++i) {
            if (dims[i] < 1)
                throw Error(WEFT_ERROR_INVALID_ARGUMENT,
                            std::string(names[i]) + ": " + std::to_string(dims[i]) + " cells; at least 1");
            cells *= dims[i];
            if (cells > (std::int64_t{1} << 30))
                throw Error(WEFT_ERROR_INVALID_ARGUMENT, "dim_x * dim_y * dim_z is more than 2^30 cells");
        }
        host_.dim_x = static_cast<int>(dims[0]);
        host_.dim_y = static_cast<int>(dims[1]);
        host_.dim_z = static_cast<int>(dims[2]);
        descriptor_ = static_cast<Grid *>(ctx.device_alloc(sizeof(Grid)));
        publish(ctx);
    }

    std::uint64_t id() const { return reinterpret_cast<std::uintptr_t>(descriptor_); }

    /// build(points, radius): sorts the points into cells `radius` wide.
    void build(ObjectContext &ctx, const ObjectArgs &args) {
        const double radius = args.number("radius");
        if (!(radius > 0) || !std::isfinite(radius) || !std::isfinite(static_cast<float>(1.0 / radius)))
            throw Error(WEFT_ERROR_INVALID_ARGUMENT,
                        "radius: " + std::to_string(radius) + "; a cell width must be positive and finite");
        std::int64_t n = 0;
        const auto *points_on_device = args.elements<float[3]>("points", &n);
        if (n > 0x7fffffff) throw Error(WEFT_ERROR_INVALID_ARGUMENT, "points: more than 2^31 - 1 points");
        std::vector<float> points(static_cast<std::size_t>(n) * 3);
        if (n) ctx.download(points.data(), &points_on_device[0][0], points.size());
        const float width = static_cast<float>(radius);
        const float inv = 1.0f / width;
        const int dx = host_.dim_x, dy = host_.dim_y, dz = host_.dim_z;
        const std::size_t cells = static_cast<std::size_t>(dx) * static_cast<std::size_t>(dy) * static_cast<std::size_t>(dz);
        std::vector<int> cell_of(static_cast<std::size_t>(n));
        std::vector<int> starts(cells + 1, 0);
        for (std::int64_t i = 0; i < n; ++i) {
            const float *p = &points[static_cast<std::size_t>(i) * 3];
            if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
                throw Error(WEFT_ERROR_INVALID_ARGUMENT, "points[" + std::to_string(i) + "] is not finite");
            int c[3];
            const int dim[3] = {dx, dy, dz};
            for (int k = 0; k < 3; ++k) {
                // Warp's cell of a point: floor(p * inv), wrapped into the grid.
                const float f = std::floor(p[k] * inv);
                long long v = f >= 2147483648.0f ? 2147483646LL : f < -2147483648.0f ? -2147483648LL : static_cast<long long>(f);
                v %= dim[k];
                if (v < 0) v += dim[k];
                c[k] = static_cast<int>(v);
            }
            const int cell = c[2] * (dx * dy) + c[1] * dx + c[0];
            cell_of[static_cast<std::size_t>(i)] = cell;
            ++starts[static_cast<std::size_t>(cell) + 1];
        }
        for (std::size_t c = 0; c < cells; ++c) starts[c + 1] += starts[c];
        std::vector<int> ends(starts.begin() + 1, starts.end());
        std::vector<int> cursor(starts.begin(), starts.end() - 1);
        std::vector<int> ids(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) ids[static_cast<std::size_t>(cursor[static_cast<std::size_t>(cell_of[static_cast<std::size_t>(i)])]++)] = static_cast<int>(i);
        starts.pop_back();

        release_arrays(ctx);
        if (n) {
            point_ids_ = ctx.upload(ids.data(), ids.size());
            cell_starts_ = ctx.upload(starts.data(), starts.size());
            cell_ends_ = ctx.upload(ends.data(), ends.size());
        }
        host_.num_points = static_cast<int>(n);
        host_.cell_width = width;
        host_.cell_width_inv = inv;
        publish(ctx);
    }

    void release(ObjectContext &ctx) {
        release_arrays(ctx);
        ctx.device_free(descriptor_);
    }

private:
    void release_arrays(ObjectContext &ctx) {
        ctx.device_free(point_ids_);
        ctx.device_free(cell_starts_);
        ctx.device_free(cell_ends_);
        point_ids_ = cell_starts_ = cell_ends_ = nullptr;
        host_.num_points = 0;
    }
    void publish(ObjectContext &ctx) {
        host_.point_ids = point_ids_;
        host_.cell_starts = cell_starts_;
        host_.cell_ends = cell_ends_;
        ctx.copy(descriptor_, &host_, sizeof host_, WEFT_COPY_HOST_TO_DEVICE);
    }

    Grid host_{};
    Grid *descriptor_ = nullptr;
    int *point_ids_ = nullptr, *cell_starts_ = nullptr, *cell_ends_ = nullptr;
};

// Stand-ins naming the kernel functions' signatures for the typed registration.
using vec3 = weft::plugin::vec3;
using weft_hash_grid::Query;

void init(weft::plugin::Registrar &r) {
    r.add(weft::plugin::NativeType<Query>(
              "weft_hash_grid::Query",
              {WEFT_FIELD(Query, x_start), WEFT_FIELD(Query, y_start), WEFT_FIELD(Query, z_start),
               WEFT_FIELD(Query, x_end), WEFT_FIELD(Query, y_end), WEFT_FIELD(Query, z_end), WEFT_FIELD(Query, x),
               WEFT_FIELD(Query, y), WEFT_FIELD(Query, z), WEFT_FIELD(Query, cell_index), WEFT_FIELD(Query, cell_end),
               WEFT_FIELD(Query, reserved), WEFT_FIELD(Query, grid)})
              .doc("A hash grid neighbour query in progress (Warp's HashGridQuery)."));
    r.builtin<Query(std::uint64_t, vec3, float)>(
        "hash_grid_query", {"id", "point", "max_dist"}, "weft_hash_grid::query",
        "The points in the cells within max_dist of point; iterate with for index in ... or hash_grid_query_next.");
    r.builtin<bool(Query &, int &)>("hash_grid_query_next", {"query", "index"}, "weft_hash_grid::query_next",
                                    "Advances the query: the next point's index into index, false when done.");
    r.builtin<int(std::uint64_t, int)>("hash_grid_point_id", {"id", "index"}, "weft_hash_grid::point_id",
                                       "The point at sorted position index (cell order), -1 outside the points.");
    r.add(weft::plugin::ObjectType<HashGrid>("hash_grid")
              .doc("Warp's wp.HashGrid(dim_x, dim_y, dim_z): cells hashed over a dim_x * dim_y * dim_z table.")
              .params({{"dim_x", "int32"}, {"dim_y", "int32"}, {"dim_z", "int32"}})
              .method<&HashGrid::build>("build", {{"points", "array(dtype=vec3)"}, {"radius", "float32"}},
                                        "Sorts the points into cells radius wide (Warp's HashGrid.build)."));

    const std::string include = r.plugin_directory() + "/include";
    weft::plugin::BuildOptions options;
    options.cpu_include_dirs = {include};
    options.cuda_include_dirs = {include};
    options.cpu_preamble = "#include \"weft_hash_grid.h\"\n";
    options.cuda_preamble = "#include \"weft_hash_grid.h\"\n";
    options.build_dependencies = {include + "/weft_hash_grid.h", include + "/weft_hash_grid_types.h"};
    r.add(options);
}

} // namespace

WEFT_PLUGIN("hash_grid", "1.0.0", init)
