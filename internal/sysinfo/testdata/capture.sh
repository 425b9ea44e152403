#!/usr/bin/env bash
# Capture the running machine's files that sysinfo reads into ./$1 (plain
# files only). Used once for firecracker-dev; rerun on another machine to
# add its tree. Per-process and per-boot files are captured as they are.
set -euo pipefail
dst=${1:?usage: capture.sh NAME}
cd "$(dirname "$0")"
copy() { # copy ABS-PATH: keep the file, skip what does not exist
	[ -r "$1" ] || return 0
	mkdir -p "$dst$(dirname "$1")"
	cat "$1" >"$dst$1"
}
for f in /proc/config.gz /proc/cmdline /proc/version /proc/uptime /proc/cpuinfo /proc/meminfo /proc/mounts \
	/proc/sys/kernel/osrelease /proc/sys/kernel/hostname /proc/sys/kernel/random/boot_id \
	/sys/devices/system/cpu/online /sys/devices/system/cpu/possible \
	/sys/devices/system/cpu/smt/control /sys/devices/system/cpu/smt/active \
	/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver \
	/sys/devices/system/cpu/cpufreq/boost /sys/devices/system/cpu/intel_pstate/no_turbo \
	/sys/devices/system/clocksource/clocksource0/available_clocksource \
	/sys/devices/system/clocksource/clocksource0/current_clocksource \
	/sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag \
	/sys/hypervisor/type /etc/os-release /etc/wsl.conf; do
	copy "$f"
done
for f in /sys/devices/system/cpu/vulnerabilities/* /sys/class/dmi/id/sys_vendor /sys/class/dmi/id/product_name /sys/class/dmi/id/product_version; do
	copy "$f"
done
# /proc/self/status of this shell, reduced to the lines sysinfo reads.
mkdir -p "$dst/proc/self"
grep -E '^(Name|Seccomp|Speculation_Store_Bypass|SpeculationIndirectBranch):' /proc/self/status >"$dst/proc/self/status"
