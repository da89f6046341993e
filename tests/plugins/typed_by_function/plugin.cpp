// Registers its builtins from the native functions themselves (WEFT_BUILTIN):
// a C++ int is registered as int32 and a long (std::int64_t here) as int64, whatever the
// author might have written by hand (issue 39: an int registered as int64
// truncated 3000000000 to 1705032704 without a word).
#include <weft/callable.h>
#include <weft/plugin.hpp>

// The device-side code, compiled into the plugin (its address is taken) and
// into every kernel module that uses it (the preamble).
#define TF_NATIVE_CODE                                                                                                 \
    namespace tf {                                                                                                     \
    WEFT_CALLABLE inline int twice(int x) { return 2 * x; }                                                            \
    WEFT_CALLABLE inline long wide(long x) { return x + 1; }                                                           \
    }
TF_NATIVE_CODE
#define TF_STRINGIZE2(...) #__VA_ARGS__
#define TF_STRINGIZE(...) TF_STRINGIZE2(__VA_ARGS__)

static void init(weft::plugin::Registrar &r) {
    WEFT_BUILTIN(r, "_tf_twice", tf::twice, "x");
    WEFT_BUILTIN(r, "_tf_wide", tf::wide, "x");
    weft::plugin::BuildOptions o;
    o.cpu_preamble = TF_STRINGIZE(TF_NATIVE_CODE);
    o.cuda_preamble = o.cpu_preamble;
    r.add(o);
}
WEFT_PLUGIN("typed_by_function", "1.0.0", init)
