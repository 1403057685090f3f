# Builds everything into build/. `make` builds, `make test` runs every test,
# `make run` starts the main job. Each target first installs the Debian
# packages it needs when they are missing (scripts/setup.sh).

CC ?= cc
BUILD := build
CSTD := -std=gnu11
WARN := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
DEPS_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null) -I/usr/include/x86_64-linux-gnu
DEPS_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson) -lopenblas -lz -lbz2 -llzma \
  -lzstd -lpthread -lm
# -ffp-contract=off: no fused multiply-add where numpy rounds twice.
# ARCH: the x86-64 level the programs are compiled for. `native` (this CPU's
# instruction set) by default; the container image builds with
# `make ARCH=x86-64-v2` so it runs on any x86-64 CPU of the last decade
# (docs/deploy.md).
ARCH ?= native
OPT := -O3 -march=$(ARCH) -ffp-contract=off
CFLAGS_REL := $(CSTD) $(WARN) $(OPT) -g -MMD -MP $(DEPS_CFLAGS)
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS_SAN := $(CSTD) $(WARN) -O1 -g $(SAN) -MMD -MP $(DEPS_CFLAGS)

ENGINE_SRC := $(wildcard engine/*.c engine/tile/*.c engine/kern/*.c engine/df/*.c)
ENGINE_LIB_SRC := $(filter-out engine/mars_run.c,$(ENGINE_SRC))
UNIT_SRC := $(wildcard tests/unit/engine/*.c tests/unit/engine/kern/*.c tests/unit/engine/df/*.c)
UNIT_HELPERS := $(wildcard tests/unit/*.c)

REL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(ENGINE_LIB_SRC))
SAN_OBJ := $(patsubst %.c,$(BUILD)/san/%.o,$(ENGINE_LIB_SRC))

# CPU levels (engine/kern/cpu.h, docs/deploy.md "CPU level"): the hot kernel
# files are compiled again for each level in KERN_LEVELS, into NAME.LEVEL.o,
# and engine/kern/cpu.c picks one copy at start-up by the CPU's features
# (MARS_CPU_LEVEL forces one). The plain objects are the `portable` copy,
# compiled for ARCH. x86-64 compilers only; `make KERN_LEVELS=` builds the
# portable copy alone.
KERN_MV_SRC := engine/kern/ew.c engine/kern/ew_int.c engine/kern/reduce.c engine/kern/random.c
KERN_LEVELS ?= $(if $(findstring x86_64,$(shell $(CC) -dumpmachine 2>/dev/null)),avx2 avx512)
KERN_MARCH_avx2 := -march=x86-64-v3
KERN_MARCH_avx512 := -march=x86-64-v4
KERN_HAVE := $(foreach l,$(KERN_LEVELS),-DKERN_HAVE_$(shell echo $(l) | tr a-z A-Z))
KERN_REL_OBJ := $(foreach l,$(KERN_LEVELS),$(patsubst %.c,$(BUILD)/obj/%.$(l).o,$(KERN_MV_SRC)))
KERN_SAN_OBJ := $(foreach l,$(KERN_LEVELS),$(patsubst %.c,$(BUILD)/san/%.$(l).o,$(KERN_MV_SRC)))
REL_OBJ += $(KERN_REL_OBJ)
SAN_OBJ += $(KERN_SAN_OBJ)

# CUDA (engine/cuda/gpu.h, docs/gpu.md): with nvcc at $(NVCC) the release
# build compiles engine/cuda/gpu.cu and links the CUDA runtime from
# $(CUDA_HOME)/lib64 (cuBLAS is dlopen'ed on first use); without it (or with NVCC=/nonexistent) it links
# gpu_stub.c, which refuses every device. The sanitizer build always links
# the stub. NVCC_GENCODE: the GPUs compiled for (Turing, Ampere, Hopper, and
# PTX for later ones).
NVCC ?= /usr/local/cuda/bin/nvcc
NVCC_PATH := $(shell command -v $(NVCC) 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC_PATH))
NVCC_GENCODE ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
  -gencode arch=compute_90,code=[sm_90,compute_90]
HAVE_CUDA := $(if $(NVCC_PATH),1)
GPU_REL_OBJ := $(BUILD)/obj/engine/cuda/gpu_common.o $(BUILD)/obj/engine/cuda/gpu_exec.o \
  $(if $(HAVE_CUDA),$(BUILD)/obj/engine/cuda/gpu.cu.o $(BUILD)/obj/engine/cuda/gpu_job.cu.o,$(BUILD)/obj/engine/cuda/gpu_stub.o)
CUDA_LINK := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lstdc++
CUDA_LIBS := $(if $(HAVE_CUDA),$(CUDA_LINK))
REL_OBJ += $(GPU_REL_OBJ)
SAN_OBJ += $(BUILD)/san/engine/cuda/gpu_common.o $(BUILD)/san/engine/cuda/gpu_exec.o \
  $(BUILD)/san/engine/cuda/gpu_stub.o
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))

FUZZ_SRC := $(wildcard fuzz/*.c)
FUZZ_BIN := $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_CC := clang
FUZZ_BASE_CFLAGS := $(CSTD) -Wall -Wextra -Werror -Wno-unused-parameter -O1 -g \
  -fno-sanitize-recover=all $(DEPS_CFLAGS)
FUZZ_CFLAGS := $(FUZZ_BASE_CFLAGS) -fsanitize=fuzzer,address,undefined
FUZZ_LIB_CFLAGS := $(FUZZ_BASE_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP

.PHONY: gpu-test-bin all setup setup-test setup-run setup-bench build test unit fuzz run run-standalone bench clean format format-check

all: setup build

setup:
	@scripts/setup.sh build
setup-test:
	@scripts/setup.sh test
setup-run:
	@scripts/setup.sh run
setup-bench:
	@scripts/setup.sh bench

build: $(BUILD)/bin/mars-run $(BUILD)/san/bin/mars-run ui/dist/index.html gpu-test-bin

# The dashboard (ui/README.md): plain ES modules copied under hashed names
# into ui/dist, which the gateway serves at /. Node only, no npm packages.
ui/dist/index.html: ui/build.mjs $(wildcard ui/src/*)
	node ui/build.mjs

$(BUILD)/lib/libmarsengine.a: $(REL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/san/lib/libmarsengine.a: $(SAN_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -c $< -o $@

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) -c $< -o $@

# A kernel file's copy for one level: its -march after ARCH's, KERN_LEVEL for
# engine/kern/level.h. The level is the object name's last part before .o.
kern_lv = $(lastword $(subst ., ,$(basename $(1))))
# Release copies keep their code in a section of their own, .mars.kern.LEVEL
# (objcopy; no cold partitions left in .text.unlikely), so that a check of a
# baseline build (tests/diff/test_cpu_levels.py, tests/deploy) finds wide
# vector instructions there and nowhere else.
$(KERN_REL_OBJ):
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) $(KERN_MARCH_$(call kern_lv,$@)) -DKERN_LEVEL=$(call kern_lv,$@) \
	  -fno-reorder-blocks-and-partition -fno-reorder-functions -MF $(@:.o=.d) -MT $@ -c $< -o $@.tmp
	objcopy --rename-section .text=.mars.kern.$(call kern_lv,$@),alloc,load,readonly,code,contents $@.tmp $@
	rm -f $@.tmp
$(KERN_SAN_OBJ):
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) $(KERN_MARCH_$(call kern_lv,$@)) -DKERN_LEVEL=$(call kern_lv,$@) -c $< -o $@
$(foreach l,$(KERN_LEVELS),$(foreach s,$(KERN_MV_SRC),$(eval $(BUILD)/obj/$(s:.c=.$(l).o) $(BUILD)/san/$(s:.c=.$(l).o): $(s))))
# cpu.c calls the copies the build carries.
# KERN_ARCH: what the portable copy was compiled for (--version says).
$(BUILD)/obj/engine/kern/cpu.o: CFLAGS_REL += $(KERN_HAVE) -DKERN_ARCH='"$(ARCH)"'
$(BUILD)/san/engine/kern/cpu.o: CFLAGS_SAN += $(KERN_HAVE) -DKERN_ARCH='"x86-64"'

$(BUILD)/bin/mars-run: $(BUILD)/obj/engine/mars_run.o $(BUILD)/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -o $@ $^ $(DEPS_LIBS) $(CUDA_LIBS)

$(BUILD)/obj/engine/cuda/gpu.cu.o: engine/cuda/gpu.cu engine/cuda/gpu.h engine/cuda/gpu_blas.h
	@mkdir -p $(dir $@)
	$(NVCC_PATH) -O2 -std=c++17 $(NVCC_GENCODE) -Xcompiler -fPIE,-Wall -Iengine \
	  -DMARS_CUDA_LIB_DIR='"$(CUDA_HOME)/lib64"' -c $< -o $@
# -fmad=false: no fused multiply-add the CPU kernels lack (the same bits).
$(BUILD)/obj/engine/cuda/gpu_job.cu.o: engine/cuda/gpu_job.cu engine/cuda/gpu.h \
  engine/cuda/gpu_dev.h engine/cuda/gpu_store.h engine/cuda/gpu_blas.h engine/kern/rand_math.h
	@mkdir -p $(dir $@)
	$(NVCC_PATH) -O2 -std=c++17 -fmad=false $(NVCC_GENCODE) -Xcompiler -fPIE,-Wall -Iengine \
	  -DMARS_CUDA_LIB_DIR='"$(CUDA_HOME)/lib64"' -c $< -o $@

# The emulated device (engine/cuda/gpu_emu.cc, docs/gpu.md): mars-run and
# mars-worker whose device is host memory and whose kernels are gpu_dev.h's
# work items in loops, in every build (nvcc or not), so that the GPU suite's
# documents run on machines without a GPU (tests/diff/test_gpu_emu.py). The
# sanitizer copy runs gpu_exec.c and the emulator under ASan and UBSan.
EMU_CXXFLAGS := -std=c++17 $(WARN) -ffp-contract=off -g -Iengine
EMU_GPU_OBJ := $(BUILD)/obj/engine/cuda/gpu_common.o $(BUILD)/obj/engine/cuda/gpu_exec.o \
  $(BUILD)/obj/engine/cuda/gpu_emu.o
$(BUILD)/obj/engine/cuda/gpu_emu.o $(BUILD)/san/engine/cuda/gpu_emu.o: engine/cuda/gpu_emu.cc \
  engine/cuda/gpu_dev.h engine/cuda/gpu_store.h engine/cuda/gpu.h engine/kern/rand_math.h
$(BUILD)/obj/engine/cuda/gpu_emu.o:
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_CXXFLAGS) -O2 -march=$(ARCH) -c $< -o $@
$(BUILD)/san/engine/cuda/gpu_emu.o:
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_CXXFLAGS) -O1 $(SAN) -c $< -o $@
$(BUILD)/emu/lib/libmarsengine.a: $(filter-out $(GPU_REL_OBJ),$(REL_OBJ)) $(EMU_GPU_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^
$(BUILD)/emu/san/lib/libmarsengine.a: $(filter-out %/gpu_stub.o,$(SAN_OBJ)) $(BUILD)/san/engine/cuda/gpu_emu.o
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^
$(BUILD)/emu/bin/mars-run: $(BUILD)/obj/engine/mars_run.o $(BUILD)/emu/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -o $@ $^ $(DEPS_LIBS) -lstdc++
$(BUILD)/emu/san/bin/mars-run: $(BUILD)/san/engine/mars_run.o $(BUILD)/emu/san/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) -o $@ $^ $(DEPS_LIBS) -lstdc++
build: $(BUILD)/emu/bin/mars-run $(BUILD)/emu/san/bin/mars-run

# The GPU suite's program (tests/gpu): built with the CUDA path only.
$(BUILD)/tests/gpu/test_gpu: tests/gpu/test_gpu.c $(BUILD)/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -Iengine -o $@ $^ $(DEPS_LIBS) $(CUDA_LIBS)
gpu-test-bin: $(if $(HAVE_CUDA),$(BUILD)/tests/gpu/test_gpu)

# The same program under ASan and UBSan, for the differential suite.
$(BUILD)/san/bin/mars-run: $(BUILD)/san/engine/mars_run.o $(BUILD)/san/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) -o $@ $^ $(DEPS_LIBS)

# Unit tests (cmocka) mirror the source tree and run under ASan and UBSan.
$(BUILD)/tests/unit/%: tests/unit/%.c $(UNIT_HELPERS) $(BUILD)/san/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) -Iengine -Itests/unit -o $@ $< $(UNIT_HELPERS) \
	  $(BUILD)/san/lib/libmarsengine.a -lcmocka $(DEPS_LIBS)

# the engine as the sanitizer build has it (the CUDA stub, no runtime),
# compiled once for all the fuzzers with their coverage instrumentation
# (fuzzer-no-link) into one library that each fuzzer links
FUZZ_ENGINE_SRC := $(ENGINE_LIB_SRC) engine/cuda/gpu_common.c engine/cuda/gpu_exec.c \
  engine/cuda/gpu_stub.c
FUZZ_OBJ := $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(FUZZ_ENGINE_SRC))
$(BUILD)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_LIB_CFLAGS) -c $< -o $@
$(BUILD)/fuzzobj/libmarsengine.a: $(FUZZ_OBJ)
	rm -f $@
	ar rcs $@ $^
$(BUILD)/fuzz/%: fuzz/%.c $(BUILD)/fuzzobj/libmarsengine.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -MF $@.d -Iengine -o $@ $< \
	  $(BUILD)/fuzzobj/libmarsengine.a $(DEPS_LIBS)

unit: $(UNIT_BIN)
fuzz: $(FUZZ_BIN)

# The packages first, then the build on every core (a fresh clone compiles
# the engine four times over: release, sanitizers, unit tests, fuzzers),
# then every suite.
NPROC := $(shell nproc 2>/dev/null || echo 2)
test: setup-test format-check
	@$(MAKE) --no-print-directory -j$(NPROC) build unit fuzz
	@tests/run.sh

# A whole cluster on this machine until Ctrl-C: PostgreSQL and Redis in
# temporary directories, a supervisor serving the REST API and dashboard on
# $${MARS_WEB_PORT:-7005}, two workers. `scripts/run-cluster.sh --help` lists
# its settings; `scripts/run-cluster.sh --check` runs the seed example end to
# end and stops.
run: setup-run build
	@scripts/run-cluster.sh

# The seed example in one process (mars-run), without the cluster.
run-standalone: setup build
	$(BUILD)/bin/mars-run examples/seed-inner.json -o $(BUILD)/run-out
	@echo "wrote $(BUILD)/run-out/b.npy"
	@/usr/bin/python3 -c "import numpy as np; b = np.load('$(BUILD)/run-out/b.npy'); print('b', b.shape, b.dtype, 'b[0, :3] =', b[0, :3])" 2>/dev/null || true

bench: setup-bench build
	@bench/run.sh

# Every tracked C source and header, formatted by .clang-format (clang-format 14).
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)

format:
	clang-format -i $(FORMAT_FILES)

# Fails, naming the files, when one differs from clang-format's output
# (`make format` fixes them). Part of `make test`.
format-check:
	@bad=0; for f in $(FORMAT_FILES); do \
	  clang-format --dry-run -Werror "$$f" >/dev/null 2>&1 || { echo "format-check: $$f differs (run make format)"; bad=1; }; \
	done; [ $$bad -eq 0 ] && echo "format-check: $(words $(FORMAT_FILES)) files formatted"

clean:
	rm -rf $(BUILD)

# The cluster services add their targets to `build` and `unit` here.
-include services/services.mk

-include $(REL_OBJ:.o=.d) $(SAN_OBJ:.o=.d) $(BUILD)/obj/engine/mars_run.d $(BUILD)/san/engine/mars_run.d \
  $(FUZZ_OBJ:.o=.d) $(FUZZ_BIN:=.d)
