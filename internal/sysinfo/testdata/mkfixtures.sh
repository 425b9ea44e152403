#!/usr/bin/env bash
# Writes the synthetic fake trees (every tree except the captured
# firecracker-dev). They are built from the exact strings the kernel prints
# (arch/x86/kernel/cpu/bugs.c) and the study's command lines (those of the
# study baselines, internal/baseline/data);
# CPU identities and flags follow real machines of each kind. Rerun after
# editing; the trees are committed as plain files.
set -euo pipefail
cd "$(dirname "$0")"

w() { # w TREE PATH TEXT: write TEXT (with a trailing newline) to TREE/PATH
	mkdir -p "$1/$(dirname "$2")"
	printf '%s\n' "$3" >"$1/$2"
}
wn() { # like w, without the trailing newline
	mkdir -p "$1/$(dirname "$2")"
	printf '%s' "$3" >"$1/$2"
}
vuln() { w "$1" "sys/devices/system/cpu/vulnerabilities/$2" "$3"; }
cpuinfo_x86() { # TREE COUNT VENDOR FAMILY MODEL NAME STEPPING MICROCODE FLAGS BUGS
	local t=$1 n=$2 out=""
	for ((i = 0; i < n; i++)); do
		out+="processor	: $i
vendor_id	: $3
cpu family	: $4
model		: $5
model name	: $6
stepping	: $7
microcode	: $8
cpu MHz		: 2300.000
cache size	: 16384 KB
physical id	: 0
siblings	: $n
core id		: $((i / 2))
cpu cores	: $((n / 2))
apicid		: $i
fpu		: yes
fpu_exception	: yes
cpuid level	: 22
wp		: yes
flags		: $9
bugs		: ${10}
bogomips	: 4608.00
clflush size	: 64
cache_alignment	: 64
address sizes	: 39 bits physical, 48 bits virtual
power management:

"
	done
	mkdir -p "$t/proc"
	printf '%s' "$out" >"$t/proc/cpuinfo"
}
meminfo() { w "$1" proc/meminfo "MemTotal:       $2 kB
MemFree:        $(($2 / 2)) kB
MemAvailable:   $(($2 * 3 / 4)) kB"; }
status() { # TREE SSB IB
	local s="Name:	sectax
Seccomp:	0"
	[ -n "$2" ] && s+="
Speculation_Store_Bypass:	$2"
	[ -n "$3" ] && s+="
SpeculationIndirectBranch:	$3"
	w "$1" proc/self/status "$s"
}
common() { # TREE RELEASE VERSION HOSTNAME BOOTID UPTIME CMDLINE
	w "$1" proc/sys/kernel/osrelease "$2"
	w "$1" proc/version "$3"
	w "$1" proc/sys/kernel/hostname "$4"
	w "$1" proc/sys/kernel/random/boot_id "$5"
	w "$1" proc/uptime "$6"
	w "$1" proc/cmdline "$7"
}
kconfig() { # TREE PATH TEXT: a kernel config, gzip-compressed if PATH ends in .gz
	mkdir -p "$1/$(dirname "$2")"
	case $2 in
	*.gz) printf '%s\n' "$3" | gzip -9 -n >"$1/$2" ;;
	*) printf '%s\n' "$3" >"$1/$2" ;;
	esac
}
thp() { w "$1" sys/kernel/mm/transparent_hugepage/enabled "$2"; w "$1" sys/kernel/mm/transparent_hugepage/defrag "$3"; }
clock() {
	w "$1" sys/devices/system/clocksource/clocksource0/current_clocksource "$2"
	w "$1" sys/devices/system/clocksource/clocksource0/available_clocksource "$3"
}
cpus() { w "$1" sys/devices/system/cpu/online "$2"; w "$1" sys/devices/system/cpu/possible "$3"; }
smt() { w "$1" sys/devices/system/cpu/smt/control "$2"; w "$1" sys/devices/system/cpu/smt/active "$3"; }
cpuinfo_arm64() { # TREE COUNT BOGOMIPS FEATURES VARIANT PART REVISION
	local t=$1 n=$2 out=""
	for ((i = 0; i < n; i++)); do
		out+="processor	: $i
BogoMIPS	: $3
Features	: $4
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: $5
CPU part	: $6
CPU revision	: $7

"
	done
	mkdir -p "$t/proc"
	printf '%s' "$out" >"$t/proc/cpuinfo"
}
cpuinfo_power9() { # TREE MHZ REVISION MODEL: 8 POWER9 threads of a pSeries guest
	local t=$1 out=""
	for i in 0 1 2 3 4 5 6 7; do
		out+="processor	: $i
cpu		: POWER9 (architected), altivec supported
clock		: $2.000000MHz
revision	: $3

"
	done
	out+="timebase	: 512000000
platform	: pSeries
model		: $4
machine		: CHRP $4
MMU		: Radix
"
	mkdir -p "$t/proc"
	printf '%s' "$out" >"$t/proc/cpuinfo"
}
s390_ubuntu() { # TREE: the parts both s390 trees (Ubuntu 24.04) share
	clock $1 tod "tod "
	thp $1 'always [madvise] never' 'always defer defer+madvise [madvise] never'
	w $1 etc/os-release 'PRETTY_NAME="Ubuntu 24.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
ID=ubuntu'
	status $1 'vulnerable' ''
}
ec2_arm64() { # TREE MEMKB PRODUCT: the parts every arm64 EC2 guest tree shares
	meminfo $1 $2
	cpus $1 0-1 0-1
	smt $1 notsupported 0
	clock $1 arch_sys_counter "arch_sys_counter "
	thp $1 'always [madvise] never' 'always defer defer+madvise [madvise] never'
	w $1 sys/class/dmi/id/sys_vendor 'Amazon EC2'
	w $1 sys/class/dmi/id/product_name "$3"
	w $1 sys/class/dmi/id/product_version ''
}

# ---------------------------------------------------------------- WSL 2 on Intel (Comet Lake, 16 vCPUs)
STUDY_ON='initrd=\initrd.img WSL_ROOT_INIT=1 panic=-1 nr_cpus=16 hv_utils.timesync_implicit=1 printk.devkmsg=on page_reporting.page_reporting_order=5 swiotlb=force hv_pci_swiotlb=67108864 hv_storvsc.storvsc_max_hw_queues=4 console=hvc0 debug pty.legacy_count=0 WSL_ENABLE_CRASH_DUMP=1'
STUDY_OFF="$STUDY_ON quiet loglevel=0 audit=0 mitigations=off vsyscall=none"
WSL_FLAGS='fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology tsc_reliable nonstop_tsc cpuid tsc_known_freq pni pclmulqdq vmx ssse3 fma cx16 pcid sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch ssbd ibrs ibpb stibp ibrs_enhanced tpr_shadow ept vpid ept_ad fsgsbase bmi1 avx2 smep bmi2 erms invpcid rdseed adx smap clflushopt xsaveopt xsavec xgetbv1 xsaves md_clear flush_l1d arch_capabilities'
WSL_BUGS='spectre_v1 spectre_v2 spec_store_bypass swapgs itlb_multihit srbds mmio_stale_data retbleed eibrs_pbrsb gds bhi its'
for mode in on off; do
	t=wsl2-intel-$mode
	rm -rf "$t"
	cmd=$STUDY_ON
	[ $mode = off ] && cmd=$STUDY_OFF
	common $t 6.18.40.1-microsoft-standard-WSL2 \
		'Linux version 6.18.40.1-microsoft-standard-WSL2 (root@a8b34c2e1d7f) (gcc (GCC) 13.2.0, GNU ld (GNU Binutils) 2.41) #1 SMP PREEMPT_DYNAMIC Tue Oct 14 19:21:43 UTC 2026' \
		DESKTOP-7QK2M1A 9b7c1e52-2f4a-4c1e-9e0d-3a5b6c7d8e9f "312.57 4803.12" "$cmd"
	cpuinfo_x86 $t 16 GenuineIntel 6 165 'Intel(R) Core(TM) i7-10875H CPU @ 2.30GHz' 2 0xffffffff "$WSL_FLAGS" "$WSL_BUGS"
	meminfo $t 16303844
	cpus $t 0-15 0-15
	smt $t on 1
	clock $t hyperv_clocksource_tsc_page "hyperv_clocksource_tsc_page acpi_pm "
	thp $t 'always [madvise] never' 'always defer defer+madvise [madvise] never'
	w $t etc/os-release 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"
NAME="Debian GNU/Linux"
VERSION_ID="13"
ID=debian'
	kconfig $t proc/config.gz '#
# Automatically generated file; DO NOT EDIT.
# Linux/x86 6.18.40.1 Kernel Configuration
#
CONFIG_AUDIT=y
CONFIG_AUDITSYSCALL=y
# CONFIG_PREEMPT_NONE is not set
CONFIG_PREEMPT_VOLUNTARY=y
# CONFIG_PREEMPT is not set
# CONFIG_PREEMPT_LAZY is not set
CONFIG_PREEMPT_DYNAMIC=y
CONFIG_HYPERV=y
CONFIG_HZ=250
CONFIG_CPU_MITIGATIONS=y
CONFIG_MITIGATION_PAGE_TABLE_ISOLATION=y
CONFIG_MITIGATION_RETPOLINE=y
CONFIG_MITIGATION_RETHUNK=y
CONFIG_MITIGATION_SPECTRE_BHI=y
CONFIG_MITIGATION_MDS=y
CONFIG_MITIGATION_ITS=y
# CONFIG_LEGACY_VSYSCALL_XONLY is not set
CONFIG_LEGACY_VSYSCALL_NONE=y
CONFIG_KVM=y'
	w $t etc/wsl.conf '[boot]
systemd=true'
	w $t run/WSL/2_interop ''
	w $t proc/sys/fs/binfmt_misc/WSLInterop 'enabled
interpreter /init
flags: PF
offset 0
magic 4d5a'
	w $t sys/bus/vmbus/devices/242ff919-07db-4180-9c2e-b86cb68c8c55/class_id '{da0a7802-e377-4aac-8e77-0558eb1073f8}'
	vuln $t gather_data_sampling 'Unknown: Dependent on hypervisor status'
	vuln $t ghostwrite 'Not affected'
	vuln $t itlb_multihit 'KVM: Mitigation: VMX unsupported'
	vuln $t l1tf 'Not affected'
	vuln $t mds 'Not affected'
	vuln $t meltdown 'Not affected'
	vuln $t reg_file_data_sampling 'Not affected'
	vuln $t spec_rstack_overflow 'Not affected'
	vuln $t srbds 'Unknown: Dependent on hypervisor status'
	vuln $t tsa 'Not affected'
	vuln $t tsx_async_abort 'Not affected'
	vuln $t vmscape 'Not affected'
	wn $t sys/devices/system/cpu/vulnerabilities/old_microcode 'Unknown: running under hypervisor'
	if [ $mode = on ]; then
		w $t mnt/c/Users/dev/.wslconfig '[wsl2]
memory=16GB
processors=16'
		status $t 'thread vulnerable' 'conditional enabled'
		vuln $t indirect_target_selection 'Mitigation: Aligned branch/return thunks'
		vuln $t mmio_stale_data 'Mitigation: Clear CPU buffers; SMT Host state unknown'
		vuln $t retbleed 'Mitigation: Enhanced IBRS'
		vuln $t spec_store_bypass 'Mitigation: Speculative Store Bypass disabled via prctl'
		vuln $t spectre_v1 'Mitigation: usercopy/swapgs barriers and __user pointer sanitization'
		vuln $t spectre_v2 'Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop'
	else
		w $t mnt/c/Users/dev/.wslconfig '[wsl2]
memory=16GB
processors=16
kernelCommandLine=quiet loglevel=0 audit=0 mitigations=off vsyscall=none'
		status $t 'vulnerable' 'always enabled'
		vuln $t indirect_target_selection 'Vulnerable'
		vuln $t mmio_stale_data 'Vulnerable; SMT Host state unknown'
		vuln $t retbleed 'Vulnerable'
		vuln $t spec_store_bypass 'Vulnerable'
		vuln $t spectre_v1 'Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers'
		vuln $t spectre_v2 'Vulnerable; IBPB: disabled; STIBP: disabled; PBRSB-eIBRS: Vulnerable; BHI: Vulnerable'
	fi
done

# ---------------------------------------------------------------- bare-metal Intel (Coffee Lake i7-8700K, Ubuntu 24.04, 6.8)
t=intel-baremetal
rm -rf $t
common $t 6.8.0-85-generic \
	'Linux version 6.8.0-85-generic (buildd@lcy02-amd64-046) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #85-Ubuntu SMP PREEMPT_DYNAMIC Thu Sep 18 15:26:59 UTC 2025' \
	workstation 0d6f1b8e-41a7-4c55-8a0e-7c2d9b3e5f10 "86400.25 1012345.67" \
	'BOOT_IMAGE=/boot/vmlinuz-6.8.0-85-generic root=UUID=5c1d7e0a-9b2f-4f3e-8a6d-1e2f3a4b5c6d ro quiet splash vt.handoff=7'
cpuinfo_x86 $t 12 GenuineIntel 6 158 'Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz' 10 0xf8 \
	'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb pti ssbd ibrs ibpb stibp tpr_shadow flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid mpx rdseed adx smap clflushopt intel_pt xsaveopt xsavec xgetbv1 xsaves dtherm ida arat pln pts hwp hwp_notify hwp_act_window hwp_epp vnmi md_clear flush_l1d arch_capabilities' \
	'cpu_meltdown spectre_v1 spectre_v2 spec_store_bypass l1tf mds swapgs taa itlb_multihit srbds mmio_stale_data retbleed gds bhi'
meminfo $t 32778476
cpus $t 0-11 0-11
smt $t on 1
clock $t tsc "tsc hpet acpi_pm "
thp $t 'always [madvise] never' 'always defer defer+madvise [madvise] never'
w $t sys/devices/system/cpu/cpu0/cpufreq/scaling_governor powersave
w $t sys/devices/system/cpu/cpu0/cpufreq/scaling_driver intel_pstate
w $t sys/devices/system/cpu/intel_pstate/no_turbo 0
w $t sys/devices/system/cpu/isolated ''
kconfig $t boot/config-6.8.0-85-generic '#
# Automatically generated file; DO NOT EDIT.
# Linux/x86 6.8.12 Kernel Configuration
#
CONFIG_AUDIT=y
CONFIG_AUDITSYSCALL=y
# CONFIG_PREEMPT_NONE is not set
CONFIG_PREEMPT_VOLUNTARY=y
# CONFIG_PREEMPT is not set
CONFIG_PREEMPT_DYNAMIC=y
CONFIG_HZ=1000
CONFIG_NO_HZ_FULL=y
CONFIG_SPECULATION_MITIGATIONS=y
CONFIG_PAGE_TABLE_ISOLATION=y
CONFIG_RETPOLINE=y
CONFIG_CPU_IBRS_ENTRY=y
CONFIG_MITIGATION_RFDS=y
CONFIG_LEGACY_VSYSCALL_XONLY=y
# CONFIG_LEGACY_VSYSCALL_NONE is not set'
w $t sys/devices/system/cpu/nohz_full '(null)'
w $t sys/class/dmi/id/sys_vendor 'Micro-Star International Co., Ltd.'
w $t sys/class/dmi/id/product_name 'MS-7B61'
w $t sys/class/dmi/id/product_version '1.0'
w $t etc/os-release 'PRETTY_NAME="Ubuntu 24.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
ID=ubuntu'
status $t 'thread vulnerable' 'conditional enabled'
vuln $t gather_data_sampling 'Mitigation: Microcode'
vuln $t itlb_multihit 'KVM: Mitigation: VMX disabled'
vuln $t l1tf 'Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable'
vuln $t mds 'Mitigation: Clear CPU buffers; SMT vulnerable'
vuln $t meltdown 'Mitigation: PTI'
vuln $t mmio_stale_data 'Mitigation: Clear CPU buffers; SMT vulnerable'
vuln $t reg_file_data_sampling 'Not affected'
vuln $t retbleed 'Mitigation: IBRS'
vuln $t spec_rstack_overflow 'Not affected'
vuln $t spec_store_bypass 'Mitigation: Speculative Store Bypass disabled via prctl'
vuln $t spectre_v1 'Mitigation: usercopy/swapgs barriers and __user pointer sanitization'
vuln $t spectre_v2 'Mitigation: IBRS; IBPB: conditional; STIBP: conditional; RSB filling; PBRSB-eIBRS: Not affected; BHI: SW loop, KVM: SW loop'
vuln $t srbds 'Mitigation: Microcode'
vuln $t tsx_async_abort 'Mitigation: TSX disabled'

# ---------------------------------------------------------------- bare-metal AMD Zen 4 (Ryzen 9 7950X, Fedora 42, 6.17, mitigations=auto,nosmt)
t=amd-zen4-baremetal
rm -rf $t
common $t 6.17.4-200.fc42.x86_64 \
	'Linux version 6.17.4-200.fc42.x86_64 (mockbuild@c1f3b2a4d5e6) (gcc (GCC) 15.2.1 20250808 (Red Hat 15.2.1-1), GNU ld version 2.44-6.fc42) #1 SMP PREEMPT_DYNAMIC Sun Oct 19 18:47:49 UTC 2025' \
	ryzen 6a1e2c3d-4b5f-4a6b-9c7d-8e9f0a1b2c3d "5400.00 170000.00" \
	'BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.17.4-200.fc42.x86_64 root=UUID=2b4c6d8e-0f1a-4b3c-8d5e-7f9a1b3c5d7e ro rootflags=subvol=root rhgb quiet mitigations=auto,nosmt isolcpus=14,15 nohz_full=14,15'
cpuinfo_x86 $t 16 AuthenticAMD 25 97 'AMD Ryzen 9 7950X 16-Core Processor' 2 0xa601209 \
	'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good amd_lbr_v2 nopl nonstop_tsc cpuid extd_apicid aperfmperf rapl pni pclmulqdq monitor ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw ibs skinit wdt tce topoext perfctr_core perfctr_nb bpext perfctr_llc mwaitx cpb cat_l3 cdp_l3 hw_pstate ssbd mba perfmon_v2 ibrs ibpb stibp ibrs_enhanced vmmcall fsgsbase bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local user_shstk avx512_bf16 clzero irperf xsaveerptr rdpru wbnoinvd cppc arat npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid decodeassists pausefilter pfthreshold avic v_vmsave_vmload vgif x2avic v_spec_ctrl vnmi avx512vbmi umip pku ospke avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq rdpid overflow_recov succor smca fsrm flush_l1d amd_lbr_pmc_freeze' \
	'sysret_ss_attrs spectre_v1 spectre_v2 spec_store_bypass srso tsa vmscape'
meminfo $t 65019700
cpus $t 0-15 0-31
smt $t off 0
clock $t tsc "tsc hpet acpi_pm "
thp $t '[always] madvise never' 'always defer defer+madvise [madvise] never'
w $t sys/devices/system/cpu/cpu0/cpufreq/scaling_governor powersave
w $t sys/devices/system/cpu/cpu0/cpufreq/scaling_driver amd-pstate-epp
w $t sys/devices/system/cpu/cpufreq/boost 1
w $t sys/devices/system/cpu/isolated 14-15
w $t sys/devices/system/cpu/nohz_full 14-15
w $t sys/class/dmi/id/sys_vendor 'ASUS'
w $t sys/class/dmi/id/product_name 'System Product Name'
w $t sys/class/dmi/id/product_version 'System Version'
w $t etc/os-release 'PRETTY_NAME="Fedora Linux 42 (Workstation Edition)"
NAME="Fedora Linux"
VERSION_ID=42
ID=fedora'
status $t 'thread vulnerable' 'conditional enabled'
for v in gather_data_sampling ghostwrite indirect_target_selection itlb_multihit l1tf mds meltdown mmio_stale_data old_microcode reg_file_data_sampling retbleed srbds tsx_async_abort; do
	vuln $t $v 'Not affected'
done
vuln $t spec_rstack_overflow 'Mitigation: Safe RET'
vuln $t spec_store_bypass 'Mitigation: Speculative Store Bypass disabled via prctl'
vuln $t spectre_v1 'Mitigation: usercopy/swapgs barriers and __user pointer sanitization'
vuln $t spectre_v2 'Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected'
vuln $t tsa 'Mitigation: Clear CPU buffers'
vuln $t vmscape 'Mitigation: IBPB before exit to userspace'

# ---------------------------------------------------------------- arm64 (AWS Graviton3, Neoverse-V1, Ubuntu 24.04)
t=arm64-graviton3
rm -rf $t
common $t 6.8.0-1036-aws \
	'Linux version 6.8.0-1036-aws (buildd@bos03-arm64-061) (aarch64-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #38-Ubuntu SMP Fri Aug 29 21:58:55 UTC 2025' \
	ip-172-31-9-20 3c5e7a9b-1d2f-4e6a-8b0c-2d4f6a8c0e1f "1234.56 2400.00" \
	'BOOT_IMAGE=/vmlinuz-6.8.0-1036-aws root=PARTUUID=7a0b1c2d-3e4f-5a6b-7c8d-9e0f1a2b3c4d ro console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295 panic=-1'
cpuinfo_arm64 $t 2 2100.00 'fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng' 0x1 0xd40 1
ec2_arm64 $t 3926476 c7g.large
w $t etc/os-release 'PRETTY_NAME="Ubuntu 24.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
ID=ubuntu'
status $t 'thread vulnerable' 'unknown'
for v in gather_data_sampling itlb_multihit l1tf mds meltdown mmio_stale_data reg_file_data_sampling retbleed spec_rstack_overflow srbds tsx_async_abort; do
	vuln $t $v 'Not affected'
done
vuln $t spec_store_bypass 'Mitigation: Speculative Store Bypass disabled via prctl'
vuln $t spectre_v1 'Mitigation: __user pointer sanitization'
vuln $t spectre_v2 'Mitigation: CSV2, BHB'

# ---------------------------------------------------------------- container (gVisor-like: no vulnerabilities, no smt, sparse /sys)
t=container-novulns
rm -rf $t
common $t 4.4.0 '#1 SMP Sun Jan 10 15:06:54 PST 2016' 3f2a9c1b7d4e 0e1d2c3b-4a59-4687-9a8b-7c6d5e4f3a2b "42.00 80.00" \
	'BOOT_IMAGE=/vmlinuz-4.4.0-gvisor quiet'
cpuinfo_x86 $t 4 GenuineIntel 6 85 'Intel(R) Xeon(R) CPU @ 2.20GHz' 7 0x1 \
	'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology nonstop_tsc cpuid pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch ssbd ibrs ibpb stibp fsgsbase bmi1 avx2 smep bmi2 erms invpcid avx512f avx512dq rdseed adx smap clflushopt clwb avx512cd avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves arat md_clear arch_capabilities' \
	'spectre_v1 spectre_v2 spec_store_bypass swapgs taa mmio_stale_data retbleed eibrs_pbrsb gds bhi'
meminfo $t 8388608
cpus $t 0-3 0-3
w $t etc/os-release 'PRETTY_NAME="Alpine Linux v3.22"
NAME="Alpine Linux"
ID=alpine'
status $t '' ''
mkdir -p $t/sys/devices/system/cpu

# ---------------------------------------------------------------- old 4.15 kernel with ", " separators (Ubuntu 18.04, Broadwell Xeon)
t=old-4.15-intel
rm -rf $t
common $t 4.15.0-20-generic \
	'Linux version 4.15.0-20-generic (buildd@lgw01-amd64-039) (gcc version 7.3.0 (Ubuntu 7.3.0-16ubuntu3)) #21-Ubuntu SMP Tue Apr 24 06:16:15 UTC 2018' \
	legacy-db 7f8e9d0c-1b2a-4394-a5b6-c7d8e9f0a1b2 "8640000.00 34000000.00" \
	'BOOT_IMAGE=/boot/vmlinuz-4.15.0-20-generic root=UUID=9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a ro maybe-ubiquity'
cpuinfo_x86 $t 8 GenuineIntel 6 79 'Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz' 1 0xb000038 \
	'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 cdp_l3 invpcid_single pti retpoline intel_ppin tpr_shadow vnmi flexpriority ept vpid fsgsbase tsc_adjust bmi1 hle avx2 smep bmi2 erms invpcid rtm cqm rdt_a rdseed adx smap intel_pt xsaveopt cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local dtherm ida arat pln pts' \
	'cpu_meltdown spectre_v1 spectre_v2 spec_store_bypass l1tf mds swapgs taa itlb_multihit'
meminfo $t 65865216
cpus $t 0-7 0-7
clock $t tsc "tsc hpet acpi_pm "
thp $t '[always] madvise never' 'always defer defer+madvise [madvise] never'
w $t sys/devices/system/cpu/cpu0/cpufreq/scaling_governor performance
w $t sys/devices/system/cpu/cpu0/cpufreq/scaling_driver intel_pstate
w $t sys/devices/system/cpu/intel_pstate/no_turbo 1
w $t sys/class/dmi/id/sys_vendor 'Dell Inc.'
w $t sys/class/dmi/id/product_name 'PowerEdge R630'
w $t sys/class/dmi/id/product_version ''
w $t etc/os-release 'PRETTY_NAME="Ubuntu 18.04 LTS"
NAME="Ubuntu"
VERSION_ID="18.04"
ID=ubuntu'
status $t 'thread force mitigated' ''
vuln $t meltdown 'Mitigation: PTI'
vuln $t spectre_v1 'Mitigation: __user pointer sanitization'
vuln $t spectre_v2 'Mitigation: Full generic retpoline, IBPB: conditional, IBRS_FW, STIBP: conditional, RSB filling'
vuln $t spec_store_bypass 'Mitigation: Speculative Store Bypass disabled via prctl and seccomp'
vuln $t l1tf 'Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable'
vuln $t mds 'Vulnerable: Clear CPU buffers attempted, no microcode; SMT vulnerable'

# ---------------------------------------------------------------- arm64 with KPTI: AWS a1 (Graviton1, Cortex-A72) guest, Debian 12, 6.1, default mitigations
t=arm64-graviton1-a72
rm -rf $t
common $t 6.1.0-40-cloud-arm64 \
	'Linux version 6.1.0-40-cloud-arm64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP Debian 6.1.153-1 (2025-09-20)' \
	ip-172-31-40-7 5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e "86400.00 340000.00" \
	'BOOT_IMAGE=/boot/vmlinuz-6.1.0-40-cloud-arm64 root=PARTUUID=4e639091-02 ro console=tty0 console=ttyS0,115200 earlyprintk=ttyS0,115200 consoleblank=0'
cpuinfo_arm64 $t 2 166.66 'fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid' 0x0 0xd08 3
ec2_arm64 $t 3884404 a1.large
w $t etc/os-release 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
ID=debian'
status $t 'thread vulnerable' 'unknown'
for v in gather_data_sampling itlb_multihit l1tf mds mmio_stale_data reg_file_data_sampling retbleed spec_rstack_overflow srbds tsx_async_abort; do
	vuln $t $v 'Not affected'
done
vuln $t meltdown 'Mitigation: PTI'
vuln $t spec_store_bypass 'Mitigation: Speculative Store Bypass disabled via prctl'
vuln $t spectre_v1 'Mitigation: __user pointer sanitization'
vuln $t spectre_v2 'Mitigation: Branch predictor hardening, BHB'

# ---------------------------------------------------------------- powerpc: POWER9 LPAR (pSeries), RHEL 9, 5.14, default mitigations
t=powerpc-power9
rm -rf $t
common $t 5.14.0-570.12.1.el9_6.ppc64le \
	'Linux version 5.14.0-570.12.1.el9_6.ppc64le (mockbuild@ppc-hv-17.build.eng.rdu2.redhat.com) (gcc (GCC) 11.5.0 20240719 (Red Hat 11.5.0-5), GNU ld version 2.35.2-63.el9) #1 SMP Wed Apr 30 05:38:31 EDT 2025' \
	p9-lpar1 6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f "172800.00 2700000.00" \
	'BOOT_IMAGE=/vmlinuz-5.14.0-570.12.1.el9_6.ppc64le root=/dev/mapper/rhel-root ro crashkernel=2G-4G:384M,4G-16G:512M,16G-64G:1G,64G-128G:2G,128G-:4G rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap'
cpuinfo_power9 $t 2750 '2.2 (pvr 004e 0202)' 'IBM,9009-22A'
meminfo $t 33226368
cpus $t 0-7 0-7
smt $t on 1
clock $t timebase "timebase "
thp $t '[always] madvise never' 'always defer defer+madvise [madvise] never'
w $t etc/os-release 'PRETTY_NAME="Red Hat Enterprise Linux 9.6 (Plow)"
NAME="Red Hat Enterprise Linux"
VERSION_ID="9.6"
ID="rhel"'
status $t 'thread vulnerable' ''
for v in gather_data_sampling itlb_multihit mds mmio_stale_data reg_file_data_sampling retbleed spec_rstack_overflow srbds tsx_async_abort; do
	vuln $t $v 'Not affected'
done
vuln $t meltdown 'Mitigation: RFI Flush, L1D private per thread'
vuln $t l1tf 'Mitigation: RFI Flush, L1D private per thread'
vuln $t spec_store_bypass 'Mitigation: Kernel entry/exit barrier (eieio)'
vuln $t spectre_v1 'Mitigation: __user pointer sanitization, ori31 speculation barrier enabled'
vuln $t spectre_v2 'Mitigation: Indirect branch cache disabled, Software link stack flush'

# ---------------------------------------------------------------- s390x: IBM z15 LPAR, Ubuntu 24.04, 6.8, default mitigations
t=s390x-z15
rm -rf $t
common $t 6.8.0-85-generic \
	'Linux version 6.8.0-85-generic (buildd@bos02-s390x-012) (s390x-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #85-Ubuntu SMP Thu Sep 18 15:26:59 UTC 2025' \
	z15-lpar2 7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a "259200.00 1000000.00" \
	'root=/dev/mapper/ubuntu--vg-ubuntu--lv crashkernel=196M'
mkdir -p $t/proc
printf '%s' "vendor_id       : IBM/S390
# processors    : 4
bogomips per cpu: 24038.00
max thread id   : 1
features	: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx vxd vxe gs vxe2 vxp sort dflt sie
cache0          : level=1 type=Data scope=Private size=128K line_size=256 associativity=8
processor 0: version = 00,  identification = 0B7A38,  machine = 8561
processor 1: version = 00,  identification = 0B7A38,  machine = 8561
processor 2: version = 00,  identification = 0B7A38,  machine = 8561
processor 3: version = 00,  identification = 0B7A38,  machine = 8561
" >$t/proc/cpuinfo
meminfo $t 16363136
cpus $t 0-3 0-3
smt $t on 1
s390_ubuntu $t
for v in gather_data_sampling itlb_multihit l1tf mds meltdown mmio_stale_data reg_file_data_sampling retbleed spec_rstack_overflow spec_store_bypass srbds tsx_async_abort; do
	vuln $t $v 'Not affected'
done
vuln $t spectre_v1 'Mitigation: __user pointer sanitization'
vuln $t spectre_v2 'Mitigation: etokens'

# ================================================================ platforms beyond x86 and arm64 (issue 27)
# Each tree's README.md names the posted real outputs it is built from.
gen_vulns() { # TREE TEXT NAME...: NAME files saying TEXT
	local t=$1 text=$2
	shift 2
	for v in "$@"; do vuln $t $v "$text"; done
}
V618='gather_data_sampling ghostwrite indirect_target_selection itlb_multihit l1tf mds meltdown mmio_stale_data old_microcode reg_file_data_sampling retbleed spec_rstack_overflow spec_store_bypass spectre_v2 srbds tsa tsx_async_abort vmscape'
V68='gather_data_sampling itlb_multihit l1tf mds meltdown mmio_stale_data reg_file_data_sampling retbleed spec_rstack_overflow spec_store_bypass srbds tsx_async_abort'

# ---------------------------------------------------------------- LoongArch: Loongson-3C6000, AOSC OS, 6.18-stable
t=loongarch-3c6000
rm -rf $t
common $t 6.18.20-aosc-main \
	'Linux version 6.18.20-aosc-main (root@buildit) (gcc (GCC) 14.2.0, GNU ld (GNU Binutils) 2.44) #1 SMP PREEMPT_DYNAMIC Thu Apr  2 13:11:11 UTC 2026' \
	loong3c6000 2c0f6a1e-57b4-4f0e-9d6c-8e1a2b3c4d5e "86400.00 340000.00" \
	'BOOT_IMAGE=/boot/vmlinuz-6.18.20-aosc-main root=/dev/nvme0n1p2 rw'
w $t proc/sys/kernel/arch loongarch64
out="system type		: generic-loongson-machine

"
for i in 0 1 2 3; do
	out+="processor		: $i
package			: 0
core			: $i
global_id		: $i
CPU Family		: Loongson-64bit
Model Name		: Loongson-3C6000
CPU Revision		: 0x10
FPU Revision		: 0x00
CPU MHz			: 2200.00
BogoMIPS		: 4400.00
TLB Entries		: 2112
Address Sizes		: 48 bits physical, 48 bits virtual
ISA			: loongarch32r loongarch32s loongarch64
Features		: cpucfg lam ual fpu lsx lasx crc32 complex crypto lspw lvz lbt_x86 lbt_arm lbt_mips
Hardware Watchpoint	: yes, iwatch count: 8, dwatch count: 4

"
done
printf '%s' "$out" >$t/proc/cpuinfo
meminfo $t 65011712
cpus $t 0-3 0-3
smt $t notsupported 0
clock $t stable "stable "
thp $t 'always [madvise] never' 'always defer defer+madvise [madvise] never'
w $t etc/os-release 'PRETTY_NAME="AOSC OS (12.1.0)"
NAME="AOSC OS"
ID=aosc'
status $t 'unknown' 'unknown'
gen_vulns $t 'Not affected' $V618
vuln $t spectre_v1 'Mitigation: __user pointer sanitization'

# ---------------------------------------------------------------- 32-bit ARM: Raspberry Pi 4 (Cortex-A72 in AArch32), Raspberry Pi OS
t=arm-rpi4-v7l
rm -rf $t
common $t 6.6.51+rpt-rpi-v7l \
	'Linux version 6.6.51+rpt-rpi-v7l (serge@raspberrypi.com) (gcc-12 (Raspbian 12.2.0-14+rpi1) 12.2.0, GNU ld (GNU Binutils for Raspbian) 2.40) #1 SMP Raspbian 1:6.6.51-1+rpt3 (2024-10-08)' \
	raspberrypi 5d1f0c2b-8a3e-4b7c-9f1d-2e3a4b5c6d7e "3600.00 14000.00" \
	'coherent_pool=1M 8250.nr_uarts=0 snd_bcm2835.enable_headphones=0 bcm2708_fb.fbwidth=656 bcm2708_fb.fbheight=416 vc_mem.mem_base=0x3ec00000 vc_mem.mem_size=0x40000000 console=ttyS0,115200 console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 fsck.repair=yes rootwait'
w $t proc/sys/kernel/arch armv7l
out=""
for i in 0 1 2 3; do
	out+="processor	: $i
model name	: ARMv7 Processor rev 3 (v7l)
BogoMIPS	: 108.00
Features	: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt vfpd32 lpae evtstrm crc32
CPU implementer	: 0x41
CPU architecture: 7
CPU variant	: 0x0
CPU part	: 0xd08
CPU revision	: 3

"
done
out+="Hardware	: BCM2711
Revision	: c03112
Serial		: 10000000046a5700
Model		: Raspberry Pi 4 Model B Rev 1.2
"
printf '%s' "$out" >$t/proc/cpuinfo
meminfo $t 3882448
cpus $t 0-3 0-3
clock $t arch_sys_counter "arch_sys_counter "
thp $t 'always [madvise] never' 'always defer defer+madvise [madvise] never'
w $t etc/os-release 'PRETTY_NAME="Raspbian GNU/Linux 12 (bookworm)"
NAME="Raspbian GNU/Linux"
VERSION_ID="12"
ID=raspbian'
status $t '' ''
gen_vulns $t 'Not affected' gather_data_sampling itlb_multihit l1tf mds meltdown mmio_stale_data reg_file_data_sampling retbleed spec_rstack_overflow spec_store_bypass srbds tsx_async_abort
vuln $t spectre_v1 'Mitigation: __user pointer sanitization'
vuln $t spectre_v2 'Mitigation: History overwrite'

# ---------------------------------------------------------------- POWER9 pSeries guest under QEMU/KVM, Fedora 33
t=powerpc-power9-qemu
rm -rf $t
common $t 5.10.19-200.fc33.ppc64le \
	'Linux version 5.10.19-200.fc33.ppc64le (mockbuild@buildvm-ppc64le-18.iad2.fedoraproject.org) (gcc (GCC) 10.2.1 20201125 (Red Hat 10.2.1-9), GNU ld version 2.35-18.fc33) #1 SMP Fri Feb 26 16:08:18 UTC 2021' \
	fedora-p9 3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7 "5400.00 40000.00" \
	'BOOT_IMAGE=/vmlinuz-5.10.19-200.fc33.ppc64le root=/dev/mapper/fedora-root ro rd.lvm.lv=fedora/root'
w $t proc/sys/kernel/arch ppc64le
cpuinfo_power9 $t 3000 '2.3 (pvr 004e 1203)' 'IBM pSeries (emulated by qemu)'
wn $t proc/device-tree/hypervisor/compatible "$(printf 'linux,kvm')"
printf '\0' >>$t/proc/device-tree/hypervisor/compatible
meminfo $t 8145344
cpus $t 0-7 0-7
smt $t on 1
clock $t timebase "timebase "
thp $t '[always] madvise never' 'always defer defer+madvise [madvise] never'
w $t etc/os-release 'PRETTY_NAME="Fedora 33 (Server Edition)"
NAME=Fedora
VERSION_ID=33
ID=fedora'
status $t 'vulnerable' ''
for f in $(ls powerpc-power9/sys/devices/system/cpu/vulnerabilities); do
	vuln $t $f "$(cat powerpc-power9/sys/devices/system/cpu/vulnerabilities/$f)"
done

# ---------------------------------------------------------------- IBM z15 under z/VM 7.2.0, Ubuntu 24.04
t=s390x-z15-zvm
rm -rf $t
common $t 6.8.0-85-generic \
	'Linux version 6.8.0-85-generic (buildd@bos02-s390x-012) (s390x-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #85-Ubuntu SMP Thu Sep 18 15:26:59 UTC 2025' \
	zvmguest1 8e9f0a1b-2c3d-4e4f-9a5b-6c7d8e9f0a1b "172800.00 600000.00" \
	'root=/dev/disk/by-path/ccw-0.0.0100-part1 cio_ignore=all,!condev'
w $t proc/sys/kernel/arch s390x
printf '%s' "vendor_id       : IBM/S390
# processors    : 2
bogomips per cpu: 24038.00
max thread id   : 0
features	: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx vxd vxe gs vxe2 vxp sort dflt sie
cache0          : level=1 type=Data scope=Private size=128K line_size=256 associativity=8
processor 0: version = FF,  identification = 0D7A38,  machine = 8561
processor 1: version = FF,  identification = 0D7A38,  machine = 8561
" >$t/proc/cpuinfo
w $t proc/sysinfo 'Manufacturer:         IBM
Type:                 8561
Model:                716              T01
Sequence Code:        00000000000B7A38
Plant:                02
Model Capacity:       716              00000000
Capacity Adj. Ind.:   100
Capacity Ch. Reason:  0
Capacity Transient:   0
Type 1 Percentage:    0
Type 2 Percentage:    0
Type 3 Percentage:    0
Type 4 Percentage:    0
Type 5 Percentage:    0

CPUs Total:           40
CPUs Configured:      0
CPUs Standby:         0
CPUs Reserved:        40
CPUs G-MTID:          0
CPUs S-MTID:          1
Capability:           3271
Nominal Capability:   3271
Secondary Capability: 416
Adjustment 02-way:    62750
Adjustment 03-way:    61302

LPAR Number:          11
LPAR Characteristics: Shared
LPAR Name:            LP11
LPAR Adjustment:      244
LPAR CPUs Total:      8
LPAR CPUs Configured: 8
LPAR CPUs Standby:    0
LPAR CPUs Reserved:   0
LPAR CPUs Dedicated:  0
LPAR CPUs Shared:     8
LPAR CPUs G-MTID:     0
LPAR CPUs S-MTID:     1
LPAR CPUs PS-MTID:    1

VM00 Name:            ZVMGST1
VM00 Control Program: z/VM    7.2.0
VM00 Adjustment:      62
VM00 CPUs Total:      2
VM00 CPUs Configured: 2
VM00 CPUs Standby:    0
VM00 CPUs Reserved:   0'
meminfo $t 4046848
cpus $t 0-1 0-1
smt $t notsupported 0
s390_ubuntu $t
for f in $(ls s390x-z15/sys/devices/system/cpu/vulnerabilities); do
	vuln $t $f "$(cat s390x-z15/sys/devices/system/cpu/vulnerabilities/$f)"
done

# ---------------------------------------------------------------- Azure guest (GitHub-hosted runner, Xeon Platinum 8370C), Ubuntu 24.04, 6.8 -azure
t=azure-icelake
rm -rf $t
common $t 6.8.0-1021-azure \
	'Linux version 6.8.0-1021-azure (buildd@lcy02-amd64-090) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #25-Ubuntu SMP Wed Jan 15 20:45:09 UTC 2025' \
	fv-az1234-567 4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d "620.41 2400.12" \
	'BOOT_IMAGE=/vmlinuz-6.8.0-1021-azure root=PARTUUID=5d8c2a1b-3e4f-4a5b-9c6d-7e8f9a0b1c2d ro console=tty1 console=ttyS0 earlyprintk=ttyS0 panic=-1'
AZ_FLAGS='fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology tsc_reliable nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq vmx ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch invpcid_single ssbd ibrs ibpb stibp ibrs_enhanced tpr_shadow ept vpid ept_ad fsgsbase tsc_adjust bmi1 hle avx2 smep bmi2 erms invpcid rtm avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves vnmi avx512vbmi umip avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq la57 rdpid fsrm md_clear arch_capabilities'
AZ_BUGS='spectre_v1 spectre_v2 spec_store_bypass swapgs taa mmio_stale_data eibrs_pbrsb gds bhi'
cpuinfo_x86 $t 4 GenuineIntel 6 106 'Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz' 6 0xffffffff "$AZ_FLAGS" "$AZ_BUGS"
meminfo $t 16364512
cpus $t 0-3 0-3
smt $t on 1
clock $t hyperv_clocksource_tsc_page "hyperv_clocksource_tsc_page acpi_pm "
thp $t 'always [madvise] never' 'always defer defer+madvise [madvise] never'
w $t sys/class/dmi/id/sys_vendor 'Microsoft Corporation'
w $t sys/class/dmi/id/product_name 'Virtual Machine'
w $t sys/class/dmi/id/product_version '7.0'
w $t sys/class/dmi/id/bios_vendor 'Microsoft Corporation'
w $t etc/os-release 'PRETTY_NAME="Ubuntu 24.04.1 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
ID=ubuntu'
status $t 'thread vulnerable' 'conditional enabled'
gen_vulns $t 'Not affected' itlb_multihit l1tf mds meltdown reg_file_data_sampling spec_rstack_overflow srbds
vuln $t gather_data_sampling 'Unknown: Dependent on hypervisor status'
vuln $t mmio_stale_data 'Mitigation: Clear CPU buffers; SMT Host state unknown'
vuln $t retbleed 'Mitigation: Enhanced IBRS'
vuln $t spec_store_bypass 'Mitigation: Speculative Store Bypass disabled via prctl'
vuln $t spectre_v1 'Mitigation: usercopy/swapgs barriers and __user pointer sanitization'
vuln $t spectre_v2 'Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop'
vuln $t tsx_async_abort 'Mitigation: Clear CPU buffers; SMT Host state unknown'
