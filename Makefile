# Thin wrapper: setup, configure, build, run, test.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

LINKER_FLAG := $(shell command -v ld.lld >/dev/null 2>&1 && echo -DLLVM_USE_LINKER=lld)
CCACHE_FLAG := $(shell command -v ccache >/dev/null 2>&1 && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

.PHONY: setup configure build check test run clean

setup:
	@scripts/setup.sh

$(BUILD_DIR)/build.ninja: | setup
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  -DCMAKE_BUILD_TYPE=Release -DKDA_ENABLE_ASSERTIONS=ON \
	  -DMLIR_LINK_MLIR_DYLIB=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
	  $(LINKER_FLAG) $(CCACHE_FLAG) $(CMAKE_FLAGS)

configure: setup $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

check: build
	cmake --build $(BUILD_DIR) --target check-kda

test: build
	cmake --build $(BUILD_DIR) --target check-kda

run: build
	@scripts/run-default.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
