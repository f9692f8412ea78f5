# Thin wrapper: setup, configure, build, run, test.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The second, small build: the runtime alone under AddressSanitizer and UBSan.
ASAN_BUILD_DIR ?= build-asan
# Bounded fuzzing runs of make test (seconds; deterministic seeds).
BUNDLE_FUZZ_SECONDS ?= 30
FRONTEND_FUZZ_SECONDS ?= 60
# Random option sets of the whole forward checked on the CPU build (cases).
SWEEP_CASES ?= 20

LINKER_FLAG := $(shell command -v ld.lld >/dev/null 2>&1 && echo -DLLVM_USE_LINKER=lld)
CCACHE_FLAG := $(shell command -v ccache >/dev/null 2>&1 && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

.PHONY: setup configure build check test test-asan fuzz-frontend sweep-forward run clean

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
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory fuzz-frontend
	$(MAKE) --no-print-directory sweep-forward

# The runtime's host tests and the bundle fuzz target under ASan + UBSan
# (any report fails), then a bounded run of the bundle fuzzer over the
# committed seed corpus.
$(ASAN_BUILD_DIR)/build.ninja: | setup
	cmake -G Ninja -S runtime -B $(ASAN_BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DKDA_RUNTIME_SANITIZE=address,undefined $(CCACHE_FLAG)

test-asan: $(ASAN_BUILD_DIR)/build.ninja
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS) --target kda-runtime-test kda-bundle-fuzz
	UBSAN_OPTIONS=print_stacktrace=1 $(ASAN_BUILD_DIR)/kda-runtime-test > $(ASAN_BUILD_DIR)/kda-runtime-test.log 2>&1 \
	  || { cat $(ASAN_BUILD_DIR)/kda-runtime-test.log; exit 1; }
	@tail -n 2 $(ASAN_BUILD_DIR)/kda-runtime-test.log | sed 's/^/kda-runtime-test (ASan+UBSan): /'
	UBSAN_OPTIONS=print_stacktrace=1 $(ASAN_BUILD_DIR)/kda-bundle-fuzz --seed 1 \
	  --seconds $(BUNDLE_FUZZ_SECONDS) --runs 1000000000 \
	  --artifact-dir $(ASAN_BUILD_DIR) runtime/fuzz/corpus

# Mutants of the lit tests and examples through kda-opt and kda-translate
# for a bounded time: no crash, hang or missing diagnostic (docs/testing.md).
fuzz-frontend: build
	python3 scripts/fuzz-frontend.py --build $(BUILD_DIR) --seed 1 \
	  --seconds $(FRONTEND_FUZZ_SECONDS)

# Random option sets of kda.chunk_fwd in both forms against the float64
# reference on the CPU build (docs/testing.md).
sweep-forward: build
	python3 scripts/sweep-forward-options.py --build $(BUILD_DIR) --seed 1 \
	  --cases $(SWEEP_CASES) > $(BUILD_DIR)/sweep-forward-options.log 2>&1 \
	  || { cat $(BUILD_DIR)/sweep-forward-options.log; exit 1; }
	@tail -n 1 $(BUILD_DIR)/sweep-forward-options.log | sed 's/^/sweep-forward-options: /'

run: build
	@scripts/run-default.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR)
