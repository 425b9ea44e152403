package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/testutil"
)

// TestCampaignKexecInGuest runs a real campaign inside a QEMU guest (TCG):
// the guest's /init (a static sectax) starts a campaign on and off, really
// kexecs into its own kernel for each step — mitigations=off for off —,
// resumes from /init after every kexec with the database it carried over
// in the initrd it built, verifies each boot, measures it at a tiny size,
// and finishes. The host imports the runs and checks what was verified.
// It skips where QEMU, a kernel or the go command is missing, except under
// CI=true.
func TestCampaignKexecInGuest(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a QEMU guest three times")
	}
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		testutil.Need(t, "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		testutil.Need(t, "no go command to build the guest's sectax")
	}
	imgs, _ := filepath.Glob("/boot/vmlinuz-*")
	var kernel lab.KernelImage
	for _, p := range imgs {
		if k, err := lab.ReadKernel(p); err == nil && k.Release != "" {
			kernel = k
		}
	}
	if kernel.Path == "" {
		testutil.Need(t, "no readable /boot/vmlinuz-* (apt-get install linux-image-amd64)")
	}
	kdata, err := os.ReadFile(kernel.Path)
	if err != nil {
		testutil.Need(t, "cannot read %s: %v", kernel.Path, err)
	}

	exe := filepath.Join(t.TempDir(), "sectax")
	build := exec.Command(goCmd, "build", "-o", exe, "./cmd/sectax")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the guest's sectax: %v\n%s", err, out)
	}

	in := campaign.TaskInput{Configs: []string{"on", "off"}, Boots: 1, Seed: 1, Label: "e2e",
		Suite: "quick", Only: []string{"syscall-basic"}, Params: []string{"syscall-basic.loops=2000"}, Runs: 2, Warmup: 0,
		Kernel: "/lab/vmlinuz"}
	// The plan with this seed runs on first, then off.
	steps, _ := campaign.Plan(mustConfigs(t, in.Configs), 1, in.Seed)
	if steps[0].Config != "on" {
		t.Fatalf("seed %d plans %v; pick a seed that runs on first", in.Seed, steps)
	}
	input, _ := json.Marshal(in)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	res, err := lab.Boot(ctx, lab.BootOptions{
		QEMU: lab.QEMU{Accel: lab.AccelTCG, CPU: lab.TCGCPU, MemoryMiB: 1024, SMP: 1, Kernel: kernel.Path, Append: lab.LabParams},
		Initramfs: &lab.InitramfsOptions{Init: exe, Task: lab.Task{Name: campaign.Task, Input: input},
			Files: []lab.File{{Name: "lab/vmlinuz", Mode: 0o644, Data: kdata}}},
		Handshake: 3 * time.Minute, Timeout: 14 * time.Minute,
	})
	if err != nil {
		logs := ""
		if res != nil {
			logs = strings.Join(res.Logs, "\n") + "\n--- console ---\n" + res.Console
		}
		t.Fatalf("guest: %v\n%s", err, logs)
	}
	t.Logf("guest log:\n%s", strings.Join(res.Logs, "\n"))
	var out campaign.TaskResult
	if err := json.Unmarshal(res.Result, &out); err != nil {
		t.Fatalf("result: %v: %s", err, res.Result)
	}
	if out.State != campaign.Finished {
		t.Fatalf("campaign %s: %s", out.State, out.Message)
	}
	for _, want := range []string{"kexec into on", "kexec into off", "resuming campaign"} {
		if !slices.ContainsFunc(res.Logs, func(l string) bool { return strings.Contains(l, want) }) {
			t.Fatalf("guest log lacks %q: %q", want, res.Logs)
		}
	}

	// The host imports the campaign's runs.
	docs, err := store.Decode("guest", out.Runs)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "host.db"), store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	byLabel := map[string]string{}
	for _, d := range docs {
		byLabel[d.Run.Label] = d.Run.ID
	}
	on, err := db.Get(context.Background(), byLabel["e2e-on"])
	if err != nil {
		t.Fatal(err)
	}
	off, err := db.Get(context.Background(), byLabel["e2e-off"])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		name string
		off  bool
	}{{"on", false}, {"off", true}} {
		got := on
		if r.off {
			got = off
		}
		v := got.Config.Verification
		if !v.OK || got.Config.Name != r.name || got.Campaign == nil || v.BootID != got.Env.BootID ||
			strings.Contains(" "+v.Cmdline+" ", " mitigations=off ") != r.off {
			t.Fatalf("%s run: config %+v campaign %+v env boot %s", r.name, got.Config, got.Campaign, got.Env.BootID)
		}
		if len(got.Results) != 1 || len(got.Results[0].Metrics[0].Samples) != 2 {
			t.Fatalf("%s run results: %+v", r.name, got.Results)
		}
	}
	if on.Env.BootID == off.Env.BootID {
		t.Fatal("both runs measured the same boot")
	}
	// The vulnerability files changed with the command line: spectre_v2
	// is mitigated by default under this CPU model and vulnerable with
	// mitigations=off, as the verification expected.
	state := func(vs []mitigation.Vulnerability, name string) mitigation.State {
		for _, v := range vs {
			if v.Name == name {
				return v.State
			}
		}
		return ""
	}
	if s := state(on.Env.Vulnerabilities, "spectre_v2"); s != mitigation.Mitigated {
		t.Fatalf("on: spectre_v2 %s", s)
	}
	if s := state(off.Env.Vulnerabilities, "spectre_v2"); s != mitigation.Vulnerable {
		t.Fatalf("off: spectre_v2 %s", s)
	}
	if !slices.Contains(off.Config.Verification.ExpectedOff, "spectre_v2") {
		t.Fatalf("off verification expected off: %v", off.Config.Verification.ExpectedOff)
	}
}

func mustConfigs(t *testing.T, specs []string) []config.Config {
	t.Helper()
	cs, err := config.ParseAll(specs)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
