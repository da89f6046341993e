// Host-side BVH construction and refit for the bvh and mesh plugins (not
// installed: compiled into each plugin's library). A top-down binned SAH
// build (16 bins per axis on the centroids' extent, leaves of up to 4
// primitives): build time O(n log n), trees as good as a full sweep within a
// few percent, and ray queries need good trees more than fast builds. Nodes
// are stored in depth-first order, children after their parent, so a refit
// is one backward pass.
#pragma once

#include "weft_bvh_core.h"

#include <weft/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <thread>
#include <vector>

namespace weft_bvh::build {

struct Box {
    float lo[3] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
                   std::numeric_limits<float>::max()};
    float hi[3] = {-std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                   -std::numeric_limits<float>::max()};
    void grow(const float *l, const float *h) {
        for (int k = 0; k < 3; ++k) {
            lo[k] = std::min(lo[k], l[k]);
            hi[k] = std::max(hi[k], h[k]);
        }
    }
    void grow(const Box &b) { grow(b.lo, b.hi); }
    float area() const {
        const float d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
        if (d[0] < 0) return 0;
        return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
    }
};

struct Result {
    std::vector<Node> nodes;
    std::vector<int> primitives;
};

class Builder {
public:
    Builder(const std::vector<Box> &boxes) : boxes_(boxes) {
        const std::size_t n = boxes.size();
        centers_.resize(n * 3);
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k) centers_[i * 3 + k] = 0.5f * (boxes[i].lo[k] + boxes[i].hi[k]);
        out_.primitives.resize(n);
        for (std::size_t i = 0; i < n; ++i) out_.primitives[i] = static_cast<int>(i);
        out_.nodes.reserve(n ? 2 * n : 1);
        if (n) node(out_.nodes, 0, static_cast<int>(n), 0);
    }
    Result take() { return std::move(out_); }

private:
    static constexpr int bins = 16;
    static constexpr int leaf_size = 4;
    // Subtrees this large near the root are built on a thread of their own:
    // the two halves touch disjoint runs of the primitive array and fill
    // node lists of their own, joined with their indices offset.
    static constexpr int parallel_size = 1 << 15;
    static constexpr int parallel_depth = 2;

    int node(std::vector<Node> &nodes, int begin, int end, int depth) {
        const int index = static_cast<int>(nodes.size());
        nodes.push_back(Node{});
        Box box, centroids;
        for (int i = begin; i < end; ++i) {
            const int p = out_.primitives[static_cast<std::size_t>(i)];
            box.grow(boxes_[static_cast<std::size_t>(p)]);
            const float *c = &centers_[static_cast<std::size_t>(p) * 3];
            centroids.grow(c, c);
        }
        const int count = end - begin;
        int mid = -1;
        if (count > leaf_size) mid = split(begin, end, box, centroids, depth);
        Node &n = nodes[static_cast<std::size_t>(index)];
        for (int k = 0; k < 3; ++k) {
            n.lower[k] = box.lo[k];
            n.upper[k] = box.hi[k];
        }
        if (mid < 0) {
            n.leaf = 1;
            n.a = begin;
            n.b = end;
            return index;
        }
        int left = 0, right = 0;
        if (depth < parallel_depth && end - mid >= parallel_size && mid - begin >= parallel_size) {
            std::vector<Node> right_nodes;
            right_nodes.reserve(static_cast<std::size_t>(end - mid) * 2);
            std::exception_ptr failed;
            std::thread worker([&] {
                try {
                    node(right_nodes, mid, end, depth + 1);
                } catch (...) {
                    failed = std::current_exception(); // out of memory: rethrown on this thread
                }
            });
            try {
                left = node(nodes, begin, mid, depth + 1);
            } catch (...) {
                worker.join();
                throw;
            }
            worker.join();
            if (failed) std::rethrow_exception(failed);
            right = static_cast<int>(nodes.size());
            for (Node x : right_nodes) {
                if (!x.leaf) {
                    x.a += right;
                    x.b += right;
                }
                nodes.push_back(x);
            }
        } else {
            left = node(nodes, begin, mid, depth + 1);
            right = node(nodes, mid, end, depth + 1);
        }
        Node &parent = nodes[static_cast<std::size_t>(index)]; // the vector may have grown
        parent.leaf = 0;
        parent.a = left;
        parent.b = right;
        return index;
    }

    /// Where to split [begin, end) (primitives reordered), or -1 for a leaf.
    int split(int begin, int end, const Box &box, const Box &centroids, int depth) {
        int axis = 0;
        for (int k = 1; k < 3; ++k)
            if (centroids.hi[k] - centroids.lo[k] > centroids.hi[axis] - centroids.lo[axis]) axis = k;
        const float extent = centroids.hi[axis] - centroids.lo[axis];
        int *p = out_.primitives.data();
        const auto center = [&](int prim, int k) { return centers_[static_cast<std::size_t>(prim) * 3 + static_cast<std::size_t>(k)]; };
        if (!(extent > 0)) {
            // Every centroid in one place: halve by order (many triangles at one point).
            return end - begin > leaf_size ? begin + (end - begin) / 2 : -1;
        }
        if (depth >= max_depth - 2) { // deep: a median split bounds the depth
            const int mid = begin + (end - begin) / 2;
            std::nth_element(p + begin, p + mid, p + end, [&](int x, int y) { return center(x, axis) < center(y, axis); });
            return mid;
        }
        Box bin_box[bins];
        int bin_count[bins] = {};
        const float scale = bins / extent;
        const auto bin_of = [&](int prim) {
            const int b = static_cast<int>((center(prim, axis) - centroids.lo[axis]) * scale);
            return std::clamp(b, 0, bins - 1);
        };
        for (int i = begin; i < end; ++i) {
            const int b = bin_of(p[i]);
            ++bin_count[b];
            bin_box[b].grow(boxes_[static_cast<std::size_t>(p[i])]);
        }
        // Sweep: cost of splitting after bin b = left area * left count + right area * right count.
        float right_area[bins];
        int right_count[bins];
        Box acc;
        int cnt = 0;
        for (int b = bins - 1; b > 0; --b) {
            acc.grow(bin_box[b]);
            cnt += bin_count[b];
            right_area[b] = acc.area();
            right_count[b] = cnt;
        }
        Box left;
        int left_count = 0;
        float best = std::numeric_limits<float>::max();
        int best_bin = -1;
        for (int b = 0; b < bins - 1; ++b) {
            left.grow(bin_box[b]);
            left_count += bin_count[b];
            if (left_count == 0 || right_count[b + 1] == 0) continue;
            const float cost = left.area() * static_cast<float>(left_count) +
                               right_area[b + 1] * static_cast<float>(right_count[b + 1]);
            if (cost < best) {
                best = cost;
                best_bin = b;
            }
        }
        if (best_bin < 0) return begin + (end - begin) / 2;
        (void)box;
        int *mid = std::partition(p + begin, p + end, [&](int prim) { return bin_of(prim) <= best_bin; });
        return static_cast<int>(mid - p);
    }

    const std::vector<Box> &boxes_;
    std::vector<float> centers_;
    Result out_;
};

/// A tree over `boxes` (one per primitive; may be empty).
inline Result build_tree(const std::vector<Box> &boxes) { return Builder(boxes).take(); }

/// New boxes for the same primitives: leaves from their primitives, inner nodes from their children.
inline void refit(std::vector<Node> &nodes, const std::vector<int> &primitives, const std::vector<Box> &boxes) {
    for (std::size_t i = nodes.size(); i-- > 0;) {
        Node &n = nodes[i];
        Box b;
        if (n.leaf) {
            for (int s = n.a; s < n.b; ++s) b.grow(boxes[static_cast<std::size_t>(primitives[static_cast<std::size_t>(s)])]);
        } else {
            const Node &l = nodes[static_cast<std::size_t>(n.a)], &r = nodes[static_cast<std::size_t>(n.b)];
            b.grow(l.lower, l.upper);
            b.grow(r.lower, r.upper);
        }
        for (int k = 0; k < 3; ++k) {
            n.lower[k] = b.lo[k];
            n.upper[k] = b.hi[k];
        }
    }
}

/// A tree in an object's device memory (through the host's callbacks), with
/// the host copy a refit starts from: what the bvh and mesh objects share.
class DeviceTree {
public:
    /// Builds the tree over `boxes` (one per primitive) and copies it to the device.
    void build(weft::plugin::ObjectContext &ctx, const std::vector<Box> &boxes) {
        Result r = build_tree(boxes);
        primitives_ = std::move(r.primitives);
        upload(ctx, std::move(r.nodes));
    }
    /// The same tree over the primitives' new boxes.
    void refit(weft::plugin::ObjectContext &ctx, const std::vector<Box> &boxes) {
        std::vector<Node> nodes = host_nodes_;
        build::refit(nodes, primitives_, boxes);
        upload(ctx, std::move(nodes));
    }
    /// What kernels read (the items' own boxes are the owner's to add).
    Tree tree() const {
        return Tree{nodes_, prims_, static_cast<int>(host_nodes_.size()), static_cast<int>(primitives_.size()), nullptr,
                    nullptr};
    }
    void release(weft::plugin::ObjectContext &ctx) {
        ctx.device_free(nodes_);
        ctx.device_free(prims_);
        nodes_ = nullptr;
        prims_ = nullptr;
    }

private:
    void upload(weft::plugin::ObjectContext &ctx, std::vector<Node> nodes) {
        release(ctx);
        if (!nodes.empty()) nodes_ = ctx.upload(nodes.data(), nodes.size());
        if (!primitives_.empty()) prims_ = ctx.upload(primitives_.data(), primitives_.size());
        host_nodes_ = std::move(nodes);
    }

    Node *nodes_ = nullptr;
    int *prims_ = nullptr;
    std::vector<Node> host_nodes_;
    std::vector<int> primitives_;
};

} // namespace weft_bvh::build
