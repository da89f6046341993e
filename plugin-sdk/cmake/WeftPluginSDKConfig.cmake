# find_package(WeftPluginSDK) entry point for an installed SDK.
include(${CMAKE_CURRENT_LIST_DIR}/WeftPluginSDKTargets.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/WeftPluginSDK.cmake)
