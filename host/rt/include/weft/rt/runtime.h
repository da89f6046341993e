// weft runtime headers for generated kernel code: the one header the code
// generator includes. Compiles as C++17 and C++20, by Clang/GCC on the CPU and
// by NVRTC (__CUDACC_RTC__) for CUDA, with no other header available.
//
//   base.h    WEFT_CALLABLE / CUDA_CALLABLE, scalar typedefs (int8 ... float64), float16
//   scalar.h  scalar core builtins: add ... rshift, math functions
//   linalg.h  vec_t / mat_t / quat_t, their aliases (vec3, mat33d, quath, ...) and builtins
//   spatial.h transform_t (transform, transformd, ...), transform and spatial-vector builtins
//   geometry.h geometric tests (intersect_tri_tri)
//   array.h   array_t, index(), len, select / where, atomic_add / _sub / _min / _max
//   random.h  Warp's random numbers (rand_init, randf, sample_*, ...)
//   noise.h   Warp's Perlin noise: noise, pnoise, curlnoise
//   debug.h   print, expect_eq / expect_neq / expect_near, WEFT_DEFINE_RUNTIME_GLOBALS
//   checked.h index_checked: bounds-checked array access (debug mode)
//   tile.h    tile_t and the tile operations (Warp's tile model), CPU and CUDA
//
// For the code generator:
// - Call builtins qualified, by their registered native name (weft::add(a, b)),
//   with arguments of exactly the registered types; every type is weft::<kernel
//   type name> (bool is bool). Never `using namespace weft` (weft::sqrt etc.
//   would then be ambiguous with libm's).
// - Scalar casts: static_cast<weft::T>(x), float16 included. Vector, matrix and
//   quaternion component conversions too: static_cast<weft::vec3d>(v).
// - Construction: weft::vec3() is zero, weft::vec3(s) fills, weft::vec3(x, y, z);
//   weft::mat22(a, b, c, d) row by row or weft::mat22(row0, row1); weft::quat(x, y, z, w).
//   float16 values: weft::float16(1.5f) (explicit; constexpr).
// - Components: v[i] or v.c[i]; m[i] is row i, m[i][j] an element; q.c[0..3] is x, y, z, w.
// - Expand WEFT_DEFINE_RUNTIME_GLOBALS once per module, in one of its
//   translation units (the runtime headers declare the globals extern).
#pragma once

#include "weft/rt/base.h"
#include "weft/rt/scalar.h"
#include "weft/rt/libm.h"
#include "weft/rt/linalg.h"
#include "weft/rt/spatial.h"
#include "weft/rt/geometry.h"
#include "weft/rt/array.h"
#include "weft/rt/random.h"
#include "weft/rt/noise.h"
#include "weft/rt/debug.h"
#include "weft/rt/checked.h"
#include "weft/rt/tile.h"
