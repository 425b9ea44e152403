package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/vm"
)

// Task is the guest task that runs a whole campaign inside a lab guest
// with real kexec reboots: the first boot starts it, every boot after a
// kexec resumes it from the database the previous boot carried over in
// the initrd it built, and the last boot returns the campaign's runs.
const Task = "campaign"

// TaskInput is the input of Task.
type TaskInput struct {
	// Configs are --config values; Boots, Seed and Label as for start.
	Configs []string `json:"configs"`
	Boots   int      `json:"boots"`
	Seed    int64    `json:"seed"`
	Label   string   `json:"label"`
	// Request sizes the measurement (its seed, which would share the
	// key of the boot order's, is not taken: each run draws its own).
	plan.Request
	// Kernel is the image inside the initramfs that kexec loads.
	Kernel string `json:"kernel"`
}

// TaskResult is what the last boot returns.
type TaskResult struct {
	State   string            `json:"state"`
	Message string            `json:"message"`
	Steps   []json.RawMessage `json:"steps"`
	// Runs are the campaign's runs as sectax export writes them
	// (sectax import reads them).
	Runs []byte `json:"runs"`
}

// Paths of the campaign in the guest.
const (
	GuestDB     = "/campaign/sectax.db"
	guestInitrd = "/tmp/sectax-next-initrd.cpio"
)

// RegisterTask registers Task for the guest's /init; its runs are
// measured as on a host (runs), out is told what happens.
func RegisterTask(out measure.Printer, runs Runs) {
	vm.RegisterTask(Task, func(ctx context.Context, guest *vm.Guest) ([]byte, error) {
		return guestCampaign(ctx, guest, out, runs)
	})
}

func guestCampaign(ctx context.Context, guest *vm.Guest, out measure.Printer, runs Runs) ([]byte, error) {
	var in TaskInput
	if err := json.Unmarshal(guest.Task.Input, &in); err != nil {
		return nil, fmt.Errorf("campaign task input: %w", err)
	}
	if err := os.MkdirAll(path.Dir(GuestDB), 0o755); err != nil {
		return nil, err
	}
	ref, err := store.ParseRef(GuestDB)
	if err != nil {
		return nil, err
	}
	db, err := ref.Open(ctx, store.Options{Create: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	e, err := NewEngine(Setup{DB: db, Root: "/", Out: out, Now: time.Now,
		Runs: runs,
		Deps: Deps{Exe: "/init", Settle: &Settler{Max: 30 * time.Second},
			Mechanism: &Kexec{Kernel: in.Kernel, Initrd: guestInitrd,
				Prepare: func(ctx context.Context, req BootRequest) error {
					guest.Logf("%s: kexec into %s: %q", req.StepOf(), req.Config.Name, req.Cmdline)
					return writeGuestInitrd(guest.Task, in.Kernel)
				}}}})
	if err != nil {
		return nil, err
	}
	rec, err := db.FindCampaign(ctx, "")
	if errors.Is(err, store.ErrNoCampaign) {
		configs, err := bootconfig.ParseAll(in.Configs)
		if err != nil {
			return nil, err
		}
		guest.Logf("starting a campaign of %d configurations × %d boots", len(configs), in.Boots)
		_, err = e.Start(ctx, StartRequest{Configs: configs, Boots: in.Boots, Seed: in.Seed, Label: in.Label, Via: "kexec",
			Options: Options{Request: plan.Request{Suite: in.Suite, Only: in.Only, Params: in.Params, Repetitions: in.Repetitions, Warmup: in.Warmup,
				Precision: in.Precision, MaxTime: in.MaxTime, DetectWarmup: in.DetectWarmup},
				Kernel: in.Kernel, Initrd: guestInitrd, Exe: "/init", DB: GuestDB}})
		if err != nil {
			return nil, err
		}
		return nil, errors.New("the kexec into the first step returned")
	}
	if err != nil {
		return nil, err
	}
	if rec.State == Running {
		guest.Logf("resuming campaign %s at step %d of %d", rec.ID, rec.Next+1, len(rec.Steps))
		if rec, err = e.Resume(ctx); err != nil {
			return nil, err
		}
		if rec.State == Running {
			return nil, fmt.Errorf("campaign %s still running after resume: %s", rec.ID, rec.Message)
		}
	}
	return guestResult(ctx, db, rec.ID)
}

// writeGuestInitrd builds the next boot's initramfs from this one: the same
// /init, task and modules, the kernel image, and the campaign's database.
func writeGuestInitrd(task vm.Task, kernel string) error {
	var mods []vm.Module
	list, _ := os.ReadFile("/" + vm.ModulesList)
	for _, p := range strings.Fields(string(list)) {
		mods = append(mods, vm.Module{Name: vm.ModuleName(p), Path: strings.TrimPrefix(p, "/")})
	}
	var files []vm.File
	// The campaign's plans go along: the next boot resumes from them.
	plans, _ := os.ReadDir("/" + PlanDir)
	for _, e := range plans {
		if e.Type().IsRegular() {
			p := "/" + PlanDir + "/" + e.Name()
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, vm.File{Name: strings.TrimPrefix(p, "/"), Mode: 0o600, Data: data})
		}
	}
	for _, p := range []string{kernel, GuestDB, GuestDB + "-wal"} {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) && p != kernel {
			continue
		}
		if err != nil {
			return err
		}
		files = append(files, vm.File{Name: strings.TrimPrefix(p, "/"), Mode: 0o644, Data: data})
	}
	return vm.BuildInitramfsFile(guestInitrd, vm.InitramfsOptions{Init: "/init", ModulesDir: "/", Modules: mods, Task: task, Files: files})
}

func guestResult(ctx context.Context, db *store.DB, id string) ([]byte, error) {
	rec, err := db.Campaign(ctx, id)
	if err != nil {
		return nil, err
	}
	res := TaskResult{State: rec.State, Message: rec.Message}
	var runs []*run.Run
	for _, s := range rec.Steps {
		b, _ := json.Marshal(s)
		res.Steps = append(res.Steps, b)
		if s.RunID == "" {
			continue
		}
		r, err := db.Get(ctx, s.RunID)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	var buf bytes.Buffer
	if err := run.Export(&buf, runs); err != nil {
		return nil, err
	}
	res.Runs = buf.Bytes()
	return json.Marshal(res)
}
