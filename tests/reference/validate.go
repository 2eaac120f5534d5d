// cdi-ref-validate: the differential oracle for spec validation.
//
// It loads every spec file named on the command line with the CNCF reference library packaged
// by Debian (golang-github-container-orchestrated-devices-container-device-interface-dev,
// v0.5.2) exactly as its cache does for each file it scans: cdi.ReadSpec(path, priority), which
// parses strictly (sigs.k8s.io/yaml UnmarshalStrict) and then validates (version, kind, edits,
// device names, duplicates). No external schema validator is set, as in the cache used by
// podman and containerd. It prints one line per file:
//
//	<file>\tOK
//	<file>\tERR\t<message>
//
// and exits 0 (the verdicts are the output; tests/reference-validate.sh compares them).
//
// Build offline in GOPATH mode:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$B/reference/gocache \
//		go build -o $B/reference/cdi-ref-validate tests/reference/validate.go
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/container-orchestrated-devices/container-device-interface/pkg/cdi"
)

// readSpec loads one file as the cache does. v0.5.2 panics on some inputs: its name checks slice
// name[1:len-1], which is out of range for a one-character vendor or class (kind "a/b"), so
// such a file crashes the process that scans the directory. The current reference accepts those
// names; a panic is reported as a rejection and the corpus lists the file as a known
// difference.
func readSpec(path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reference panicked: %v", r)
		}
	}()
	// The cache gives each file the priority of its directory; the priority plays no part
	// in validation, so 0 will do.
	_, err = cdi.ReadSpec(path, 0)
	return err
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintf(os.Stderr, "usage: %s SPEC-FILE...\n", os.Args[0])
		os.Exit(2)
	}
	for _, path := range os.Args[1:] {
		err := readSpec(path)
		if err != nil {
			// One line per file: errors wrapped by the library may span lines.
			msg := strings.Join(strings.Fields(err.Error()), " ")
			fmt.Printf("%s\tERR\t%s\n", path, msg)
			continue
		}
		fmt.Printf("%s\tOK\n", path)
	}
}
