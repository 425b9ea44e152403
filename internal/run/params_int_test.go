package run

import "testing"

// TestParamInt: a parameter reads the same whether it was measured (int64)
// or came back from JSON (float64).
func TestParamInt(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want int64
	}{{int64(100), 100}, {100, 100}, {float64(1000), 1000}, {"100", 0}, {nil, 0}} {
		if got := ParamInt(tt.v); got != tt.want {
			t.Errorf("ParamInt(%#v) = %d, want %d", tt.v, got, tt.want)
		}
	}
}
