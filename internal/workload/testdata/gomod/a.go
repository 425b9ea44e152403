// Package tiny is the two-file module that go-build's tests build. It
// imports nothing, so that go build -a compiles only itself.
package tiny

// Sum adds the squares of xs.
func Sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += square(x)
	}
	return s
}
