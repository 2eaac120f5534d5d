# What `make install` puts beside the programs and the library (included by the Makefile):
# man pages, the systemd units and udev rule that keep the spec fresh, the default
# configuration. `install` and `uninstall` depend on install-data / uninstall-data.
#   make man     $(B)/man/*.[138] from man/*.scd (scdoc)
#   make units   $(B)/deploy/systemd/* from deploy/systemd/*.in (paths filled in)

libexecdir ?= $(exec_prefix)/libexec
pkglibexecdir ?= $(libexecdir)/cdikit
mandir ?= $(datarootdir)/man
# /etc whatever the prefix: cdi-runtime reads /etc/cdikit/runtime.conf and the refresh unit
# /etc/cdikit/refresh.env, so a file under /usr/local/etc would be installed and never read.
sysconfdir ?= /etc
pkgsysconfdir ?= $(sysconfdir)/cdikit
# Where systemd and udev look, as their .pc files say; else the FHS places under the prefix.
systemdsystemunitdir ?= $(or $(call pkg,--variable=systemdsystemunitdir,systemd),$(prefix)/lib/systemd/system)
systemdsystempresetdir ?= $(or $(call pkg,--variable=systemdsystempresetdir,systemd),$(prefix)/lib/systemd/system-preset)
udevrulesdir ?= $(or $(addsuffix /rules.d,$(call pkg,--variable=udevdir,udev)),$(prefix)/lib/udev/rules.d)

SCDOC ?= scdoc
# A man page per program that is built (cdi-runtime may not be), one scdoc source each.
MAN_NAMES := cdi-generate.8 cdi-apply.1 libcdi.3 nvidia-cdi-hook.8 \
	$(if $(filter %/cdi-runtime,$(PROGRAMS)),cdi-runtime.8)
MANPAGES := $(addprefix $(B)/man/,$(MAN_NAMES))
UNITS := $(patsubst deploy/systemd/%.in,$(B)/deploy/systemd/%,$(wildcard deploy/systemd/*.in))
UDEV_RULES := deploy/systemd/70-cdikit.rules
PRESETS := deploy/systemd/90-cdikit.preset
# Installed once and then the administrator's: never overwritten, removed only unchanged.
CONFIGS := deploy/config/runtime.conf deploy/systemd/refresh.env
# Installed where Docker's PATH can be pointed at, not in bindir (where NVIDIA's package puts
# programs of the same names): the legacy hook marker and nvidia-cdi-hook.
HOOKS := $(B)/nvidia-container-runtime-hook $(B)/nvidia-cdi-hook

man: $(MANPAGES)
units: $(UNITS)
.PHONY: man units

$(B)/man/%: man/%.scd Makefile
	@mkdir -p $(@D)
	@command -v $(SCDOC) >/dev/null 2>&1 || { echo "$(SCDOC) not found: apt-get install scdoc" >&2; exit 1; }
	sed 's/@VERSION@/$(VERSION)/g' $< | $(SCDOC) >$@

# The units name installed paths; $(B)/deploy/paths changes only when those paths do, so a
# later `make install bindir=...` refills them and an unchanged one rebuilds nothing.
$(B)/deploy/paths: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' 'bindir=$(bindir)' 'pkgsysconfdir=$(pkgsysconfdir)' >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
$(B)/deploy/systemd/%: deploy/systemd/%.in $(B)/deploy/paths
	@mkdir -p $(@D)
	sed -e 's|@bindir@|$(bindir)|g' -e 's|@pkgsysconfdir@|$(pkgsysconfdir)|g' $< >$@
FORCE:
.PHONY: FORCE

man_dest = $(DESTDIR)$(mandir)/man$(patsubst .%,%,$(suffix $(1)))/$(1)

install-data: all $(MANPAGES) $(UNITS)
	$(INSTALL) -d $(DESTDIR)$(systemdsystemunitdir) $(DESTDIR)$(systemdsystempresetdir) \
		$(DESTDIR)$(udevrulesdir) $(DESTDIR)$(pkgsysconfdir) \
		$(sort $(foreach m,$(MAN_NAMES),$(dir $(call man_dest,$(m)))))
	$(foreach m,$(MAN_NAMES),$(INSTALL) -m 0644 $(B)/man/$(m) $(call man_dest,$(m)) &&) true
	$(INSTALL) -m 0644 $(UNITS) $(DESTDIR)$(systemdsystemunitdir)/
	$(INSTALL) -m 0644 $(PRESETS) $(DESTDIR)$(systemdsystempresetdir)/
	$(INSTALL) -m 0644 $(UDEV_RULES) $(DESTDIR)$(udevrulesdir)/
	for f in $(CONFIGS); do \
		t=$(DESTDIR)$(pkgsysconfdir)/$${f##*/}; \
		[ -e "$$t" ] || $(INSTALL) -m 0644 "$$f" "$$t" || exit; \
	done
	$(INSTALL) -d $(DESTDIR)$(pkglibexecdir)
	$(INSTALL) -m 0755 $(HOOKS) $(DESTDIR)$(pkglibexecdir)/
.PHONY: install-data

uninstall-data:
	rm -f $(foreach m,$(MAN_NAMES) cdi-runtime.8,$(call man_dest,$(m))) \
		$(addprefix $(DESTDIR)$(systemdsystemunitdir)/,$(notdir $(UNITS))) \
		$(addprefix $(DESTDIR)$(systemdsystempresetdir)/,$(notdir $(PRESETS))) \
		$(addprefix $(DESTDIR)$(udevrulesdir)/,$(notdir $(UDEV_RULES))) \
		$(addprefix $(DESTDIR)$(pkglibexecdir)/,$(notdir $(HOOKS)))
	for f in $(CONFIGS); do \
		t=$(DESTDIR)$(pkgsysconfdir)/$${f##*/}; \
		if cmp -s "$$f" "$$t"; then rm -f "$$t"; \
		elif [ -e "$$t" ]; then echo "uninstall: keeping $$t (changed)"; fi; \
	done
	rmdir $(DESTDIR)$(pkgsysconfdir) $(DESTDIR)$(pkglibexecdir) 2>/dev/null || true
.PHONY: uninstall-data

install: install-data
uninstall: uninstall-data
