// Runs every kernel of a corpus module with inputs made from its parameter
// types alone, so that one module's results on two devices can be compared
// without a hand-written case per kernel. Modules are loaded in debug mode:
// a kernel whose generated indices leave an array reports a bounds failure
// (on both devices alike) instead of touching memory outside it.
#pragma once

#include "weft/host/host.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace weft::test {

/// One kernel's launch and what its arrays held afterwards.
struct KernelRun {
    std::string kernel;
    /// Which instance of a generic kernel (wp.overload declarations in source order); 0 otherwise.
    int instance = 0;
    std::vector<std::int64_t> dim;
    /// A tile kernel's block_dim (its grid counts blocks, Warp's launch_tiled); 0 for other kernels.
    int block_dim = 0;
    /// "" when the launch succeeded; else the LaunchError (a bounds or expect_*
    /// failure) or, when the kernel cannot be fed generically (a parameter of a
    /// native type or a struct holding an array), "unsupported: ...".
    std::string error;
    /// Every array parameter's bytes after the launch, with its element type.
    std::vector<std::vector<unsigned char>> arrays;
    std::vector<Type> dtypes;
};

/// Loads `file` on `device` (debug mode, fmad off on CUDA so that the
/// CPU's unfused arithmetic is matched) and runs each kernel once on fresh
/// inputs: floats in [0.25, 1.75] (positive, so sqrt, log and division stay
/// finite), integers 0 to 7 (valid as small indices and loop counts), bools
/// alternating; arrays of 64 elements per dimension for 1-D, 16 x 16, 8 x 8 x 8
/// or 4 x 4 x 4 x 4. A `# objects: NAME=KIND ...` line gives the uint64
/// parameter NAME a host object (the geometry plugins must be loaded):
/// `sphere`, `box`, `soup` (meshes of tests/geometry/geometry_inputs.hpp),
/// `soup_bvh` (a BVH over the soup's triangle bounds) or
/// `hash_grid(ARRAY,RADIUS)` (a 16^3 hash grid built over the kernel's array
/// argument ARRAY with cells RADIUS wide).
std::vector<KernelRun> run_module_kernels(Host &host, const std::filesystem::path &file, Device device);

/// "" when `a` and `b` agree: the same kernels, the same errors, integer and
/// bool elements equal, float elements within `float_tolerance` relative
/// (max(1, |x|) scaled; float16 and bfloat16 within 1e-2, float64 within 1e-9); else the
/// first difference, naming kernel, array and element.
std::string compare_runs(const std::vector<KernelRun> &a, const std::vector<KernelRun> &b,
                         double float_tolerance = 1e-4);

/// The runs as JSON, for a peer that runs the same kernels on the same
/// inputs (tests/warp_semantics/diff_corpus.py runs them with warp-lang):
/// [{"kernel", "dim", "error", "arrays": [[every scalar component, in memory
/// order] or null for arrays of structs]}], one array per array parameter.
std::string runs_to_json(const std::vector<KernelRun> &runs);

} // namespace weft::test
