#!/usr/bin/env bash
# Writes the fake roots of advise and verify: each is a sysinfo tree
# (../../sysinfo/testdata/NAME) with the boot-loader files of one platform
# shape (docs/native.md, docs/wsl.md) or a changed command line laid over it.
# Only what differs is committed: roots.txt names each root's base tree and
# roots/NAME holds its own files; testutil.AdviseRoot assembles a root into
# the test's temporary folder. Rerun after editing (plain files, no
# symlinks, no colons in names).
set -euo pipefail
cd "$(dirname "$0")"
src=../../sysinfo/testdata
rm -rf roots
mkdir -p roots
cat >roots.txt <<'EOT'
# advise's fake roots, written by mkroots.sh: NAME from BASE, a tree of
# internal/sysinfo/testdata, with the files of roots/NAME laid over it
# (testutil.Layers says how).
EOT

w() { # w TREE PATH TEXT: write TEXT (with a trailing newline) to roots/TREE/PATH
	mkdir -p "roots/$1/$(dirname "$2")"
	printf '%s\n' "$3" >"roots/$1/$2"
}
from() { printf '%-20s from %s\n' "$1" "$2" >>roots.txt; }
vuln() { w "$1" "sys/devices/system/cpu/vulnerabilities/$2" "$3"; }

# GRUB on Ubuntu (update-grub), with a cloud-image drop-in.
from debian-grub intel-baremetal
w debian-grub etc/default/grub '# If you change this file, run '"'"'update-grub'"'"' afterwards to update
# /boot/grub/grub.cfg.
GRUB_DEFAULT=0
GRUB_TIMEOUT_STYLE=hidden
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=`( . /etc/os-release; echo ${NAME:-Ubuntu} ) 2>/dev/null || echo Ubuntu`
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"
GRUB_CMDLINE_LINUX=""'
w debian-grub etc/default/grub.d/50-cloudimg-settings.cfg '# Cloud Image specific Grub settings for Generic Cloud Images
GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT console=tty1 console=ttyS0"'

# The same machine after editing /etc/default/grub for mitigations=off but
# before update-grub and a reboot: asked for, not applied.
from debian-grub-pending intel-baremetal
w debian-grub-pending etc/default/grub 'GRUB_DEFAULT=0
GRUB_TIMEOUT=0
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash mitigations=off"
GRUB_CMDLINE_LINUX=""'

# Fedora with grubby and /etc/kernel/cmdline.
from fedora-grubby amd-zen4-baremetal
w fedora-grubby usr/sbin/grubby ''
w fedora-grubby etc/kernel/cmdline 'root=UUID=2b4c6d8e-0f1a-4b3c-8d5e-7f9a1b3c5d7e ro rootflags=subvol=root rhgb quiet mitigations=auto,nosmt isolcpus=14,15 nohz_full=14,15'
w fedora-grubby etc/default/grub 'GRUB_TIMEOUT=5
GRUB_CMDLINE_LINUX="rhgb quiet"
GRUB_ENABLE_BLSCFG=true'

# systemd-boot with kernel-install (Arch Linux), /etc/kernel/cmdline absent:
# kernel-install falls back to /proc/cmdline.
from systemd-boot intel-baremetal
w systemd-boot etc/os-release 'NAME="Arch Linux"
PRETTY_NAME="Arch Linux"
ID=arch'
w systemd-boot proc/cmdline 'initrd=\initramfs-linux.img root=UUID=5c1d7e0a-9b2f-4f3e-8a6d-1e2f3a4b5c6d rw quiet nopti'
w systemd-boot boot/loader/entries/arch.conf 'title   Arch Linux
linux   /vmlinuz-linux
initrd  /initramfs-linux.img
options root=UUID=5c1d7e0a-9b2f-4f3e-8a6d-1e2f3a4b5c6d rw quiet nopti'
vuln systemd-boot meltdown 'Vulnerable'

# Pop!_OS with kernelstub, which already has mitigations=auto.
from kernelstub intel-baremetal
w kernelstub etc/os-release 'NAME="Pop!_OS"
PRETTY_NAME="Pop!_OS 22.04 LTS"
ID=pop
ID_LIKE="ubuntu debian"'
w kernelstub proc/cmdline 'initrd=\EFI\Pop_OS-5c1d7e0a\initrd.img root=UUID=5c1d7e0a-9b2f-4f3e-8a6d-1e2f3a4b5c6d ro quiet loglevel=0 systemd.show_status=false splash mitigations=auto'
w kernelstub etc/kernelstub/configuration '{
  "default": {
    "kernel_options": ["quiet", "splash"],
    "esp_path": "/boot/efi",
    "setup_loader": false,
    "manage_mode": false,
    "force_update": false,
    "live_mode": false,
    "config_rev": 3
  },
  "user": {
    "kernel_options": ["quiet", "loglevel=0", "systemd.show_status=false", "splash", "mitigations=auto"],
    "esp_path": "/boot/efi",
    "setup_loader": true,
    "manage_mode": true,
    "force_update": false,
    "live_mode": false,
    "config_rev": 3
  }
}'

# WSL 2: .wslconfig asks for mitigations=off, but the VM still runs the
# default command line (not restarted, or a policy dropped the setting).
from wsl2-asked-off wsl2-intel-on
w wsl2-asked-off mnt/c/Users/dev/.wslconfig '[wsl2]
memory=16GB
processors=16
kernelCommandLine=mitigations=off'

# WSL 2 with mitigations=off applied, but a per-bug parameter after it:
# on 6.17+ spectre_v2=eibrs overrides mitigations=off for spectre_v2.
from wsl2-off-overridden wsl2-intel-off
w wsl2-off-overridden proc/cmdline "$(cat "$src/wsl2-intel-off/proc/cmdline") spectre_v2=eibrs"
w wsl2-off-overridden mnt/c/Users/dev/.wslconfig '[wsl2]
memory=16GB
processors=16
kernelCommandLine=quiet loglevel=0 audit=0 mitigations=off vsyscall=none spectre_v2=eibrs'
vuln wsl2-off-overridden spectre_v2 'Mitigation: Enhanced / Automatic IBRS; IBPB: disabled; STIBP: disabled; PBRSB-eIBRS: SW sequence; BHI: Vulnerable'

# Ubuntu 18.04's first 4.15 kernel booted with mitigations=off: the
# parameter came with mainline 5.2, so this kernel ignores it and sysfs
# still says mitigated.
from old-kernel-ignored old-4.15-intel
w old-kernel-ignored proc/cmdline "$(cat "$src/old-4.15-intel/proc/cmdline") mitigations=off"
