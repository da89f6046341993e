// Kernel side of the hash_grid plugin (Warp's hash_grid_query and friends),
// included into every module that uses the plugin, on the CPU and in CUDA.
// The traversal is Warp's: the same cells in the same order (x fastest), the
// points of a cell in the order they were given, so sums over neighbours add
// in Warp's order.
#ifndef WEFT_HASH_GRID_H
#define WEFT_HASH_GRID_H

#include "weft_hash_grid_types.h"

namespace weft_hash_grid {

WEFT_CALLABLE inline int cell_coord(float v) {
    // floor, clamped into int's range as Warp's hash_grid_cell_coord does (NaN gives 0).
    const float c = weft::floor(v);
    if (c >= 2147483648.0f) return 2147483646;
    if (c >= -2147483648.0f) return static_cast<int>(c);
    if (c < -2147483648.0f) return -2147483647 - 1;
    return 0;
}

/// x wrapped into [0, dim): the division only for a coordinate outside the
/// table (a query visits up to 27 cells, and three divisions per cell were
/// most of a neighbour query's time).
WEFT_CALLABLE inline int wrap(int x, int dim) {
    if (x >= 0 && x < dim) return x;
    x %= dim;
    return x < 0 ? x + dim : x;
}

WEFT_CALLABLE inline int cell_index(const Grid &g, int x, int y, int z) {
    return wrap(z, g.dim_z) * (g.dim_x * g.dim_y) + wrap(y, g.dim_y) * g.dim_x + wrap(x, g.dim_x);
}

WEFT_CALLABLE inline int query_end(int start, int end, int dim) {
    // A box wider than the grid visits each cell column once.
    return static_cast<long long>(end) - static_cast<long long>(start) >= static_cast<long long>(dim) ? start + (dim - 1)
                                                                                                     : end;
}

WEFT_CALLABLE inline const Grid *grid_of(const Query &q) { return reinterpret_cast<const Grid *>(q.grid); }

WEFT_CALLABLE inline void enter_cell(Query &q) {
    const Grid &g = *grid_of(q);
    const int c = cell_index(g, q.x, q.y, q.z);
    q.cell_index = g.cell_starts[c];
    q.cell_end = g.cell_ends[c];
}

/// Every point in the cells that the box [pos - radius, pos + radius] touches
/// (a superset of the points within radius: filter by distance, as with Warp).
WEFT_CALLABLE inline Query query(unsigned long long id, weft::vec3 pos, float radius) {
    Query q{};
    q.grid = id;
    const Grid *grid = grid_of(q);
    if (!grid || grid->num_points == 0) return q; // an unbuilt grid: no points
    const Grid &g = *grid;
    const float inv = g.cell_width_inv;
    q.x_start = cell_coord((pos[0] - radius) * inv);
    q.y_start = cell_coord((pos[1] - radius) * inv);
    q.z_start = cell_coord((pos[2] - radius) * inv);
    q.x_end = query_end(q.x_start, cell_coord((pos[0] + radius) * inv), g.dim_x);
    q.y_end = query_end(q.y_start, cell_coord((pos[1] + radius) * inv), g.dim_y);
    q.z_end = query_end(q.z_start, cell_coord((pos[2] + radius) * inv), g.dim_z);
    q.x = q.x_start;
    q.y = q.y_start;
    q.z = q.z_start;
    enter_cell(q);
    return q;
}

/// The next point of the query into `index`; false when there is none.
WEFT_CALLABLE inline bool query_next(Query &q, int &index) {
    const Grid *g = grid_of(q);
    if (!g || g->num_points == 0) return false;
    for (;;) {
        if (q.cell_index < q.cell_end) {
            index = g->point_ids[q.cell_index++];
            return true;
        }
        if (++q.x > q.x_end) {
            q.x = q.x_start;
            ++q.y;
        }
        if (q.y > q.y_end) {
            q.y = q.y_start;
            ++q.z;
        }
        if (q.z > q.z_end) return false;
        enter_cell(q);
    }
}

/// The point at sorted position `index` (threads that take consecutive
/// positions visit neighbouring points); -1 outside [0, points) or before a build.
WEFT_CALLABLE inline int point_id(unsigned long long id, int index) {
    const Grid *g = reinterpret_cast<const Grid *>(id);
    if (!g || index < 0 || index >= g->num_points) return -1;
    return g->point_ids[index];
}

} // namespace weft_hash_grid

#endif
