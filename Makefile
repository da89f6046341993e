# Thin wrapper over scripts/install-deps.sh, CMake and CTest.
#   make demo   install what is missing, build, run the demo
#   make test   install what is missing, build, run every test
#   make sanitize   the same tests under ASan+UBSan (build-asan/)
#   make fuzz   the front-end fuzzer, bounded (build-fuzz/, clang)
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

ifeq ($(CI),true)
CMAKE_ARGS += -DWEFT_WERROR=ON
endif

.PHONY: deps configure build demo test sanitize fuzz clean

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@./scripts/demo.sh $(BUILD)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# use_sigaltstack=0: LLVM installs its own alternate signal stack (heap memory)
# on threads that write compiler output; ASan would try to unmap it at thread exit.
sanitize:
	@ASAN_OPTIONS=use_sigaltstack=0$${ASAN_OPTIONS:+:$$ASAN_OPTIONS} $(MAKE) test BUILD=build-asan BUILD_TYPE=Debug CMAKE_ARGS="$(CMAKE_ARGS) -DWEFT_SANITIZE=ON"

# The fuzzers (front end, registry, remote replies, trust files) and the
# accepted-mutants build, built with clang (target weft_fuzzers) and run
# bounded: WEFT_FUZZ_SECONDS each (default 60).
fuzz:
	@./scripts/install-deps.sh fuzz
	@CC=clang-19 CXX=clang++-19 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_FUZZ=ON \
	  -DWEFT_BUILD_BENCH=OFF $(CMAKE_ARGS) >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target weft_fuzzers
	@cd build-fuzz && ctest --output-on-failure -R '^fuzz\.'

clean:
	@rm -rf build build-asan build-fuzz
