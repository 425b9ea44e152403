package campaigne2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/e2e"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/vm"
)

// TestCampaignKexecInGuest runs a real campaign inside a QEMU guest (TCG):
// the guest's /init (this test binary, which is sectax) starts a campaign
// on and off, really kexecs into its own kernel for each step —
// mitigations=off for off —, resumes from /init after every kexec with the
// database it carried over in the initrd it built, verifies each boot,
// measures it at a tiny size, and finishes. The host imports the runs and
// checks what was verified. The task's input and result are its JSON
// contract ("campaign", cli.CampaignTaskInput and cli.CampaignTaskResult).
func TestCampaignKexecInGuest(t *testing.T) {
	k, _ := e2e.Kernel(t)
	kdata, err := os.ReadFile(k.Path)
	if err != nil {
		t.Fatalf("cannot read %s: %v", k.Path, err)
	}
	const seed = 1
	// The plan with this seed runs on first, then off.
	cs, err := bootconfig.ParseAll([]string{"on", "off"})
	if err != nil {
		t.Fatal(err)
	}
	if steps, _ := campaign.Schedule(cs, 1, seed); steps[0].Config != "on" {
		t.Fatalf("seed %d plans %v; pick a seed that runs on first", seed, steps)
	}
	input, _ := json.Marshal(map[string]any{"configs": []string{"on", "off"}, "boots": 1, "seed": seed, "label": "e2e",
		"suite": "quick", "only": []string{"syscall-basic"}, "params": []string{"syscall-basic.loops=2000"}, "runs": 2, "warmup": 0,
		"kernel": "/lab/vmlinuz"})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	var timeline []string
	res, err := vm.Boot(ctx, vm.BootOptions{
		// The guest is the machine the campaign runs on, started at its
		// kernel's PVH entry; the campaign's own kexecs start the bzImage,
		// as on a real machine.
		QEMU: e2e.TCG(t, k, 1024, vm.LabParams),
		Initramfs: &vm.InitramfsOptions{Init: e2e.Self(t), Task: vm.Task{Name: "campaign", Input: input},
			Files: []vm.File{{Name: "lab/vmlinuz", Mode: 0o644, Data: kdata}}},
		Handshake: 3 * time.Minute, Timeout: 14 * time.Minute,
		OnFrame: func(f vm.Frame) {
			what := string(f.Kind)
			if f.Kind == 'L' {
				what += " " + string(f.Payload)
			}
			timeline = append(timeline, fmt.Sprintf("%6.1fs %s", time.Since(start).Seconds(), what))
		},
	})
	t.Logf("guest frames as the host received them:\n%s", strings.Join(timeline, "\n"))
	if err != nil {
		logs := ""
		if res != nil {
			logs = strings.Join(res.Logs, "\n") + "\n--- console ---\n" + res.Console
		}
		t.Fatalf("guest: %v\n%s", err, logs)
	}
	var out struct {
		State   string `json:"state"`
		Message string `json:"message"`
		Runs    []byte `json:"runs"`
	}
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
	docs, err := run.Decode("guest", out.Runs)
	if err != nil {
		t.Fatal(err)
	}
	db, err := storetest.Ref(t, filepath.Join(t.TempDir(), "host.db")).Open(context.Background(), store.Options{Create: true})
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
