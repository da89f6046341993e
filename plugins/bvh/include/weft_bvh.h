// Kernel side of the bvh plugin (Warp's bvh_query_aabb, bvh_query_ray,
// bvh_query_next), included into every module that uses the plugin.
#ifndef WEFT_BVH_H
#define WEFT_BVH_H

#include "weft_bvh_core.h"

namespace weft_bvh {

/// The items whose boxes overlap [lower, upper]: iterate with `for index in ...`
/// or bvh_query_next.
WEFT_CALLABLE inline Query query_aabb(unsigned long long id, weft::vec3 lower, weft::vec3 upper) {
    const float lo[3] = {lower[0], lower[1], lower[2]}, hi[3] = {upper[0], upper[1], upper[2]};
    return begin_query(reinterpret_cast<const Tree *>(id), lo, hi, false);
}

/// The items whose boxes the ray start + t dir, t >= 0, meets.
WEFT_CALLABLE inline Query query_ray(unsigned long long id, weft::vec3 start, weft::vec3 dir) {
    const float s[3] = {start[0], start[1], start[2]};
    const float inv[3] = {1.0f / dir[0], 1.0f / dir[1], 1.0f / dir[2]};
    return begin_query(reinterpret_cast<const Tree *>(id), s, inv, true);
}

/// The next item whose own box the query meets (Warp's bvh_query_next).
WEFT_CALLABLE inline bool query_next(Query &q, int &index) {
    int i;
    while (next_primitive(q, i)) {
        const float *lo = tree_of(q).item_lowers[i], *hi = tree_of(q).item_uppers[i];
        float t;
        if (q.is_ray ? ray_box(q.lower.v, q.upper.v, lo, hi, t) : boxes_overlap(lo, hi, q.lower.v, q.upper.v)) {
            index = i;
            return true;
        }
    }
    return false;
}

} // namespace weft_bvh

#endif
