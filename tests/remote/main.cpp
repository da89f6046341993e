// The remote cache tests need a real redis-server. Without one the whole
// program reports SKIPPED (exit 77, CTest's SKIP_RETURN_CODE for these tests)
// instead of passing; listing the tests works either way.
#define CATCH_CONFIG_RUNNER
#include "redis_server.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string_view>

int main(int argc, char **argv) {
    bool listing = false;
    for (int i = 1; i < argc; ++i) listing = listing || std::string_view(argv[i]).rfind("--list", 0) == 0;
    if (!listing && !weft::test::RedisServer::find_binary()) {
        std::printf("SKIPPED: redis-server is not installed (Debian package redis-server; scripts/install-deps.sh "
                    "installs it)\n");
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
