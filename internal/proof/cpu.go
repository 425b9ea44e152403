package proof

import (
	"runtime"
	"slices"
	"strconv"

	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/vm"
)

func numCPU() int { return runtime.NumCPU() }

// NearestCPU is the QEMU x86 model nearest cpu among models (those the
// installed QEMU offers; nil: any): by vendor, family and model, the
// newest model QEMU has of the same generation or the one before it.
// vm.TCGCPU when nothing fits.
func NearestCPU(cpu sysinfo.CPU, models []string) string {
	fam, _ := strconv.Atoi(cpu.Family)
	mod, _ := strconv.Atoi(cpu.Model)
	step, _ := strconv.Atoi(cpu.Stepping)
	var prefs []string
	switch cpu.Vendor {
	case "AuthenticAMD":
		switch {
		case fam >= 0x19:
			prefs = []string{"EPYC-Genoa", "EPYC-Milan", "EPYC-Rome", "EPYC"}
		case fam == 0x17 && mod >= 0x30:
			prefs = []string{"EPYC-Rome", "EPYC"}
		case fam == 0x17:
			prefs = []string{"EPYC"}
		default:
			prefs = []string{"Opteron_G5", "EPYC"}
		}
	case "HygonGenuine":
		prefs = []string{"Dhyana", "EPYC"}
	case "GenuineIntel":
		switch {
		case fam != 6:
			prefs = []string{vm.TCGCPU}
		case mod == 0x8f || mod == 0xcf:
			prefs = []string{"SapphireRapids", "Icelake-Server"}
		case mod == 0x6a || mod == 0x6c:
			prefs = []string{"Icelake-Server"}
		case mod == 0x55 && step >= 10:
			prefs = []string{"Cooperlake", "Cascadelake-Server"}
		case mod == 0x55 && step >= 5:
			prefs = []string{"Cascadelake-Server"}
		case mod == 0x55:
			prefs = []string{"Skylake-Server"}
		case mod == 0x7e || mod == 0x7d || mod == 0x8c || mod == 0x8d || mod == 0x97 || mod == 0x9a || mod == 0xb7 || mod == 0xba:
			prefs = []string{"Icelake-Server", "Skylake-Client"}
		case mod == 0x4e || mod == 0x5e || mod == 0x8e || mod == 0x9e || mod == 0xa5 || mod == 0xa6:
			prefs = []string{"Skylake-Client"}
		case mod == 0x3d || mod == 0x47 || mod == 0x4f || mod == 0x56:
			prefs = []string{"Broadwell"}
		case mod == 0x3c || mod == 0x3f || mod == 0x45 || mod == 0x46:
			prefs = []string{"Haswell"}
		case mod == 0x3a || mod == 0x3e:
			prefs = []string{"IvyBridge"}
		case mod == 0x2a || mod == 0x2d:
			prefs = []string{"SandyBridge"}
		case mod == 0x5f || mod == 0x86:
			prefs = []string{"Snowridge", "Denverton"}
		}
	}
	for _, p := range prefs {
		if models == nil || slices.Contains(models, p) {
			return p
		}
	}
	return vm.TCGCPU
}
