# Thin wrapper over scripts/install-deps.sh, CMake and CTest.
#   make demo   install what is missing, build, run the demo
#   make test   install what is missing, build, run every test
#   make sanitize   the same tests under ASan+UBSan (build-asan/)
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

ifeq ($(CI),true)
CMAKE_ARGS += -DWEFT_WERROR=ON
endif

.PHONY: deps configure build demo test sanitize clean

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

sanitize:
	@$(MAKE) test BUILD=build-asan BUILD_TYPE=Debug CMAKE_ARGS="$(CMAKE_ARGS) -DWEFT_SANITIZE=ON"

clean:
	@rm -rf build build-asan
