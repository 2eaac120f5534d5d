# Test fixtures built from source (included by the Makefile).
# The mock libnvidia-ml.so.1 (tests/simhost/mock-nvml.c), in two builds:
#   $(B)/tests/mock-nvml/libnvidia-ml.so.1      a current driver (550.54.15, MIG symbols)
#   $(B)/tests/mock-nvml/old/libnvidia-ml.so.1  an old driver (440.118.02): no MIG symbols
# tests/simhost/make-host copies them into simulated hosts.

MOCK_NVML_DIR := $(B)/tests/mock-nvml
MOCK_NVML := $(MOCK_NVML_DIR)/libnvidia-ml.so.1
MOCK_NVML_OLD := $(MOCK_NVML_DIR)/old/libnvidia-ml.so.1
MOCK_NVML_SRC := tests/simhost/mock-nvml.c
MOCK_NVML_DEPS := $(MOCK_NVML_SRC) tests/simhost/mock-nvml.h generate/discover/nvml_api.h tests/fixtures.mk

# No -MMD here: the dependencies are listed above, and .d files under $(B)/tests
# would not be found by the Makefile's include of $(B)/obj. No sanitizer either, even
# with SANITIZE=1: the mock is loaded by programs that are not instrumented (python,
# the test program inside a runc container), where an ASan library cannot load; its own
# memory checks are valgrind runs in tests/simhost.sh.
MOCK_NVML_CFLAGS = $(filter-out -MMD -MP $(SAN_FLAGS),$(ALL_CFLAGS))
MOCK_NVML_LDFLAGS = $(filter-out $(SAN_FLAGS),$(ALL_LDFLAGS))

$(MOCK_NVML): $(MOCK_NVML_DEPS)
	@mkdir -p $(@D)
	$(CC) $(MOCK_NVML_CFLAGS) -shared -Wl,-soname,libnvidia-ml.so.1 -Wl,--no-undefined \
		$(MOCK_NVML_LDFLAGS) -o $@ $(MOCK_NVML_SRC) -ldl

$(MOCK_NVML_OLD): $(MOCK_NVML_DEPS)
	@mkdir -p $(@D)
	$(CC) $(MOCK_NVML_CFLAGS) -DMOCK_OLD_DRIVER -shared -Wl,-soname,libnvidia-ml.so.1 \
		-Wl,--no-undefined $(MOCK_NVML_LDFLAGS) -o $@ $(MOCK_NVML_SRC) -ldl

FIXTURES += $(MOCK_NVML) $(MOCK_NVML_OLD)
