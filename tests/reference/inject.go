// cdi-ref-inject: the differential oracle for device injection.
//
// It builds a cache over the given spec directories with the CNCF reference library packaged
// by Debian (v0.5.2), in manual-refresh mode as podman does, injects the requested devices
// into an OCI config.json with Cache.InjectDevices, and prints the resulting OCI spec as JSON
// on stdout. On failure it prints the error on stderr and exits 1; the spec is not printed.
//
//	cdi-ref-inject [-spec-dir DIR]... [-config FILE] [-v0.5.2-filemode] DEVICE...
//
// The config is decoded into the runtime-spec Go structs, so fields unknown to them are
// dropped; compare only the fields CDI edits.
//
// One documented emulation: since NVIDIA/nvidia-container-toolkit#960 the reference fills a
// device node's fileMode from lstat(hostPath) whenever fileMode is unset and the host path is a
// device node, even for fully specified nodes (pkg/cdi/container-edits_unix.go
// fillMissingInfo). v0.5.2 never fills fileMode. Unless -v0.5.2-filemode is given, the
// injector applies that one rule to the cached nodes before injecting, so the output follows
// the current reference; everything else is v0.5.2 as packaged.
//
// Build offline in GOPATH mode:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$B/reference/gocache \
//		go build -o $B/reference/cdi-ref-inject tests/reference/inject.go
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/container-orchestrated-devices/container-device-interface/pkg/cdi"
	cdispec "github.com/container-orchestrated-devices/container-device-interface/specs-go"
	oci "github.com/opencontainers/runtime-spec/specs-go"
)

type dirList []string

func (d *dirList) String() string     { return strings.Join(*d, ",") }
func (d *dirList) Set(v string) error { *d = append(*d, v); return nil }

// fillFileMode applies the current reference's fileMode rule to one node.
func fillFileMode(n *cdispec.DeviceNode) {
	if n.FileMode != nil {
		return
	}
	path := n.HostPath
	if path == "" {
		path = n.Path
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK, syscall.S_IFCHR, syscall.S_IFIFO:
		mode := os.FileMode(st.Mode &^ syscall.S_IFMT)
		n.FileMode = &mode
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "cdi-ref-inject: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	var dirs dirList
	flag.Var(&dirs, "spec-dir", "CDI spec directory, in priority order (repeatable)")
	config := flag.String("config", "config.json", "OCI config.json to edit ('-' for stdin)")
	oldMode := flag.Bool("v0.5.2-filemode", false, "do not emulate the current fileMode rule")
	flag.Parse()

	var in io.Reader = os.Stdin
	if *config != "-" {
		f, err := os.Open(*config)
		if err != nil {
			fail("%v", err)
		}
		defer f.Close()
		in = f
	}
	var spec oci.Spec
	if err := json.NewDecoder(in).Decode(&spec); err != nil {
		fail("failed to decode %s: %v", *config, err)
	}

	opts := []cdi.Option{cdi.WithAutoRefresh(false)}
	if len(dirs) > 0 {
		opts = append(opts, cdi.WithSpecDirs(dirs...))
	}
	cache, err := cdi.NewCache(opts...)
	if err != nil {
		fail("failed to create cache: %v", err)
	}
	// Spec errors do not stop injection (bad files are skipped); report them for the log.
	errs := cache.GetErrors()
	paths := make([]string, 0, len(errs))
	for p := range errs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, e := range errs[p] {
			fmt.Fprintf(os.Stderr, "cdi-ref-inject: spec error: %s: %v\n", p, e)
		}
	}

	devices := flag.Args()
	if !*oldMode {
		for _, name := range devices {
			dev := cache.GetDevice(name)
			if dev == nil {
				continue
			}
			for _, n := range dev.GetSpec().ContainerEdits.DeviceNodes {
				fillFileMode(n)
			}
			for _, n := range dev.ContainerEdits.DeviceNodes {
				fillFileMode(n)
			}
		}
	}

	if unresolved, err := cache.InjectDevices(&spec, devices...); err != nil {
		if len(unresolved) > 0 {
			fmt.Fprintf(os.Stderr, "cdi-ref-inject: unresolved: %s\n", strings.Join(unresolved, " "))
		}
		fail("%v", err)
	}

	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(&spec); err != nil {
		fail("failed to encode: %v", err)
	}
}
