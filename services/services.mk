# services/services.mk: the cluster services (mars-supervisor, mars-gateway,
# mars-worker) and their unit tests. Included by the top Makefile; adds to
# its `build` and `unit` targets and reuses CFLAGS_REL, CFLAGS_SAN,
# DEPS_LIBS and BUILD.
#
# Objects use static pattern rules (explicit for these targets, so the top
# Makefile's engine pattern rules never build them without our flags).
# -DH2O_USE_LIBUV=0 selects libh2o's own event loop (STACK-NOTES);
# _GNU_SOURCE for memmem in h2o's headers.

SVC_CFLAGS := -D_GNU_SOURCE -DH2O_USE_LIBUV=0 -Iservices/common -Iservices/gateway -Iservices/worker -Iengine \
  $(shell pkg-config --cflags libh2o-evloop hiredis libpq 2>/dev/null || echo -I/usr/include/hiredis -I/usr/include/postgresql)
SVC_LIBS := $(shell pkg-config --libs libh2o-evloop hiredis libpq 2>/dev/null || echo -lh2o-evloop -lhiredis -lpq) \
  $(DEPS_LIBS)

SVC_COMMON_SRC := $(wildcard services/common/*.c)
SVC_GATEWAY_LIB_SRC := $(filter-out services/gateway/main.c,$(wildcard services/gateway/*.c))
SVC_WORKER_SRC := $(wildcard services/worker/*.c)
# The worker's modules apart from its main (store, memguard, chunk route):
# in the archive too, so that unit tests link them.
SVC_WORKER_LIB_SRC := $(filter-out services/worker/main.c,$(SVC_WORKER_SRC))
SVC_SUPERVISOR_SRC := $(wildcard services/supervisor/*.c)
SVC_ALL_SRC := $(SVC_COMMON_SRC) $(SVC_GATEWAY_LIB_SRC) services/gateway/main.c \
  $(SVC_SUPERVISOR_SRC) $(SVC_WORKER_SRC)

SVC_REL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(SVC_ALL_SRC))
SVC_SAN_OBJ := $(patsubst %.c,$(BUILD)/san/%.o,$(SVC_ALL_SRC))

$(SVC_REL_OBJ): $(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) $(SVC_CFLAGS) -c $< -o $@

$(SVC_SAN_OBJ): $(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) $(SVC_CFLAGS) -c $< -o $@

# The shared plumbing and the gateway library, one archive per flavour.
$(BUILD)/lib/libmarssvc.a: $(patsubst %.c,$(BUILD)/obj/%.o,$(SVC_COMMON_SRC) $(SVC_GATEWAY_LIB_SRC) $(SVC_WORKER_LIB_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^

$(BUILD)/san/lib/libmarssvc.a: $(patsubst %.c,$(BUILD)/san/%.o,$(SVC_COMMON_SRC) $(SVC_GATEWAY_LIB_SRC) $(SVC_WORKER_LIB_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^

SVC_PROGRAMS := mars-supervisor mars-gateway mars-worker
svc_main_mars-supervisor := $(patsubst %.c,%.o,$(SVC_SUPERVISOR_SRC))
svc_main_mars-gateway := services/gateway/main.o
svc_main_mars-worker := $(patsubst %.c,%.o,$(SVC_WORKER_SRC))

# The supervisor and the worker tile and run graphs through engine/ (the
# gateway validates with it too): every program links the engine archive
# after the services' one.
# Release programs in build/bin (what users and the integration suite run),
# and the same under ASan and UBSan in build/san/bin (MARS_BIN_DIR=build/san/bin
# runs the integration suite over them).
define svc_program
$(BUILD)/bin/$(1): $(addprefix $(BUILD)/obj/,$(svc_main_$(1))) $(BUILD)/lib/libmarssvc.a $(BUILD)/lib/libmarsengine.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_REL) -o $$@ $$^ $$(SVC_LIBS) $$(CUDA_LIBS)

$(BUILD)/san/bin/$(1): $(addprefix $(BUILD)/san/,$(svc_main_$(1))) $(BUILD)/san/lib/libmarssvc.a $(BUILD)/san/lib/libmarsengine.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_SAN) -o $$@ $$^ $$(SVC_LIBS)
endef
$(foreach p,$(SVC_PROGRAMS),$(eval $(call svc_program,$(p))))

# A worker with the emulated device (engine/cuda/gpu_emu.cc, docs/gpu.md),
# and the same under ASan and UBSan.
$(BUILD)/emu/bin/mars-worker: $(addprefix $(BUILD)/obj/,$(svc_main_mars-worker)) $(BUILD)/lib/libmarssvc.a $(BUILD)/emu/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -o $@ $^ $(SVC_LIBS) -lstdc++
$(BUILD)/emu/san/bin/mars-worker: $(addprefix $(BUILD)/san/,$(svc_main_mars-worker)) $(BUILD)/san/lib/libmarssvc.a $(BUILD)/emu/san/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) -o $@ $^ $(SVC_LIBS) -lstdc++
build: $(BUILD)/emu/bin/mars-worker $(BUILD)/emu/san/bin/mars-worker

build: $(addprefix $(BUILD)/bin/,$(SVC_PROGRAMS)) $(addprefix $(BUILD)/san/bin/,$(SVC_PROGRAMS))

# Unit tests: cmocka, under ASan and UBSan, mirroring services/.
SVC_UNIT_SRC := $(wildcard tests/unit/services/*.c)
SVC_UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(SVC_UNIT_SRC))

$(SVC_UNIT_BIN): $(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/san/lib/libmarssvc.a $(BUILD)/san/lib/libmarsengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) $(SVC_CFLAGS) -o $@ $< $(BUILD)/san/lib/libmarssvc.a \
	  $(BUILD)/san/lib/libmarsengine.a -lcmocka $(SVC_LIBS)

unit: $(SVC_UNIT_BIN)

.PHONY: services
services: $(addprefix $(BUILD)/bin/,$(SVC_PROGRAMS))

-include $(SVC_REL_OBJ:.o=.d) $(SVC_SAN_OBJ:.o=.d) $(SVC_UNIT_BIN:=.d)

# The HTTP fuzzer (fuzz/fuzz_http.c) also needs the services' pure request
# parsing: an explicit rule, which wins over the top Makefile's fuzz pattern.
# (each helper compiled apart, by the top Makefile's fuzzobj rule, so that
# every source's header dependencies are recorded)
FUZZ_SVC_OBJ := $(BUILD)/fuzzobj/services/common/httpparse.o \
  $(BUILD)/fuzzobj/services/common/chunkrange.o
$(BUILD)/fuzz/fuzz_http: fuzz/fuzz_http.c $(BUILD)/fuzzobj/services/common/httpparse.o \
  $(BUILD)/fuzzobj/libmarsengine.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -MF $@.d -Iengine -Iservices/common -o $@ $< \
	  $(BUILD)/fuzzobj/services/common/httpparse.o $(BUILD)/fuzzobj/libmarsengine.a \
	  $(DEPS_LIBS)

# The chunk-range fuzzer (fuzz/fuzz_chunkrange.c): the query string of the
# worker's chunk route.
$(BUILD)/fuzz/fuzz_chunkrange: fuzz/fuzz_chunkrange.c $(BUILD)/fuzzobj/services/common/chunkrange.o
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -MF $@.d -Iservices/common -o $@ $< \
	  $(BUILD)/fuzzobj/services/common/chunkrange.o
-include $(FUZZ_SVC_OBJ:.o=.d)
