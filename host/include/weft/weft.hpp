// weft's application API in one header: a Host that loads plugins and kernel
// modules, their kernels and launches on any device, arrays, host values
// (vectors, matrices, quaternions, transforms, struct values), streams,
// events and sync objects, the Tape, and the errors all of them throw.
//
//   weft::Host host;
//   weft::CompiledModule m = host.load_module("particles.py");
//   auto pos = weft::Array::from_vector(std::vector<weft::vec3f>(n));
//   auto params = m.kernel("step").make_struct("params");
//   params.set("dt", 0.01f);
//   m.kernel("step").launch({n}, {pos, params});
#pragma once

#include "weft/modules/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/host/object.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/device.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/runtime/struct_value.hpp"
#include "weft/runtime/sync.hpp"
#include "weft/runtime/values.hpp"
#include "weft/support/error.hpp"
#include "weft/support/version.hpp"

namespace weft {
// weft::vec3f and friends (weft/runtime/values.hpp explains why they live in
// a namespace of their own).
using namespace values;
} // namespace weft
