package lab

import (
	"fmt"
	"github.com/sectax/sectax/internal/vm"
	"slices"
	"testing"

	"github.com/sectax/sectax/internal/bootconfig"
)

func TestSchedule(t *testing.T) {
	nopti := bootconfig.Config{Name: "nopti"}
	configs := []bootconfig.Config{bootconfig.On, bootconfig.Off, nopti}
	kernels := []string{"wsl2", "wsl3"}
	for seed := int64(1); seed <= 20; seed++ {
		plan := Schedule("study", kernels, configs, 3, seed)
		if len(plan) != 2*3*3 {
			t.Fatalf("seed %d: %d steps, want 18", seed, len(plan))
		}
		for i, st := range plan {
			if st.Index != i+1 {
				t.Fatalf("seed %d: step %d has index %d", seed, i, st.Index)
			}
			if want := fmt.Sprintf("study-%s-%s", kernels[st.Kernel], st.Config.Name); st.Label != want {
				t.Fatalf("label %q, want %q", st.Label, want)
			}
			// Interleaved: round r holds steps 6(r-1)+1 … 6r, each
			// kernel and configuration once.
			if want := i/6 + 1; st.Round != want {
				t.Fatalf("seed %d: step %d in round %d, want %d", seed, i+1, st.Round, want)
			}
			if i > 0 && plan[i-1].Label == st.Label {
				t.Fatalf("seed %d: %s boots twice in a row at step %d", seed, st.Label, i+1)
			}
		}
		for r := 0; r < 3; r++ {
			var labels []string
			for _, st := range plan[r*6 : r*6+6] {
				labels = append(labels, st.Label)
			}
			slices.Sort(labels)
			if got := slices.Compact(slices.Clone(labels)); len(got) != 6 {
				t.Fatalf("seed %d round %d: labels %v are not each kernel × configuration once", seed, r+1, labels)
			}
		}
		if again := Schedule("study", kernels, configs, 3, seed); !slices.EqualFunc(plan, again, func(a, b Step) bool { return a.Label == b.Label }) {
			t.Fatalf("seed %d: the order is not reproducible", seed)
		}
	}
	a, b := order(Schedule("lab", kernels, configs, 2, 1)), order(Schedule("lab", kernels, configs, 2, 2))
	if slices.Equal(a, b) {
		t.Errorf("seeds 1 and 2 give the same order %v: not shuffled", a)
	}
}

func order(p []Step) []string {
	var out []string
	for _, s := range p {
		out = append(out, s.Label)
	}
	return out
}

func TestKernelNames(t *testing.T) {
	got := vm.KernelNames([]vm.KernelImage{
		{Path: "/boot/vmlinuz-6.1.0-57-amd64", Release: "6.1.0-57-amd64"},
		{Path: "/mnt/c/wsl/bzImage"},
		{Path: "/other/bzImage"},
		{Path: "/x/vmlinuz-my kernel+1"},
	})
	want := []string{"6.1.0-57-amd64", "k2-bzImage", "k3-bzImage", "my_kernel_1"}
	if !slices.Equal(got, want) {
		t.Errorf("KernelNames = %v, want %v", got, want)
	}
}
