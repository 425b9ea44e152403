package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// steps are the exact commands for the platform. None is run by sectax.
func steps(s *sysinfo.Snapshot, p Platform, t mitigation.Target, a Advice) []Step {
	verify := Step{Where: "linux", Text: "after the restart, check that the kernel took the change", Command: "sectax verify --expect " + verifyArg(t)}
	set := tokens(a.Changes, "add", "replace")
	unset := tokens(a.Changes, "remove")
	newLine := a.ConfiguredAfter
	var out []Step
	switch p.Kind {
	case PlatformWSL:
		if len(a.Changes) == 0 {
			break
		}
		// The target's parameters go through wslconfig set, whose merge is
		// the preview's (mitigation.Merge); auto only removes, through
		// wslconfig unset.
		if set := wslSetArgs(p.Configured, t, a.Changes); len(set) > 0 {
			args := strings.Join(set, " ")
			out = append(out,
				Step{Where: "linux", Text: "preview the edit of .wslconfig (writes nothing)", Command: "sectax wslconfig set " + args + " --dry-run"},
				Step{Where: "linux", Text: "edit .wslconfig (keeps every other byte, writes a timestamped backup)", Command: "sectax wslconfig set " + args})
		}
		if t.Kind == mitigation.KindAuto && len(unset) > 0 {
			args := strings.Join(unsetArgs(p.Configured, a.Changes), " ")
			out = append(out,
				Step{Where: "linux", Text: "preview the removal (writes nothing)", Command: "sectax wslconfig unset " + args + " --dry-run"},
				Step{Where: "linux", Text: "remove the parameters from .wslconfig", Command: "sectax wslconfig unset " + args})
		}
		manual := fmt.Sprintf("or by hand: open %s in a Windows editor and, in the [wsl2] section, make the line read kernelCommandLine=%s", windowsPath(p.ConfigPath), newLine)
		if newLine == "" {
			manual = fmt.Sprintf("or by hand: open %s in a Windows editor and delete the kernelCommandLine line of [wsl2]", windowsPath(p.ConfigPath))
		}
		out = append(out, Step{Where: "manual", Text: manual},
			Step{Where: "windows", Text: "restart the WSL VM from Windows (PowerShell or cmd): this stops every distro; then open the distro again", Command: "wsl --shutdown"})
	case PlatformGRUBDebian, PlatformGRUB:
		line := fmt.Sprintf("GRUB_CMDLINE_LINUX_DEFAULT=%q", newLine)
		where := "add the line"
		if p.ConfigLine > 0 {
			where = fmt.Sprintf("replace line %d with", p.ConfigLine)
		}
		out = append(out,
			Step{Where: "linux", Text: "back up the GRUB defaults", Command: "sudo cp -p /etc/default/grub /etc/default/grub.bak"})
		if cmd := grubSed(p, line); cmd != "" {
			out = append(out, Step{Where: "linux", Text: "set the kernel parameters of the normal boot entries", Command: cmd})
		}
		out = append(out, Step{Where: "manual", Text: fmt.Sprintf("or by hand (sudoedit /etc/default/grub): %s %s", where, line)})
		mk := "sudo grub2-mkconfig -o /boot/grub2/grub.cfg"
		if p.Kind == PlatformGRUBDebian {
			mk = "sudo update-grub"
		}
		out = append(out, Step{Where: "linux", Text: "regenerate grub.cfg", Command: mk},
			Step{Where: "linux", Text: "restart into the new command line", Command: "sudo reboot"})
	case PlatformGrubby:
		out = append(out, Step{Where: "linux", Text: "show the current boot entries and their arguments", Command: "sudo grubby --info=ALL"})
		if rm := names(a.Changes, "remove", "replace"); len(rm) > 0 {
			out = append(out, Step{Where: "linux", Text: "remove the parameters being replaced or dropped from every kernel entry",
				Command: fmt.Sprintf("sudo grubby --update-kernel=ALL --remove-args=%q", strings.Join(rm, " "))})
		}
		if len(set) > 0 {
			out = append(out, Step{Where: "linux", Text: "add the parameters to every kernel entry (recent grubby also updates /etc/kernel/cmdline, so future kernels inherit them)",
				Command: fmt.Sprintf("sudo grubby --update-kernel=ALL --args=%q", strings.Join(set, " "))})
		}
		out = append(out, Step{Where: "linux", Text: "restart into the new command line", Command: "sudo reboot"})
	case PlatformSystemdBoot:
		rel := s.Kernel.Release
		out = append(out,
			Step{Where: "linux", Text: "back up the command line kernel-install uses", Command: "sudo cp -p /etc/kernel/cmdline /etc/kernel/cmdline.bak 2>/dev/null || true"},
			Step{Where: "linux", Text: "write the new command line to /etc/kernel/cmdline", Command: "echo " + shellQuote(newLine) + " | sudo tee /etc/kernel/cmdline"},
			Step{Where: "linux", Text: "regenerate the boot entry (or unified kernel image) of the running kernel", Command: fmt.Sprintf("sudo kernel-install add %s /usr/lib/modules/%s/vmlinuz", rel, rel)})
		if len(p.Entries) > 0 {
			out = append(out, Step{Where: "manual", Text: "entries kernel-install does not regenerate keep their own options line; check: " + strings.Join(p.Entries, ", ")})
		}
		out = append(out, Step{Where: "linux", Text: "restart into the new command line", Command: "sudo reboot"})
	case PlatformKernelstub:
		out = append(out, Step{Where: "linux", Text: "show the current kernelstub configuration", Command: "sudo kernelstub -p"})
		for _, c := range a.Changes {
			if c.Old != "" {
				out = append(out, Step{Where: "linux", Text: "delete " + c.Old, Command: fmt.Sprintf("sudo kernelstub -d %q", c.Old)})
			}
		}
		if len(set) > 0 {
			out = append(out, Step{Where: "linux", Text: "add the parameters (written to the ESP loader entry)", Command: fmt.Sprintf("sudo kernelstub -a %q", strings.Join(set, " "))})
		}
		out = append(out, Step{Where: "linux", Text: "restart into the new command line", Command: "sudo reboot"})
	default:
		text := "no boot-loader configuration was found below the root, so sectax cannot name the file: set the kernel command line where this machine's boot is configured"
		if s.Hypervisor.Guest {
			text += " (in a VM, the host's VM definition: Firecracker boot-source boot_args, QEMU -append, libvirt <cmdline>, or the guest image's boot loader)"
		}
		out = append(out, Step{Where: "manual", Text: text + FullLineToGive + a.Predicted})
	}
	return append(out, verify)
}

// FullLineToGive ends a manual step's text, before the command line the
// kernel would get (the text report says that line once, under Parameters).
const FullLineToGive = "; the full command line to give: "

// wslSetArgs are the arguments of wslconfig set that turn the configured
// line into advise's preview: the parameters added or replacing one, and
// any other target parameter whose setting the configuration holds more
// than once or in another spelling (set drops the other copies, as the
// preview does). None for auto, which only removes.
func wslSetArgs(configured string, t mitigation.Target, changes []Change) []string {
	if t.Kind == mitigation.KindAuto {
		return nil
	}
	out := tokens(changes, "add", "replace")
	base := mitigation.ParseCmdline(configured).Params
	for _, tp := range t.Params {
		var same []mitigation.Param
		for _, p := range base {
			if mitigation.SameSetting(p, tp) {
				same = append(same, p)
			}
		}
		if len(same) > 1 || len(same) == 1 && same[0].Raw != tp.Raw {
			if !slices.Contains(out, tp.Raw) {
				out = append(out, tp.Raw)
			}
		}
	}
	return out
}

// unsetArgs are the arguments of wslconfig unset for the removals: the
// parameter's name, which removes it whatever its value, unless the
// configuration has that name more than once and only some copies go;
// then the parameter as written, which removes only that value.
func unsetArgs(configured string, changes []Change) []string {
	n := map[string]int{}
	for _, p := range mitigation.ParseCmdline(configured).Params {
		n[p.Key()]++
	}
	var out []string
	for _, c := range changes {
		if c.Op != "remove" {
			continue
		}
		p := mitigation.ParseCmdline(c.Old).Params[0]
		arg := p.Name
		if n[p.Key()] > 1 {
			arg = c.Old
		}
		if !slices.Contains(out, arg) {
			out = append(out, arg)
		}
	}
	return out
}

// grubSed is a sed command that sets the GRUB_CMDLINE_LINUX_DEFAULT line,
// or "" when the line holds characters that would need escaping.
func grubSed(p Platform, line string) string {
	for _, r := range line {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(` _-=.,:/@+"`, r)) {
			return ""
		}
	}
	esc := strings.ReplaceAll(line, "/", `\/`)
	if p.ConfigLine > 0 {
		return fmt.Sprintf(`sudo sed -i '%ds/.*/%s/' /etc/default/grub`, p.ConfigLine, esc)
	}
	return fmt.Sprintf(`echo '%s' | sudo tee -a /etc/default/grub`, line)
}

// windowsPath turns /mnt/c/Users/NAME/.wslconfig into C:\Users\NAME\.wslconfig.
func windowsPath(p string) string {
	if p == "" {
		return `%UserProfile%\.wslconfig`
	}
	rest, ok := strings.CutPrefix(p, "/mnt/")
	if !ok || len(rest) < 2 || rest[1] != '/' {
		return p
	}
	return strings.ToUpper(rest[:1]) + `:\` + strings.ReplaceAll(rest[2:], "/", `\`)
}
