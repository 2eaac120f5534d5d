// cdi-schema-check: validate spec files against the CDI JSON schema (schema/schema.json of the
// CNCF reference, as Debian packages it in
// golang-github-container-orchestrated-devices-container-device-interface-dev), with the
// reference's own schema package (gojsonschema; YAML is converted to JSON first).
//
// The schema is loaded from the package's schema.json by path, never through BuiltinSchema(),
// which silently falls back to a schema that accepts everything when loading fails. Before the
// files are checked, a spec without "kind" must be rejected, so a checker that accepts
// everything cannot pass.
//
// Usage: cdi-schema-check SCHEMA.json FILE...   (prints "<file>\tOK" or "<file>\tERR\t<msg>",
// exits 1 if any file fails, 2 when the checker itself cannot work)
//
// Build offline in GOPATH mode:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$B/gocache \
//		go build -o $B/tests/cdi-schema-check tests/reference/schema-check.go
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/container-orchestrated-devices/container-device-interface/schema"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cdi-schema-check SCHEMA.json FILE...")
		os.Exit(2)
	}
	s, err := schema.Load(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "cdi-schema-check: %v\n", err)
		os.Exit(2)
	}
	control := []byte("cdiVersion: 0.5.0\ndevices:\n- name: x\n  containerEdits:\n    env: [A=1]\n")
	if s.ValidateData(control) == nil {
		fmt.Fprintln(os.Stderr, "cdi-schema-check: the schema accepts a spec without kind; not a real schema")
		os.Exit(2)
	}
	failed := false
	for _, path := range os.Args[2:] {
		if err := s.ValidateFile(path); err != nil {
			failed = true
			fmt.Printf("%s\tERR\t%s\n", path, strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		fmt.Printf("%s\tOK\n", path)
	}
	if failed {
		os.Exit(1)
	}
}
