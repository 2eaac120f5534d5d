#!/usr/bin/env bash
# cdi-runtime reads config.json as runc does (Go's json.Decoder.Decode into the runtime-spec
# structs, tests/reference/runc-decode.go as the oracle), on configs runc accepts that a strict
# JSON reader refuses or reads otherwise: data after the object, a second object, bytes that are
# not UTF-8, lone surrogate escapes, repeated keys (objects merge), NUL escapes. For each:
#   - asking for no device, the config reaches the runtime byte for byte;
#   - asking for a device (a cdi.k8s.io annotation of a test spec that adds one variable), the
#     edited config reads to the oracle as the original plus that variable: runc's reading
#     of the original is kept.
# And configs runc refuses (truncated, empty, a BOM, a bad escape) reach the runtime as they
# are, for it to say what is wrong. The runtime here is /bin/true: what runc does with the
# configs is tests/e2e/runtime-requests.sh's part. Needs go and the Debian runtime-spec
# package (else 77).
. "$(dirname "$0")/lib/suite.sh"

SPECS_PKG=/usr/share/gocode/src/github.com/opencontainers/runtime-spec/specs-go
command -v go >/dev/null 2>&1 || skip "go not installed (apt-get install golang-go)"
command -v jq >/dev/null 2>&1 || skip "jq not installed"
[ -d "$SPECS_PKG" ] || skip "runtime-spec Go package not installed (apt-get install golang-github-opencontainers-specs-dev)"
[ -x "$B/cdi-runtime" ] || die "$B/cdi-runtime not built"

mkdir -p "$B/reference"
ORACLE=$B/reference/runc-decode
GO111MODULE=off GOFLAGS= GOPATH=/usr/share/gocode GOCACHE=$B/reference/gocache \
	go build -o "$ORACLE" tests/reference/runc-decode.go || die "cannot build the Go oracle"

tmp=$(mktemp -d /tmp/cdikit-go-decoder.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cdi"
cat >"$tmp/cdi/test.yaml" <<'EOF'
cdiVersion: 0.5.0
kind: example.com/test
devices:
- name: x
  containerEdits:
    env: [CDIKIT_TEST=1]
EOF
printf 'spec-dirs = %s\n' "$tmp/cdi" >"$tmp/runtime.conf"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# runtime NAME: cdi-runtime create on bundle $tmp/NAME (config.json there), /bin/true as runc.
runtime() {
	CDIKIT_CONFIG=$tmp/runtime.conf "$B/cdi-runtime" --cdi-runtime /bin/true \
		create --bundle "$tmp/$1" "id-$1" >"$tmp/$1.out" 2>"$tmp/$1.err"
}
# oracle FILE: what runc reads (the JSON of an OK line), or "ERR <message>".
oracle() {
	"$ORACLE" "$1" | awk -F '\t' '{ if ($2 == "OK") print $3; else print "ERR " $3 }' |
		{ read -r line; case $line in ERR*) echo "$line" ;; *) jq -cS . <<<"$line" ;; esac; }
}

ANN='"annotations":{"cdi.k8s.io/t":"example.com/test=x"},'
# case NAME PRINTF-FORMAT: the config text, where %s is where the annotation goes (or nothing).
case_() {
	local name=$1 fmt=$2 want got
	for asks in no yes; do
		mkdir -p "$tmp/$name-$asks/rootfs"
		# shellcheck disable=SC2059
		printf "$fmt" "$([ $asks = yes ] && printf '%s' "$ANN")" >"$tmp/$name-$asks/config.json"
		cp "$tmp/$name-$asks/config.json" "$tmp/$name-$asks.orig"
		runtime "$name-$asks" || { bad "$name ($asks device): cdi-runtime failed: $(cat "$tmp/$name-$asks.err")"; continue; }
		if [ $asks = no ]; then
			cmp -s "$tmp/$name-$asks/config.json" "$tmp/$name-$asks.orig" ||
				bad "$name: a config asking for nothing was rewritten"
			continue
		fi
		want=$(oracle "$tmp/$name-$asks.orig")
		case $want in ERR*) bad "$name: runc refuses the original: $want"; continue ;; esac
		want=$(jq -cS '.process.env += ["CDIKIT_TEST=1"]' <<<"$want")
		got=$(oracle "$tmp/$name-$asks/config.json")
		[ "$got" = "$want" ] || bad "$name: runc reads the edited config otherwise:
    want $want
    got  $got"
	done
}

P='"process":{"args":["sh"],"env":["A=%s"]}'
case_ trailing-garbage '{%s"ociVersion":"1.0.2","process":{"args":["sh"]},"root":{"path":"rootfs"}} garbage \377 {'
case_ second-object '{%s"ociVersion":"1.0.2","process":{"args":["sh"]}}{"process":{"args":["other"]}}'
case_ trailing-newlines '{%s"ociVersion":"1.0.2","process":{"args":["sh"]}}\n\n]'
case_ utf8-truncated '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\342\202x"]}}'
case_ utf8-surrogate '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\355\240\200"]}}'
case_ utf8-overlong '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\300\257/\340\200\257"]}}'
case_ utf8-too-big '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\364\220\200\200|\377|\200"]}}'
case_ utf8-in-escaped '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\\n\342\202\\t\303"]}}'
case_ utf8-in-key '{%s"ociVersion":"1.0.2","process":{"args":["sh"]},"annotations2":{"k\377":"v"}}'
case_ utf8-valid '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\303\251\360\237\230\200"]}}'
case_ lone-high '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\\ud800"]}}'
case_ lone-low '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\\udc00x"]}}'
case_ high-then-other '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\\ud800\\u0041"]}}'
case_ high-high-low '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\\ud800\\ud800\\udc00"]}}'
case_ high-then-escape '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\\ud83d\\n"]}}'
case_ pair '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=\\ud83d\\ude00"]}}'
case_ nul-escape '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=a\\u0000b"]}}'
case_ repeated-process '{%s"ociVersion":"1.0.2","process":{"env":["FIRST=1"],"user":{"uid":5}},"process":{"args":["sh"],"user":{"gid":7}}}'
case_ repeated-scalar '{%s"ociVersion":"1.0.2","hostname":"a","process":{"args":["sh"]},"hostname":"b"}'
case_ repeated-list '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=1"],"env":["B=2"]}}'
case_ repeated-annotations '{"annotations":{"a":"1"},%s"ociVersion":"1.0.2","process":{"args":["sh"]},"annotations":{"b":"2"}}'
case_ repeated-null '{%s"ociVersion":"1.0.2","linux":{"sysctl":{"a":"1"}},"process":{"args":["sh"]},"linux":null}'
case_ object-after-null '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"user":null},"process":{"user":{"uid":3}}}'
case_ null-after-struct '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"user":{"uid":3}},"process":{"user":null,"env":null}}'
case_ null-after-scalar '{%s"ociVersion":"1.0.2","hostname":"a","process":{"args":["sh"],"cwd":"/x","cwd":null},"hostname":null}'
case_ null-after-list '{%s"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=1"]},"process":{"env":null}}'
case_ null-after-map '{%s"ociVersion":"1.0.2","process":{"args":["sh"]},"linux":{"sysctl":{"a":"1"}},"linux":{"sysctl":null}}'
[ "$fails" -eq 0 ] && ok "cases runc accepts: untouched without a device, runc's reading kept with one"

# The annotation in the first of two annotation objects still asks (the objects merge).
mkdir -p "$tmp/merged/rootfs"
printf '{%s"ociVersion":"1.0.2","process":{"args":["sh"]},"annotations":{"b":"2"}}' "$ANN" >"$tmp/merged/config.json"
runtime merged || bad "merged annotations: $(cat "$tmp/merged.err")"
grep -q CDIKIT_TEST "$tmp/merged/config.json" || bad "merged annotations: the request in the first object was lost"

# Configs runc refuses: passed on as they are (runc says why; here /bin/true succeeds).
n=0
for text in '' '{' '{"process":' '{"process":{"env":["A=\\x"]}}' '\357\273\277{}' '[]' 'null' \
	'{"annotations":{"cdi.k8s.io/t":"example.com/test=x"},"process":{"env":["\001"]}}'; do
	n=$((n + 1))
	mkdir -p "$tmp/refused-$n"
	# shellcheck disable=SC2059
	printf "$text" >"$tmp/refused-$n/config.json"
	cp "$tmp/refused-$n/config.json" "$tmp/refused-$n.orig"
	runtime "refused-$n" || bad "refused-$n ($text): cdi-runtime failed instead of passing it on: $(cat "$tmp/refused-$n.err")"
	cmp -s "$tmp/refused-$n/config.json" "$tmp/refused-$n.orig" || bad "refused-$n ($text): rewritten"
	[ -s "$tmp/refused-$n.err" ] && bad "refused-$n ($text): cdi-runtime said something: $(cat "$tmp/refused-$n.err")"
done
[ "$fails" -eq 0 ] && ok "configs runc refuses reach the runtime untouched"

# cdi-apply keeps the strict reading: it is a tool for configs we write, not runc's stand-in.
printf '{"process":{"args":["sh"]}} x' >"$tmp/strict.json"
"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$tmp/strict.json" --output - example.com/test=x >/dev/null 2>"$tmp/strict.err" &&
	bad "cdi-apply accepted data after the object"
grep -q 'end of file expected' "$tmp/strict.err" || bad "cdi-apply: $(cat "$tmp/strict.err")"

[ "$fails" -eq 0 ] || die "$fails failures"
ok "runtime-go-decoder"
