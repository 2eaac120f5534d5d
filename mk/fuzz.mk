# Hardening tests (included by the Makefile): fuzz targets and the fault-injection shim.
#
#   make fuzz              build the libFuzzer targets with clang in $(BUILD)/fuzz and run each
#                          for FUZZ_SECONDS (default 30) from tests/fuzz/corpus/<target>
#   make fuzz FUZZ_TARGETS="yaml spec" FUZZ_SECONDS=600 FUZZ_OPTS=-jobs=2
#   make fuzz-build        the targets only
#
# make check needs no clang: it builds every target with $(CC), $(B)'s flags (sanitizers with
# SANITIZE=1) and tests/fuzz/replay.c as main(), and tests/fuzz-replay.sh runs each seed of
# tests/fuzz/corpus/<target> through it once. It also builds the LD_PRELOAD fault shim that
# tests/faults.sh uses.
#
# Each target is tests/fuzz/fuzz-<target>.c; see tests/fuzz/README.md.

FUZZ_NAMES := $(patsubst tests/fuzz/fuzz-%.c,%,$(sort $(wildcard tests/fuzz/fuzz-*.c)))
FUZZ_SRC := $(wildcard tests/fuzz/*.c)
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_SECONDS ?= 30
FUZZ_OPTS ?=
# The targets' own header ("fuzz.h"); the rooms' headers come by room name, as everywhere.
FUZZ_INCLUDES := -iquote tests/fuzz

# ---- libFuzzer build: clang, the project's archives instrumented for coverage ------------------
FUZZ_B := $(BUILD)/fuzz
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = $(filter-out $(SAN_FLAGS),$(BASE_CFLAGS)) $(FUZZ_INCLUDES) -O1 -g \
	-fsanitize=fuzzer-no-link $(FUZZ_SAN)
fuzz_obj = $(patsubst %.c,$(FUZZ_B)/obj/%.o,$(1))
FUZZ_ARCHIVES := $(FUZZ_B)/libcdi-gen.a $(FUZZ_B)/libcdi-apply.a $(FUZZ_B)/libcdi-schema.a
# The fuzz targets reach into every room: one archive of all of apply/ is enough for them.
FUZZ_BINS := $(patsubst %,$(FUZZ_B)/fuzz-%,$(FUZZ_NAMES))

$(FUZZ_B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_B)/libcdi-schema.a: $(call fuzz_obj,$(SCHEMA_SRC))
$(FUZZ_B)/libcdi-apply.a: $(call fuzz_obj,$(APPLY_SRC))
$(FUZZ_B)/libcdi-gen.a: $(call fuzz_obj,$(GEN_SRC))
$(FUZZ_ARCHIVES):
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_B)/fuzz-%: $(call fuzz_obj,tests/fuzz/fuzz-%.c tests/fuzz/lib.c) $(FUZZ_ARCHIVES)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $(LDFLAGS) -o $@ $^ $(LIB_LIBS) $(GEN_LIBS)

.SECONDARY: $(call fuzz_obj,$(FUZZ_SRC))

fuzz-build: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	FUZZ_B=$(FUZZ_B) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run $(FUZZ_TARGETS) -- $(FUZZ_OPTS)
.PHONY: fuzz fuzz-build

# ---- replay build for make check: the project's compiler and flags ----------------------------
FUZZ_REPLAY := $(patsubst %,$(B)/tests/fuzz/replay-%,$(FUZZ_NAMES))
$(call obj,$(FUZZ_SRC)): ALL_CFLAGS += $(FUZZ_INCLUDES)
.SECONDARY: $(call obj,$(FUZZ_SRC))

$(B)/tests/fuzz/replay-%: $(call obj,tests/fuzz/fuzz-%.c tests/fuzz/lib.c tests/fuzz/replay.c) \
		$(B)/libcdi-gen.a $(B)/libcdi-hook.a $(APPLY_ARCHIVES)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIB_LIBS) $(GEN_LIBS)

# ---- the fault shim (tests/faults.sh) ----------------------------------------------------------
# Never instrumented, even with SANITIZE=1: it is preloaded ahead of the ASan runtime
# (ASAN_OPTIONS=verify_asan_link_order=0) and only forwards calls.
FAULT_SHIM := $(B)/tests/faults/fault-shim.so
$(FAULT_SHIM): tests/faults/fault-shim.c mk/fuzz.mk
	@mkdir -p $(@D)
	$(CC) $(filter-out -MMD -MP $(SAN_FLAGS),$(ALL_CFLAGS)) -shared -Wl,--no-undefined \
		$(filter-out $(SAN_FLAGS),$(ALL_LDFLAGS)) -o $@ $< -ldl

check: $(FUZZ_REPLAY) $(FAULT_SHIM)

-include $(shell find $(FUZZ_B)/obj -name '*.d' 2>/dev/null)
