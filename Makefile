# cdikit: one non-recursive GNU Makefile.
#   make                 build/cdi-generate build/cdi-apply build/libcdi.{a,so}
#   make check           every test (criterion suites, then tests/*.sh)
#   make check SANITIZE=1  the same under ASan+UBSan, in build/san
#   make memcheck        every criterion suite under valgrind (slow)
#   make bench           benchmarks with their budgets
#   make demo            generate a spec for the simulated host, apply a device
#   make install         PREFIX, DESTDIR, LIBDIR honoured
#   make format          clang-format every C file in place; make format-check only checks

.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:

VERSION := 0.1.0
SOVERSION := 0

PREFIX ?= /usr/local
prefix ?= $(PREFIX)
exec_prefix ?= $(prefix)
bindir ?= $(exec_prefix)/bin
LIBDIR ?= $(exec_prefix)/lib
libdir ?= $(LIBDIR)
includedir ?= $(prefix)/include
datarootdir ?= $(prefix)/share
docdir ?= $(datarootdir)/doc/cdikit
pkgconfigdir ?= $(libdir)/pkgconfig
INSTALL ?= install

# BUILD relocates every output (parallel work trees: make BUILD=/tmp/b check).
BUILD ?= build
SANITIZE ?= 0
ifeq ($(SANITIZE),1)
B := $(BUILD)/san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
B := $(BUILD)
SAN_FLAGS :=
endif

PKG_CONFIG ?= pkg-config
LIB_PKGS := yaml-0.1 jansson
GEN_PKGS := libkmod
pkg = $(shell $(PKG_CONFIG) $(1) $(2) 2>/dev/null)
LIB_LIBS := $(call pkg,--libs,$(LIB_PKGS))
GEN_LIBS := $(call pkg,--libs,$(GEN_PKGS)) -ldl
CRIT_LIBS := $(call pkg,--libs,criterion)
# The tools link libyaml and jansson statically: cdi-apply runs once per container start and
# dynamic loading is a third of a bare process start. STATIC_DEPS=0 links them dynamically.
STATIC_DEPS ?= 1
ifeq ($(STATIC_DEPS),1)
TOOL_LIB_LIBS := -Wl,-Bstatic $(LIB_LIBS) -Wl,-Bdynamic
else
TOOL_LIB_LIBS := $(LIB_LIBS)
endif
# cdi-runtime runs at every container start and loads no library at run time: linked fully
# static, it skips the dynamic loader's work, a third of a bare process start (not under the
# sanitizers, whose runtimes are shared libraries).
ifeq ($(STATIC_DEPS)$(SANITIZE),10)
RUNTIME_LINK := -static $(LIB_LIBS)
else
RUNTIME_LINK := $(TOOL_LIB_LIBS)
endif
# Static on x86-64, cdi-runtime enters at its passthrough, which runs before libc starts
# (apply/runtime/fast_exec.h): those sources are built freestanding, calling nothing.
FAST_ENTRY_SRC := apply/runtime/fast_exec.c apply/runtime/config_lex.c apply/runtime/runc_flags.c
ifeq ($(STATIC_DEPS)$(SANITIZE)$(if $(filter x86_64-%,$(shell $(CC) -dumpmachine)),x86_64),10x86_64)
FAST_ENTRY := 1
RUNTIME_ENTRY := -Wl,-u,cdikit_fast_entry -Wl,-e,cdikit_fast_entry
else
FAST_ENTRY := 0
RUNTIME_ENTRY :=
endif

CC ?= cc
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-fPIC -fvisibility=hidden -D_GNU_SOURCE -DCDIKIT_VERSION=\"$(VERSION)\" -Iinclude -Ischema -iquote apply -iquote generate \
	$(call pkg,--cflags,$(LIB_PKGS) $(GEN_PKGS)) $(SAN_FLAGS)
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS) -MMD -MP
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)

SCHEMA_SRC := $(sort $(wildcard schema/*.c))
# apply/ is five rooms and the programs over them, calls going one way (docs/design.md):
# runtime -> nvidia -> libcdi -> schema, bundle -> libcdi, hook -> bundle + nvidia.
APPLY_MAINS := apply/cdi-apply.c apply/cdi-runtime.c apply/legacy-hook.c apply/nvidia-cdi-hook.c
LIBCDI_SRC := $(sort $(wildcard apply/libcdi/*.c))
NVIDIA_SRC := $(sort $(wildcard apply/nvidia/*.c))
BUNDLE_SRC := $(sort $(wildcard apply/bundle/*.c))
RUNTIME_SRC := $(sort $(wildcard apply/runtime/*.c))
HOOK_SRC := $(sort $(wildcard apply/hook/*.c))
APPLY_SRC := $(LIBCDI_SRC) $(NVIDIA_SRC) $(BUNDLE_SRC) $(RUNTIME_SRC) $(HOOK_SRC)
GEN_MAINS := generate/cdi-generate.c
GEN_SRC := $(filter-out $(GEN_MAINS),$(sort $(wildcard generate/*.c generate/*/*.c)))
TEST_SRC := $(sort $(wildcard tests/unit/test-*.c))
TESTLIB_SRC := $(sort $(wildcard tests/lib/*.c))

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
SCHEMA_OBJ := $(call obj,$(SCHEMA_SRC))
LIBCDI_OBJ := $(call obj,$(LIBCDI_SRC))
NVIDIA_OBJ := $(call obj,$(NVIDIA_SRC))
BUNDLE_OBJ := $(call obj,$(BUNDLE_SRC))
RUNTIME_OBJ := $(call obj,$(RUNTIME_SRC))
HOOK_OBJ := $(call obj,$(HOOK_SRC))
GEN_OBJ := $(call obj,$(GEN_SRC))
TESTLIB_OBJ := $(call obj,$(TESTLIB_SRC))
TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRC))
# Test objects come only from pattern rules: keep them, or every check relinks every suite.
.SECONDARY: $(call obj,$(TEST_SRC))

PROGRAMS := $(B)/cdi-apply $(if $(wildcard apply/cdi-runtime.c),$(B)/cdi-runtime) \
	$(if $(wildcard generate/cdi-generate.c),$(B)/cdi-generate)
# Not a command for users: mk/install.mk puts it in $(libexecdir)/cdikit, for dockerd's PATH
# (docs/runtime.md).
LEGACY_HOOK := $(B)/nvidia-container-runtime-hook
# NVIDIA's nvidia-cdi-hook commands for specs nvidia-ctk wrote (docs/engines.md): installed in
# $(libexecdir)/cdikit too, never in bindir, where NVIDIA's package puts its own.
CDI_HOOK := $(B)/nvidia-cdi-hook
SHLIB := $(B)/libcdi.so.$(VERSION)

all: $(PROGRAMS) $(LEGACY_HOOK) $(CDI_HOOK) $(B)/libcdi.a $(SHLIB) $(B)/libcdi.so $(B)/libcdi.pc
.PHONY: all

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Internal archives, one per room, so a program or a test links only what it uses, and a call
# against the rooms' direction does not link (tests/rooms.sh checks it besides).
$(B)/libcdi-schema.a: $(SCHEMA_OBJ)
$(B)/libcdi-core.a: $(LIBCDI_OBJ)
$(B)/libcdi-nvidia.a: $(NVIDIA_OBJ)
$(B)/libcdi-bundle.a: $(BUNDLE_OBJ)
$(B)/libcdi-runtime.a: $(RUNTIME_OBJ)
$(B)/libcdi-hook.a: $(HOOK_OBJ)
$(B)/libcdi-gen.a: $(GEN_OBJ)
$(B)/libcdi-testlib.a: $(TESTLIB_OBJ)
# libcdi is the CDI library and only that: schema/ and apply/libcdi/, nothing of NVIDIA's.
$(B)/libcdi.a: $(SCHEMA_OBJ) $(LIBCDI_OBJ)
$(B)/%.a:
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# Exported: exactly the functions of include/cdi/*.h, versioned (libcdi.sym; tests/abi.sh).
$(SHLIB): $(SCHEMA_OBJ) $(LIBCDI_OBJ) libcdi.sym
	$(CC) -shared -Wl,-soname,libcdi.so.$(SOVERSION) -Wl,--version-script=libcdi.sym \
		-Wl,--no-undefined $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(LIB_LIBS)
$(B)/libcdi.so: $(SHLIB)
	ln -sf libcdi.so.$(VERSION) $(B)/libcdi.so.$(SOVERSION)
	ln -sf libcdi.so.$(VERSION) $@

# The .pc file bakes in the install directories: rebuilt whenever one of them changes, not only
# when the Makefile does (a stamp that is rewritten only when its content differs).
PC_VARS := $(prefix) $(exec_prefix) $(libdir) $(includedir) $(VERSION)
$(B)/libcdi.pc.vars: FORCE
	@mkdir -p $(@D)
	@echo '$(PC_VARS)' | cmp -s - $@ 2>/dev/null || echo '$(PC_VARS)' >$@
FORCE:
.PHONY: FORCE

$(B)/libcdi.pc: $(B)/libcdi.pc.vars Makefile
	@mkdir -p $(@D)
	printf '%s\n' 'prefix=$(prefix)' 'exec_prefix=$(exec_prefix)' 'libdir=$(libdir)' \
		'includedir=$(includedir)' '' 'Name: libcdi' \
		'Description: Container Device Interface specs and OCI injection' \
		'Version: $(VERSION)' 'Requires.private: yaml-0.1 jansson' 'Requires: jansson' \
		'Libs: -L$${libdir} -lcdi' 'Cflags: -I$${includedir}' > $@

# Archives in the rooms' order: a room's archive comes before those it calls.
APPLY_ARCHIVES := $(B)/libcdi-runtime.a $(B)/libcdi-bundle.a $(B)/libcdi-nvidia.a $(B)/libcdi-core.a \
	$(B)/libcdi-schema.a
$(B)/cdi-apply: $(call obj,apply/cdi-apply.c) $(APPLY_ARCHIVES)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TOOL_LIB_LIBS)
$(B)/cdi-runtime: $(call obj,apply/cdi-runtime.c) $(APPLY_ARCHIVES)
	$(CC) $(ALL_LDFLAGS) $(RUNTIME_ENTRY) -o $@ $^ $(RUNTIME_LINK)
ifeq ($(FAST_ENTRY),1)
$(call obj,$(FAST_ENTRY_SRC)): ALL_CFLAGS += -ffreestanding -fno-builtin -fno-stack-protector \
	-fno-tree-loop-distribute-patterns -DCDIKIT_FAST_ENTRY
endif
$(LEGACY_HOOK): $(call obj,apply/legacy-hook.c) $(B)/libcdi-schema.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^
# Runs up to five times at every container start: linked as cdi-runtime is (static).
$(CDI_HOOK): $(call obj,apply/nvidia-cdi-hook.c) $(B)/libcdi-hook.a $(B)/libcdi-bundle.a \
		$(B)/libcdi-nvidia.a $(B)/libcdi-core.a $(B)/libcdi-schema.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(RUNTIME_LINK)
$(B)/cdi-generate: $(call obj,generate/cdi-generate.c) $(B)/libcdi-gen.a $(B)/libcdi-schema.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TOOL_LIB_LIBS) $(GEN_LIBS)

# Tests: tests/unit/test-<room>-<module>.c links its room and the rooms under it, no other.
.SECONDEXPANSION:
room_archives.schema :=
room_archives.libcdi := $(B)/libcdi-core.a
room_archives.nvidia := $(B)/libcdi-nvidia.a $(B)/libcdi-core.a
room_archives.bundle := $(B)/libcdi-bundle.a $(B)/libcdi-core.a
room_archives.runtime := $(B)/libcdi-runtime.a $(B)/libcdi-bundle.a $(B)/libcdi-nvidia.a $(B)/libcdi-core.a
room_archives.gen := $(B)/libcdi-gen.a
room_archives.hook := $(B)/libcdi-hook.a $(B)/libcdi-bundle.a $(B)/libcdi-nvidia.a $(B)/libcdi-core.a
test_archives = $(B)/libcdi-testlib.a $(room_archives.$(firstword $(subst -, ,$(1)))) \
	$(B)/libcdi-schema.a
test_libs = $(if $(filter gen-%,$(1)),$(GEN_LIBS))
$(B)/tests/test-%: $(call obj,tests/unit/test-%.c) $$(call test_archives,$$*)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CRIT_LIBS) $(LIB_LIBS) $(call test_libs,$*)

# Fixtures that tests and the demo build from source (mock NVML, simulated hosts).
-include tests/fixtures.mk
# Man pages, units, udev rule and configuration: install-data, a prerequisite of install.
include mk/install.mk
# The Kubernetes DaemonSet's process.
include mk/deploy.mk
# Fuzz targets, their replay by make check, the fault-injection shim.
include mk/fuzz.mk
# The EGL application profile of each GPU minor, which GPU devices mount.
include mk/app_profiles.mk

check: all $(TESTS) $(FIXTURES)
	B=$(B) SANITIZE=$(SANITIZE) tests/run-tests $(TESTS)
.PHONY: check

memcheck: all $(TESTS) $(FIXTURES)
	B=$(B) tests/run-memcheck $(TESTS)
.PHONY: memcheck

# Every bench runs and reports its budgets; the target fails at the end if one was missed
# (77: a bench that cannot run here).
bench: all $(FIXTURES)
	@rc=0; \
	B=$(B) tests/bench/run || rc=1; \
	B=$(B) tests/bench/runtime || { [ $$? -eq 77 ] || rc=1; }; \
	B=$(B) tests/bench/container-start || { [ $$? -eq 77 ] || rc=1; }; \
	B=$(B) tests/bench/spec-refresh || { [ $$? -eq 77 ] || rc=1; }; \
	B=$(B) tests/bench/hooks || { [ $$? -eq 77 ] || rc=1; }; \
	exit $$rc
.PHONY: bench

demo: all $(FIXTURES)
	B=$(B) scripts/demo
.PHONY: demo

install: all
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) $(DESTDIR)$(includedir)/cdi $(DESTDIR)$(pkgconfigdir)
	$(INSTALL) -m 0755 $(PROGRAMS) $(DESTDIR)$(bindir)/
	$(INSTALL) -m 0644 $(B)/libcdi.a $(DESTDIR)$(libdir)/
	$(INSTALL) -m 0755 $(SHLIB) $(DESTDIR)$(libdir)/
	ln -sf libcdi.so.$(VERSION) $(DESTDIR)$(libdir)/libcdi.so.$(SOVERSION)
	ln -sf libcdi.so.$(VERSION) $(DESTDIR)$(libdir)/libcdi.so
	$(INSTALL) -m 0644 include/cdi/*.h $(DESTDIR)$(includedir)/cdi/
	$(INSTALL) -m 0644 $(B)/libcdi.pc $(DESTDIR)$(pkgconfigdir)/
.PHONY: install

uninstall:
	rm -f $(addprefix $(DESTDIR)$(bindir)/,$(notdir $(PROGRAMS)))
	rm -f $(DESTDIR)$(libdir)/libcdi.a $(DESTDIR)$(libdir)/libcdi.so.$(VERSION) \
		$(DESTDIR)$(libdir)/libcdi.so.$(SOVERSION) $(DESTDIR)$(libdir)/libcdi.so \
		$(DESTDIR)$(pkgconfigdir)/libcdi.pc
	rm -rf $(DESTDIR)$(includedir)/cdi
.PHONY: uninstall

# clang-format over the tree's C files (the repo's .clang-format); tests/format.sh runs format-check in make check.
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find apply generate schema include tests -name '*.[ch]')
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)
.PHONY: format format-check

clean:
	rm -rf $(BUILD)
.PHONY: clean

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
