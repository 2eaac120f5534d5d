// float32-format: the vectors of tests/reference/float32-go.txt, Go's own
// strconv.FormatFloat(float64(f), 'g', -1, 32), which the reference's YAML-to-JSON step
// (sigs.k8s.io/yaml) uses for a number where a string belongs and for a float mapping key.
// tests/unit/test-schema-number-text.c checks format_float32_go() against every line.
//
// Regenerate (the seed is fixed, so the file only changes if Go's formatting does):
//
//	GO111MODULE=off go run tests/reference/float32-format.go >tests/reference/float32-go.txt
package main

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
)

// Random bit patterns (every exponent), random decimals as people write them, and edge cases.
func main() {
	r := rand.New(rand.NewSource(20240601))
	var vals []float32
	for i := 0; i < 600; i++ {
		b := r.Uint32()
		f := math.Float32frombits(b)
		if math.IsNaN(float64(f)) {
			continue
		}
		vals = append(vals, f)
	}
	for i := 0; i < 300; i++ {
		digits := r.Intn(8) + 1
		m := r.Int63n(int64(math.Pow10(digits)))
		e := r.Intn(20) - 10
		f, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e), 32)
		vals = append(vals, float32(f))
	}
	vals = append(vals, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-4, 1e-5, 999999, 1e6, 123456.7, 0.3, 1, 100)
	fmt.Println("# float32 bits (hex), then Go's strconv.FormatFloat(float64(f), 'g', -1, 32); made by tests/reference/float32-format.go")
	for _, f := range vals {
		fmt.Printf("%08x %s\n", math.Float32bits(f), strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
}
