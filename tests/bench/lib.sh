# shellcheck shell=bash
# Sourced by the benchmarks (tests/bench/run, tests/bench/runtime). Needs $work and $B.
# Budgets are ratios of commands measured side by side in one run: wall times by hyperfine
# (medians), instruction counts by valgrind --tool=callgrind.

fail=0
say() { printf '%s\n' "$*"; }
budget() { # name ok(0/1) text
	if [ "$2" -eq 1 ]; then say "  [ok]   $1: $3"; else say "  [FAIL] $1: $3"; fail=1; fi
}
median_ms() { jq -r '.results[0].median * 1000' "$1"; }
instr() { # command... -> instructions of the whole process
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null 2>"$work/cg.err" || {
		cat "$work/cg.err" >&2; return 1; }
	sed -nE 's/^summary: ([0-9]+).*/\1/p' "$work/cg.out" | head -1
}
fcmp() { awk "BEGIN { exit !($1) }"; }
# The median of numbers, one a line on stdin.
med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ref_inject: the CNCF Go reference injector (tests/reference/inject.go), built once into $B.
ref_inject() {
	local ref="$B/reference/cdi-ref-inject"
	if [ ! -x "$ref" ]; then
		mkdir -p "$B/reference" "$work/gocache"
		GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$work/gocache \
			go build -o "$ref" tests/reference/inject.go >&2 || return 1
	fi
	echo "$ref"
}

# side_by_side NAME ROUNDS RUNS [HYPERFINE_OPTION...] -- COMMAND...: the commands measured in
# interleaved rounds (this VM's timing drifts by tens of percent within seconds); each round's
# medians (seconds, one column per command) go to a line of $work/NAME.medians.
side_by_side() {
	local name=$1 rounds=$2 runs=$3 r
	local -a opts=()
	shift 3
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	: >"$work/$name.medians"
	for r in $(seq "$rounds"); do
		hyperfine -N --warmup 3 --runs "$runs" "${opts[@]}" --export-json "$work/$name.json" "$@" \
			>/dev/null || return 1
		jq -r '[.results[].median | tostring] | join(" ")' "$work/$name.json" >>"$work/$name.medians"
	done
}
# col_ms NAME K: the median over rounds of command K's median, in ms (K from 1).
col_ms() { awk -v k="$2" '{ print $k * 1000 }' "$work/$1.medians" | med; }
# ratio NAME I J: the median over rounds of command I's median over command J's.
ratio() { awk -v i="$2" -v j="$3" '{ print $i / $j }' "$work/$1.medians" | med; }
