# Debian packages: `cpack -G DEB` in the build directory (or `cpack --config
# <build>/CPackConfig.cmake`) writes two, from the install components:
#   weft      runtime + plugins: libweft.so, the weft CLI and probe, the
#             bundled plugins; its postinst precompiles the runtime header
#   weft-dev  dev + sdk: the application headers, the CMake package, weft.pc,
#             and the plugin SDK (headers, CMake package, example)
# Dependencies are Debian package names: dpkg-shlibdeps derives the shared
# libraries' (LLVM, Clang, OpenSSL, ...), and the in-process compiler
# needs clang-19 (its driver and resource headers) at run time. NVRTC comes
# from the CUDA toolkit, which is no Debian package: libweft.so finds it
# through its RUNPATH where the toolkit is installed, and runs without it.
include(GNUInstallDirs)
set(CPACK_PACKAGE_NAME weft)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "weft")
set(CPACK_PACKAGE_CONTACT "weft maintainers <weft@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "C++ host for JIT-compiled compute kernels extended by plugins")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The build tree's libraries (libweft.so for the CLI), for dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/lib)

set(CPACK_COMPONENTS_ALL runtime plugins dev sdk)
set(CPACK_COMPONENT_RUNTIME_GROUP weft)
set(CPACK_COMPONENT_PLUGINS_GROUP weft)
set(CPACK_COMPONENT_DEV_GROUP weft-dev)
set(CPACK_COMPONENT_SDK_GROUP weft-dev)

set(CPACK_DEBIAN_WEFT_PACKAGE_NAME weft)
# libllvm19 by name too: dpkg-shlibdeps names it in some runs and not in others.
set(CPACK_DEBIAN_WEFT_PACKAGE_DEPENDS "clang-19, libllvm19")
set(CPACK_DEBIAN_WEFT_DESCRIPTION
  "C++ host for JIT-compiled compute kernels extended by plugins\n Loads plugins through a stable C ABI, checks Warp-style Python kernels, compiles them in process with Clang/LLVM (and NVRTC for CUDA when the toolkit is installed), caches artifacts by hash and launches them on every CPU core. This package holds libweft, the weft command-line tool and the bundled plugins.")
set(CPACK_DEBIAN_WEFT-DEV_PACKAGE_NAME weft-dev)
set(CPACK_DEBIAN_WEFT-DEV_PACKAGE_DEPENDS "weft (= ${PROJECT_VERSION}), libstdc++-12-dev | libstdc++-dev")
set(CPACK_DEBIAN_WEFT-DEV_DESCRIPTION
  "weft development files\n The application headers (weft/weft.hpp), the CMake package (find_package(weft)), weft.pc, and the plugin SDK: the C ABI header, its C++ layer, the WeftPluginSDK CMake package and an example plugin.")

set(WEFT_BINARY ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/weft)
set(WEFT_PREBUILT_DIR ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/weft/prebuilt)
foreach(script postinst prerm)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/${script}.in ${CMAKE_BINARY_DIR}/debian/${script} @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_WEFT_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/debian/postinst ${CMAKE_BINARY_DIR}/debian/prerm)
set(CPACK_DEBIAN_WEFT_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
