// The mesh's layout and its query results, shared by the plugin's host code
// (which includes weft/plugin.hpp first) and kernel code.
#ifndef WEFT_MESH_TYPES_H
#define WEFT_MESH_TYPES_H

#include "weft_bvh_core.h"

namespace weft_mesh {

// A vec3 field kernels read as wp.vec3: weft's runtime type in kernel code,
// the SDK's mirror of it (same layout, checked by the host) in the plugin.
#ifdef WEFT_RT_HD
using vec3_field = weft::vec3;
#else
using vec3_field = weft::plugin::vec3;
#endif

/// What a mesh's id points to (device memory). points, velocities and
/// indices are the caller's arrays, which the mesh keeps (Warp's Mesh reads
/// its points array; a kernel may move them before a refit).
struct Mesh {
    weft_bvh::Tree tree;       // over the triangles
    const float (*points)[3];
    const float (*velocities)[3]; // NULL: none given
    const int *indices;        // 3 per triangle
    int num_points;
    int num_tris;
    float average_edge_length; // the sign_normal query's tolerance scale, as Warp's
    int reserved;
};

/// Warp's MeshQueryPoint.
struct QueryPoint {
    bool result;
    float sign;
    int face;
    float u;
    float v;
};

/// Warp's MeshQueryRay.
struct QueryRay {
    bool result;
    float sign;
    int face;
    float t;
    float u;
    float v;
    vec3_field normal;
};

/// Warp's MeshQueryAABB: the triangles whose bounds overlap a box.
struct QueryAABB {
    weft_bvh::Query walk;
    unsigned long long mesh; // const Mesh * (an address: see weft_bvh::Query)
};

} // namespace weft_mesh

#endif
