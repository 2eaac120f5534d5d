# The EGL application profiles cdi-generate mounts into GPU devices (included by the Makefile):
# one file per GPU minor 0..63 setting EGLVisibleDGPUDevices to 1 << minor, in the format of
# nvidia-ctk's update-application-profile hook, so that EGL and Vulkan in a container see only
# the GPU it was given. Installed read-only under $(datarootdir)/cdikit/application-profiles,
# where cdi-generate looks for them inside --root (/usr/local/share or /usr/share).

APP_PROFILE_DIR := $(B)/share/cdikit/application-profiles
APP_PROFILE_MINORS := $(shell seq 0 63)
APP_PROFILES := $(foreach n,$(APP_PROFILE_MINORS),$(APP_PROFILE_DIR)/gpu$(n).conf)
app_profile_dest = $(DESTDIR)$(datarootdir)/cdikit/application-profiles

all: $(APP_PROFILES)

# The mask in hex as the hook prints it (0x%x); printf's 64-bit arithmetic gives 1 << 63 too.
$(APP_PROFILE_DIR)/gpu%.conf: mk/app_profiles.mk
	@mkdir -p $(@D)
	@printf '{"profiles":[{"name":"_container_","settings":["EGLVisibleDGPUDevices",0x%x]}],"rules":[{"pattern":[],"profile":"_container_"}]}\n' \
		$$((1 << $*)) >$@

install-app-profiles: $(APP_PROFILES)
	$(INSTALL) -d $(app_profile_dest)
	$(INSTALL) -m 0644 $(APP_PROFILES) $(app_profile_dest)/
uninstall-app-profiles:
	rm -f $(addprefix $(app_profile_dest)/,$(notdir $(APP_PROFILES)))
	rmdir $(app_profile_dest) $(DESTDIR)$(datarootdir)/cdikit 2>/dev/null || true
install: install-app-profiles
uninstall: uninstall-app-profiles
.PHONY: install-app-profiles uninstall-app-profiles
