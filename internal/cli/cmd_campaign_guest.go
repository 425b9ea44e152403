package cli

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

	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/workload"
)

// CampaignTask is the guest task that runs a whole campaign inside a lab
// guest with real kexec reboots: the first boot starts it, every boot after
// a kexec resumes it from the database the previous boot carried over in
// the initrd it built, and the last boot returns the campaign's runs.
const CampaignTask = "campaign"

func init() { lab.RegisterTask(CampaignTask, guestCampaign) }

// CampaignTaskInput is the input of CampaignTask.
type CampaignTaskInput struct {
	// Configs are --config values; Boots, Seed and Label as for start.
	Configs []string `json:"configs"`
	Boots   int      `json:"boots"`
	Seed    int64    `json:"seed"`
	Label   string   `json:"label"`
	// Suite, Only, Params, Runs and Warmup size the measurement.
	Suite  string   `json:"suite"`
	Only   []string `json:"only,omitempty"`
	Params []string `json:"params,omitempty"`
	Runs   int      `json:"runs,omitempty"`
	Warmup int      `json:"warmup"`
	// Kernel is the image inside the initramfs that kexec loads.
	Kernel string `json:"kernel"`
}

// CampaignTaskResult is what the last boot returns.
type CampaignTaskResult struct {
	State   string            `json:"state"`
	Message string            `json:"message"`
	Steps   []json.RawMessage `json:"steps"`
	// Runs are the campaign's runs as sectax export writes them
	// (sectax import reads them).
	Runs []byte `json:"runs"`
}

// Paths of the campaign in the guest.
const (
	guestDB     = "/campaign/sectax.db"
	guestInitrd = "/tmp/sectax-next-initrd.cpio"
)

func guestCampaign(ctx context.Context, guest *lab.Guest) ([]byte, error) {
	var in CampaignTaskInput
	if err := json.Unmarshal(guest.Task.Input, &in); err != nil {
		return nil, fmt.Errorf("campaign task input: %w", err)
	}
	if err := os.MkdirAll(path.Dir(guestDB), 0o755); err != nil {
		return nil, err
	}
	g := &Globals{Root: "/", DB: guestDB, Format: "text", stdout: os.Stdout, stderr: os.Stderr, deps: Deps{
		Registry: workload.Default(), Exe: "/proc/self/exe", WorkerArgs: []string{workload.WorkerCommand},
		Now: time.Now, NewRunID: newRunID,
		Campaign: campaignDeps{Exe: "/init", Settle: &campaign.Settler{Max: 30 * time.Second},
			Mechanism: &campaign.Kexec{Kernel: in.Kernel, Initrd: guestInitrd,
				Prepare: func(ctx context.Context, req campaign.BootRequest) error {
					guest.Logf("step %d of %d: kexec into %s: %q", req.Step, req.Steps, req.Config.Name, req.Cmdline)
					return writeGuestInitrd(guest.Task, in.Kernel)
				}}},
	}}
	db, err := store.Open(ctx, guestDB, store.Options{Create: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	e, err := campaignEngine(g, db)
	if err != nil {
		return nil, err
	}
	rec, err := db.FindCampaign(ctx, "")
	if errors.Is(err, store.ErrNoCampaign) {
		configs, err := config.ParseAll(in.Configs)
		if err != nil {
			return nil, err
		}
		guest.Logf("starting a campaign of %d configurations × %d boots", len(configs), in.Boots)
		_, err = e.Start(ctx, campaign.StartRequest{Configs: configs, Boots: in.Boots, Seed: in.Seed, Label: in.Label, Via: "kexec",
			Options: campaign.Options{Suite: in.Suite, Only: in.Only, Params: in.Params, Runs: in.Runs, Warmup: in.Warmup,
				Kernel: in.Kernel, Initrd: guestInitrd, Exe: "/init", DB: guestDB}})
		if err != nil {
			return nil, err
		}
		return nil, errors.New("the kexec into the first step returned")
	}
	if err != nil {
		return nil, err
	}
	if rec.State == campaign.Running {
		guest.Logf("resuming campaign %s at step %d of %d", rec.ID, rec.Next+1, len(rec.Steps))
		if rec, err = e.Resume(ctx); err != nil {
			return nil, err
		}
		if rec.State == campaign.Running {
			return nil, fmt.Errorf("campaign %s still running after resume: %s", rec.ID, rec.Message)
		}
	}
	return guestCampaignResult(ctx, db, rec.ID)
}

// writeGuestInitrd builds the next boot's initramfs from this one: the same
// /init, task and modules, the kernel image, and the campaign's database.
func writeGuestInitrd(task lab.Task, kernel string) error {
	var mods []lab.Module
	list, _ := os.ReadFile("/" + lab.ModulesList)
	for _, p := range strings.Fields(string(list)) {
		mods = append(mods, lab.Module{Name: lab.ModuleName(p), Path: strings.TrimPrefix(p, "/")})
	}
	var files []lab.File
	for _, p := range []string{kernel, guestDB, guestDB + "-wal"} {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) && p != kernel {
			continue
		}
		if err != nil {
			return err
		}
		files = append(files, lab.File{Name: strings.TrimPrefix(p, "/"), Mode: 0o644, Data: data})
	}
	return lab.BuildInitramfsFile(guestInitrd, lab.InitramfsOptions{Init: "/init", ModulesDir: "/", Modules: mods, Task: task, Files: files})
}

func guestCampaignResult(ctx context.Context, db *store.DB, id string) ([]byte, error) {
	rec, err := db.Campaign(ctx, id)
	if err != nil {
		return nil, err
	}
	res := CampaignTaskResult{State: rec.State, Message: rec.Message}
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
	if err := store.Export(&buf, runs); err != nil {
		return nil, err
	}
	res.Runs = buf.Bytes()
	return json.Marshal(res)
}
