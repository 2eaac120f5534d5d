// runc-decode: how runc reads a config.json, as an oracle for cdi-runtime's reader.
//
// runc 1.1.5 loads the config with one json.NewDecoder(f).Decode(&spec) into the runtime-spec
// structs (spec.go loadSpec): the first JSON value only, invalid UTF-8 and lone surrogates
// turned into U+FFFD, keys matched to fields case-insensitively, a repeated object merged into
// the struct the first one made, unknown fields dropped. This program does the same with the
// runtime-spec package Debian packages (golang-github-opencontainers-specs-dev) and prints
// what it read, re-encoded, one line per file:
//
//	<file>\tOK\t<the spec as json.Marshal writes it>
//	<file>\tERR\t<the decoder's message>
//
// Two files read the same to runc when their OK lines carry the same JSON. Exit status 0 (the
// verdicts are the output).
//
// Build offline in GOPATH mode:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$B/reference/gocache \
//		go build -o $B/reference/runc-decode tests/reference/runc-decode.go
package main

import (
	"encoding/json"
	"fmt"
	"os"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

func decode(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var spec *specs.Spec
	if err := json.NewDecoder(f).Decode(&spec); err != nil {
		return "", err
	}
	out, err := json.Marshal(spec)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

func main() {
	for _, path := range os.Args[1:] {
		out, err := decode(path)
		if err != nil {
			fmt.Printf("%s\tERR\t%v\n", path, err)
			continue
		}
		fmt.Printf("%s\tOK\t%s\n", path, out)
	}
}
