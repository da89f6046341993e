// The hash grid's layout, shared by the plugin's host code (which builds it)
// and kernel code (which queries it). Plain C types only: this header is
// compiled by the host compiler, Clang and NVRTC alike.
#ifndef WEFT_HASH_GRID_TYPES_H
#define WEFT_HASH_GRID_TYPES_H

namespace weft_hash_grid {

/// What a grid's id points to, in the grid's device memory. Points are
/// sorted by cell; cell c holds sorted positions [cell_starts[c], cell_ends[c]).
struct Grid {
    const int *point_ids;   // sorted position -> the point's index in the built array
    const int *cell_starts; // dim_x * dim_y * dim_z
    const int *cell_ends;
    int dim_x, dim_y, dim_z;
    int num_points;
    float cell_width;
    float cell_width_inv;
};

/// A neighbour query in progress (Warp's hash_grid_query_t): the cell box
/// around the query point, the cell being walked and the position in it.
struct Query {
    int x_start, y_start, z_start;
    int x_end, y_end, z_end;
    int x, y, z;
    int cell_index; // next sorted position in the current cell
    int cell_end;   // one past the current cell's last
    int reserved;
    // const Grid *, as an address: NVRTC checks a native type's layout with a
    // constexpr probe, which cannot read pointers.
    unsigned long long grid;
};

} // namespace weft_hash_grid

#endif
