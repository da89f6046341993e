/*
 * weft plugin ABI, version 1.
 *
 * This header is the whole contract between a weft host and a plugin shared
 * library. It is plain C11 so that a plugin can be built by any compiler and
 * any language with a C FFI.
 *
 * Rules that keep the ABI stable (see docs/abi-reference.md):
 *  - Every struct begins with `struct_size`, set by whoever fills it in
 *    (use the WEFT_INIT_* macros or sizeof). A reader copies only what
 *    struct_size covers and zero-fills the rest, so a struct may grow at its
 *    end without breaking older or newer peers.
 *    A reader that is older than the struct accepts the bytes it does not
 *    know only when they are all zero (a newer field left at its default).
 *  - Structs and the host function table only grow at the end. A function's
 *    behaviour never changes under its name: a new name is added instead,
 *    reachable through get_proc_address.
 *  - Nothing a plugin passes is kept by reference: the host copies every
 *    string and array during the call, so the plugin may free or reuse them.
 *  - Every registration call returns a weft_status; on failure, last_error()
 *    returns a message explaining it (valid until the next host call).
 *  - No C++ exception may cross this boundary in either direction.
 */
#ifndef WEFT_PLUGIN_H
#define WEFT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "weft/callable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. A host states the range it speaks;
 * a plugin built against version N loads into every host whose range holds N. */
#define WEFT_ABI_VERSION 1

/* Version of the SDK this header ships with (informational; recorded in the
 * plugin info so `weft plugin inspect` can show what a plugin was built with). */
#define WEFT_SDK_VERSION_MAJOR 0
#define WEFT_SDK_VERSION_MINOR 1
#define WEFT_SDK_VERSION_PATCH 0
#define WEFT_SDK_VERSION_STRING "0.1.0"

/* Symbol visibility for the exported entry points. */
#if defined(_WIN32)
#define WEFT_PLUGIN_EXPORT __declspec(dllexport)
#else
#define WEFT_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Names of the exported entry points, looked up by the host. */
#define WEFT_PLUGIN_INFO_SYMBOL "weft_plugin_get_info"
#define WEFT_PLUGIN_INIT_SYMBOL "weft_plugin_init"

typedef enum weft_status {
    WEFT_OK = 0,
    WEFT_ERROR_INVALID_ARGUMENT = 1, /* a descriptor field is malformed          */
    WEFT_ERROR_CONFLICT = 2,         /* clashes with an existing registration    */
    WEFT_ERROR_NAMESPACE = 3,        /* outside the prefixes the manifest owns    */
    WEFT_ERROR_UNKNOWN_TYPE = 4,     /* a kernel type name that is not known      */
    WEFT_ERROR_UNSUPPORTED = 5,      /* a feature this host does not offer        */
    WEFT_ERROR_PLUGIN = 6,           /* the plugin reported its own failure       */
    WEFT_ERROR_INTERNAL = 7,
    /* Not a status: keeps the enum 32 bits wide on every compiler, so its size
     * in the ABI structs cannot change when values are added. */
    WEFT_STATUS_FORCE_32BIT = 0x7fffffff
} weft_status;

typedef enum weft_log_level {
    WEFT_LOG_DEBUG = 0,
    WEFT_LOG_INFO = 1,
    WEFT_LOG_WARNING = 2,
    WEFT_LOG_ERROR = 3,
    WEFT_LOG_LEVEL_FORCE_32BIT = 0x7fffffff /* not a level: fixes the enum's size */
} weft_log_level;

typedef enum weft_initializer {
    WEFT_INITIALIZER_NONE = 0,     /* default construction only                   */
    WEFT_INITIALIZER_AGGREGATE = 1, /* also T{f0, f1, ...} over all declared fields */
    WEFT_INITIALIZER_FORCE_32BIT = 0x7fffffff /* not a policy: fixes the enum's size */
} weft_initializer;

#ifdef __cplusplus
static_assert(sizeof(weft_status) == 4 && sizeof(weft_log_level) == 4 && sizeof(weft_initializer) == 4,
              "weft ABI enums are 32 bits");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L /* C99 has no _Static_assert */
_Static_assert(sizeof(weft_status) == 4 && sizeof(weft_log_level) == 4 && sizeof(weft_initializer) == 4,
               "weft ABI enums are 32 bits");
#endif

/* ------------------------------------------------------------------------ */
/* Plugin info: returned by the exported weft_plugin_get_info() before any other
 * plugin code runs. The host checks abi_version against its supported range
 * and name/version against the manifest before calling init. */
typedef struct weft_plugin_info {
    uint32_t struct_size;
    uint32_t abi_version;    /* WEFT_ABI_VERSION the plugin was built for      */
    const char *name;        /* must equal the manifest's `name`               */
    const char *version;     /* semver; must equal the manifest's `version`    */
    const char *sdk_version; /* WEFT_SDK_VERSION_STRING at build time          */
} weft_plugin_info;

/* ------------------------------------------------------------------------ */
/* Descriptors handed to the host. Kernel types are named by strings the host
 * parses: "float32", "int64", "vec3", "mat44", "quat", "array(float32)",
 * "array(dtype=vec3, ndim=2)", or the native name of a registered native type
 * ("warp_test::Color"). */

typedef struct weft_param_desc {
    uint32_t struct_size;
    const char *name; /* identifier; part of the overload's identity */
    const char *type; /* kernel type name                            */
    /* sizeof the C++ type the native function takes for this parameter; the
     * host rejects the builtin when it differs from the kernel type's size.
     * 0: not stated, not checked. */
    uint64_t cpp_size;
    /* WEFT_PARAM_* bits (appended without an ABI bump: an older plugin's
     * struct_size reads as 0, a by-value parameter). */
    uint32_t flags;
    uint32_t reserved; /* zero: keeps the layout free of padding */
} weft_param_desc;

/* weft_param_desc::flags. INOUT: the native function takes the parameter as
 * a non-const reference (T &) and may write it; a kernel passes a local
 * variable of exactly the type, which the call updates (Warp's
 * hash_grid_query_next(query, index)). Such a builtin has no adjoint. */
#define WEFT_PARAM_INOUT 1u

typedef struct weft_builtin_desc {
    uint32_t struct_size;
    const char *name;               /* identifier used in kernels                    */
    const weft_param_desc *params;  /* ordered; defines exactly one overload         */
    uint32_t param_count;
    const char *result_type;        /* kernel type name, or NULL / "" for void       */
    const char *native_name;        /* qualified C++ name; NULL means "weft::<name>" */
    const char *doc;                /* may be NULL                                   */
    /* sizeof the C++ type the native function returns; checked against the
     * result's kernel type like weft_param_desc::cpp_size. 0: not checked. */
    uint64_t result_cpp_size;
    /* The builtin's gradient contract: the qualified C++ name of its adjoint,
     * under the plugin's native prefixes, or NULL / "" (not differentiable:
     * backward passes treat its result as a constant). The adjoint has the
     * signature void(P1..., P1 &..., R): the forward arguments, references to
     * their adjoints, then the result's adjoint; it adds the result's adjoint,
     * propagated, to each argument's adjoint. Part of the builtin's identity
     * (and so of every module hash that references it); a definition whose
     * signature differs is a compile error naming plugin and builtin. */
    const char *adjoint_native;
} weft_builtin_desc;

/* One data member of the C type as the compiler laid it out. */
typedef struct weft_field_desc {
    uint32_t struct_size;
    const char *name;
    uint64_t offset;    /* offsetof(T, name)                    */
    uint64_t size;      /* sizeof(((T*)0)->name)                */
    uint32_t bit_width; /* 0 for an ordinary member; bit-fields are rejected */
} weft_field_desc;

/* A declared field made visible to kernels, with its kernel type. */
typedef struct weft_exposed_field_desc {
    uint32_t struct_size;
    const char *name; /* must name a declared field */
    const char *type; /* kernel type name; its size must equal the field's storage */
} weft_exposed_field_desc;

typedef struct weft_native_type_desc {
    uint32_t struct_size;
    const char *native_name; /* qualified C++ type name */
    uint64_t size;           /* sizeof(T)  */
    uint64_t alignment;      /* alignof(T) */
    const weft_field_desc *fields; /* every data member, in declaration order */
    uint32_t field_count;
    const weft_exposed_field_desc *exposed; /* subset visible to kernels; none = opaque */
    uint32_t exposed_count;
    weft_initializer initializer;
    const char *doc; /* may be NULL */
    /* Gradients (appended without an ABI bump: an older plugin's struct_size
     * reads as 0 and NULL). Nonzero: values of this type carry a gradient.
     * Its adjoint is a value of the same C type whose exposed fields, each a
     * float scalar, vector, matrix, quaternion or transform, hold those
     * fields' gradients; the zero adjoint is the value-initialized T{}. 0: a
     * constant to backward passes (a gradient that would flow into one is a
     * build error). */
    uint32_t differentiable;
    uint32_t reserved; /* zero: keeps the layout free of padding */
    /* With differentiable: the qualified C++ name, under the plugin's native
     * prefixes, of void f(T &adjoint, const T &value), adding value into
     * adjoint; NULL / "": field by field over the exposed fields. Gradient
     * arrays of T, which threads share, are added to field by field
     * atomically either way, so f must compute that same sum. */
    const char *adjoint_accumulate;
} weft_native_type_desc;

typedef struct weft_string_list {
    const char *const *items;
    uint32_t count;
} weft_string_list;

/* Build options contributed to every module that uses this plugin. Paths must
 * be absolute; they are checked when a module's options are resolved for a
 * build, not here. */
typedef struct weft_build_options_desc {
    uint32_t struct_size;
    weft_string_list cuda_include_dirs;
    weft_string_list cpu_include_dirs;
    const char *cuda_preamble; /* may be NULL */
    const char *cpu_preamble;  /* may be NULL */
    weft_string_list build_dependencies;
} weft_build_options_desc;

/* ------------------------------------------------------------------------ */
/* The host side. `ctx` is opaque and accepts calls only during weft_plugin_init:
 * the host stages every registration and commits them all, or none, after init
 * returns. The table and ctx stay readable after init (a thread or destructor
 * that kept them does no harm), but every later call is refused:
 * WEFT_ERROR_UNSUPPORTED, log and report_error do nothing, last_error says why. */
typedef struct weft_host_context weft_host_context;

typedef void (*weft_proc)(void);

typedef struct weft_host_api {
    uint32_t struct_size;
    uint32_t abi_version;            /* the ABI version the host speaks to this plugin */
    weft_host_context *ctx;
    const char *host_version;        /* weft's version string                          */
    const char *plugin_directory;    /* absolute directory holding the manifest        */

    weft_status (*register_native_type)(weft_host_context *ctx, const weft_native_type_desc *desc);
    weft_status (*register_builtin)(weft_host_context *ctx, const weft_builtin_desc *desc);
    weft_status (*add_build_options)(weft_host_context *ctx, const weft_build_options_desc *desc);
    void (*log)(weft_host_context *ctx, weft_log_level level, const char *message);
    /* Records why init is about to fail; shown to the user with the plugin's name. */
    void (*report_error)(weft_host_context *ctx, const char *message);
    /* Message for the most recent failed call on ctx, or "" if none. */
    const char *(*last_error)(weft_host_context *ctx);
    /* Host functions added after v1, by name ("weft_register_builtin", ...);
     * NULL when this host does not have the function. */
    weft_proc (*get_proc_address)(const char *name);
} weft_host_api;

/* ------------------------------------------------------------------------ */
/* Host objects: things an application builds on the host from arrays and
 * values (a mesh with its BVH, a hash grid over points) that live on one
 * device, have methods and a lifetime the host manages, and that kernels
 * reach through a uint64 id (as Warp's wp.Mesh(...).id). A plugin registers
 * an object type with the host function "weft_register_object_type"
 * (weft_register_object_type_fn, through get_proc_address, during init like
 * every registration). The host validates each call's arguments against the
 * declared parameters before any plugin code runs, holds each object by
 * reference count, keeps it alive while a launch that received it is pending,
 * and calls destroy once, when the last reference goes. */

typedef enum weft_value_kind {
    WEFT_VALUE_NONE = 0,   /* not given: an optional parameter left out    */
    WEFT_VALUE_INT = 1,    /* int_value                                    */
    WEFT_VALUE_FLOAT = 2,  /* float_value                                  */
    WEFT_VALUE_BOOL = 3,   /* int_value, 0 or 1                            */
    WEFT_VALUE_STRING = 4, /* string_value                                 */
    WEFT_VALUE_ARRAY = 5,  /* array                                        */
    WEFT_VALUE_OBJECT = 6, /* object_id, object_type, object               */
    WEFT_VALUE_KIND_FORCE_32BIT = 0x7fffffff /* not a kind: fixes the enum's size */
} weft_value_kind;

/* An array argument: a view of the application's array, valid during the call only. */
typedef struct weft_array_arg {
    uint32_t struct_size;
    uint32_t ndim;
    uint64_t data;          /* first element on `device`: a host pointer, or a CUDA device pointer */
    const int64_t *shape;   /* ndim extents                                 */
    const int64_t *strides; /* ndim strides, in bytes                       */
    const char *dtype;      /* the elements' kernel type: "float32", "vec3", "int32" */
    uint64_t dtype_size;    /* bytes per element                            */
    const char *device;     /* "cpu", "cuda:0"                              */
} weft_array_arg;

/* One argument of a constructor or method call. The host passes exactly one
 * per declared parameter, in declaration order (WEFT_VALUE_NONE for an
 * optional one not given), each checked against the parameter's type. */
typedef struct weft_object_arg {
    uint32_t struct_size;
    weft_value_kind kind;
    const char *name; /* the parameter's name */
    int64_t int_value;
    double float_value;
    const char *string_value;
    const weft_array_arg *array;
    uint64_t object_id;      /* an object argument: the id kernels see       */
    const char *object_type; /* and its type's name                          */
    void *object;            /* its handle, when its type is this plugin's; else NULL */
} weft_object_arg;

/* A declared parameter of a constructor or method. `type` is a kernel type
 * name for an array ("array(dtype=vec3)", "array(int32)": dtype and ndim are
 * checked) or a scalar ("float32", "int32", "bool", ...: a value converts when
 * nothing is lost), "string", "object" (any object) or "object(NAME)" (an
 * object of type NAME). */
typedef struct weft_object_param_desc {
    uint32_t struct_size;
    uint32_t flags;   /* WEFT_OBJECT_PARAM_* bits                              */
    const char *name; /* identifier, unique in its list                       */
    const char *type;
    const char *doc;   /* may be NULL */
} weft_object_param_desc;

/* weft_object_param_desc::flags. OPTIONAL: may be left out (passed as
 * WEFT_VALUE_NONE). RETAIN (arrays): the host keeps the array alive as long as
 * the object, or until a later call passes this parameter again, so the object
 * may keep its data pointer and read it later (Warp's Mesh reads the points
 * array it was built from, which kernels may move before a refit). */
#define WEFT_OBJECT_PARAM_OPTIONAL 1u
#define WEFT_OBJECT_PARAM_RETAIN 2u

typedef enum weft_copy_kind {
    WEFT_COPY_HOST_TO_DEVICE = 0,
    WEFT_COPY_DEVICE_TO_HOST = 1,
    WEFT_COPY_DEVICE_TO_DEVICE = 2,
    WEFT_COPY_KIND_FORCE_32BIT = 0x7fffffff /* not a kind: fixes the enum's size */
} weft_copy_kind;

/* What the host gives a constructor, method or destructor: memory on the
 * object's device (a plugin never links a device runtime), accounted to the
 * object, and the error report. Valid during the call only. */
typedef struct weft_object_context weft_object_context;
typedef struct weft_object_api {
    uint32_t struct_size;
    uint32_t device_is_cuda; /* nonzero: device memory is CUDA device memory */
    weft_object_context *ctx;
    const char *device;      /* where the object lives: "cpu", "cuda:0"      */
    const char *object_type;
    /* `bytes` zero-filled bytes on the object's device, aligned to 64 bytes;
     * NULL (with the error set) when the device cannot. Memory left allocated
     * when the object is destroyed is freed by the host, and reported. */
    void *(*device_alloc)(weft_object_context *ctx, uint64_t bytes);
    void (*device_free)(weft_object_context *ctx, void *address);
    /* Host memory accounted to the object, zero-filled, 64-byte aligned. */
    void *(*host_alloc)(weft_object_context *ctx, uint64_t bytes);
    void (*host_free)(weft_object_context *ctx, void *address);
    /* Copies between host memory and the object's device memory; complete when it returns. */
    weft_status (*copy)(weft_object_context *ctx, void *dst, const void *src, uint64_t bytes, weft_copy_kind kind);
    /* Why the call is about to fail, naming the argument ("indices: 7 is not a
     * multiple of 3"); the host adds plugin, object type and call. */
    void (*set_error)(weft_object_context *ctx, const char *message);
} weft_object_api;

/* Builds an object from `args`: sets *object (the plugin's handle, passed to
 * methods and destroy) and *id (what kernels receive). On failure returns a
 * status other than WEFT_OK with the error set, having freed what it took. */
typedef weft_status (*weft_object_create_fn)(const weft_object_api *api, const weft_object_arg *args,
                                             uint32_t arg_count, void **object, uint64_t *id);
/* Runs a method; *id holds the object's id and may be changed (a rebuild that
 * reallocates). Failure as for create; the object must stay valid. */
typedef weft_status (*weft_object_method_fn)(const weft_object_api *api, void *object, const weft_object_arg *args,
                                             uint32_t arg_count, uint64_t *id);
typedef void (*weft_object_destroy_fn)(const weft_object_api *api, void *object);

typedef struct weft_object_method_desc {
    uint32_t struct_size;
    uint32_t param_count;
    const char *name; /* identifier, unique among the type's methods */
    const weft_object_param_desc *params;
    weft_object_method_fn call;
    const char *doc; /* may be NULL */
} weft_object_method_desc;

typedef struct weft_object_type_desc {
    uint32_t struct_size;
    uint32_t param_count;
    /* An identifier under the plugin's builtin prefixes, or a prefix without
     * its trailing '_' ("mesh" for the prefix "mesh_"); unique in a host. */
    const char *name;
    const weft_object_param_desc *params; /* the constructor's */
    weft_object_create_fn create;
    weft_object_destroy_fn destroy;
    const weft_object_method_desc *methods;
    uint32_t method_count;
    uint32_t reserved; /* zero */
    const char *doc; /* may be NULL */
} weft_object_type_desc;

#define WEFT_REGISTER_OBJECT_TYPE "weft_register_object_type"
typedef weft_status (*weft_register_object_type_fn)(weft_host_context *ctx, const weft_object_type_desc *desc);

/* ------------------------------------------------------------------------ */
/* The entry points a plugin exports (WEFT_PLUGIN_INFO_SYMBOL and
 * WEFT_PLUGIN_INIT_SYMBOL). Only these two symbols need to be visible. */
typedef const weft_plugin_info *(*weft_plugin_info_fn)(void);
typedef weft_status (*weft_plugin_init_fn)(const weft_host_api *api);

/* Struct-size initializers for C: `weft_builtin_desc d = WEFT_INIT_BUILTIN_DESC;`
 * (designated initializers: C99, or C++20; the C++ layer has make_desc<T>()). */
#define WEFT_STRUCT_INIT(type) {.struct_size = sizeof(type)}
#define WEFT_INIT_PARAM_DESC WEFT_STRUCT_INIT(weft_param_desc)
#define WEFT_INIT_BUILTIN_DESC WEFT_STRUCT_INIT(weft_builtin_desc)
#define WEFT_INIT_FIELD_DESC WEFT_STRUCT_INIT(weft_field_desc)
#define WEFT_INIT_EXPOSED_FIELD_DESC WEFT_STRUCT_INIT(weft_exposed_field_desc)
#define WEFT_INIT_NATIVE_TYPE_DESC WEFT_STRUCT_INIT(weft_native_type_desc)
#define WEFT_INIT_BUILD_OPTIONS_DESC WEFT_STRUCT_INIT(weft_build_options_desc)
#define WEFT_INIT_OBJECT_PARAM_DESC WEFT_STRUCT_INIT(weft_object_param_desc)
#define WEFT_INIT_OBJECT_METHOD_DESC WEFT_STRUCT_INIT(weft_object_method_desc)
#define WEFT_INIT_OBJECT_TYPE_DESC WEFT_STRUCT_INIT(weft_object_type_desc)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WEFT_PLUGIN_H */
