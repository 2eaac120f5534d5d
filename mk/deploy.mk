# The Kubernetes DaemonSet's process (deploy/kubernetes), built with everything else
# (included by the Makefile). The image is assembled from it, cdi-generate and their
# libraries by deploy/kubernetes/stage-rootfs.

REFRESH_LOOP_OBJ := $(call obj,deploy/kubernetes/cdikit-refresh-loop.c deploy/kubernetes/tree_copy.c)

# Static, so it runs in a FROM scratch image as is; not under the sanitizers, which need
# the dynamic loader.
$(B)/cdikit-refresh-loop: $(REFRESH_LOOP_OBJ) $(B)/libcdi-schema.a
	$(CC) $(ALL_LDFLAGS) $(if $(SAN_FLAGS),,-static) -o $@ $^

all: $(B)/cdikit-refresh-loop
