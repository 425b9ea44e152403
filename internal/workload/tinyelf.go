package workload

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// Tiny static programs that sectax writes itself: an ELF executable of one
// loadable segment holding a few instructions, no libraries, no runtime,
// kept in a memfd_create file for the life of the process and executed
// through /proc/self/fd/N (what fexecve does; the descriptor is
// close-on-exec, and the kernel opens the file before it closes those).
//
//   - exitProgram only calls exit_group(0): spawn's default program, so that
//     spawn times process creation (clone, execve of a one-page image, exit,
//     wait4), not the start-up of a large program.
//   - launchProgram (x86-64 only) starts argv[1…] with vfork and execve, as
//     posix_spawn does, waits for it, then writes the child's wait status,
//     its rusage and the launcher's clock before the vfork and after the
//     wait to descriptor 3:
//     the timed command starts from a process of a few pages, so its peak
//     resident set is its own, not the image of sectax that a vfork-style
//     clone lends it until execve, and its wall time leaves out sectax's
//     own start of a process (launch.go).

// tinyCode is the machine code of a tiny program per architecture.
type tinyCode map[string][]byte

// exitCode: exit_group(0).
var exitCode = tinyCode{
	"amd64": {
		0x31, 0xff, // xor edi, edi
		0xb8, 0xe7, 0x00, 0x00, 0x00, // mov eax, 231 (exit_group)
		0x0f, 0x05, // syscall
	},
	"arm64": le32(
		0xd2800000, // mov x0, #0
		0xd2800bc8, // mov x8, #94 (exit_group)
		0xd4000001, // svc #0
	),
}

// launchCode: the launcher described above, called as `launcher PATH
// ARGV0 ARGS…`. At entry rsp points at argc, then argv[0…argc-1], NULL,
// envp. It reads CLOCK_MONOTONIC just before its vfork and just after its
// wait4 returns: that window is the command's wall time (launch.go), as
// hyperfine's timer around its spawn and wait. The source is
// testdata/launch_amd64.s (GNU as, Intel syntax; a test assembles it when
// as is installed and compares):
//
//	_start: mov  r13, rsp           ; argc, argv, envp
//	        sub  rsp, 184           ; [rsp] status (4 bytes, 8 kept), [rsp+8] rusage (144),
//	                                ; [rsp+152] start, [rsp+168] end (struct timespec)
//	        mov  edi, 1             ; clock_gettime(CLOCK_MONOTONIC, &start)
//	        lea  rsi, [rsp+152]
//	        mov  eax, 228
//	        syscall
//	        mov  eax, 58            ; vfork: asleep until the command's execve, as posix_spawn
//	        syscall
//	        test rax, rax
//	        jz   child
//	        js   fail
//	        mov  r12, rax           ; the child's pid
//	wait:   mov  edi, r12d
//	        mov  rsi, rsp
//	        xor  edx, edx
//	        lea  r10, [rsp+8]
//	        mov  eax, 61            ; wait4(pid, &status, 0, &rusage)
//	        syscall
//	        cmp  rax, -4            ; EINTR: again
//	        je   wait
//	        mov  rbx, rax
//	        mov  edi, 1             ; clock_gettime(CLOCK_MONOTONIC, &end)
//	        lea  rsi, [rsp+168]
//	        mov  eax, 228
//	        syscall
//	        test rbx, rbx           ; wait4 failed
//	        js   fail
//	        mov  edi, 3
//	        mov  rsi, rsp
//	        mov  edx, 184
//	        mov  eax, 1             ; write(3, status+rusage+start+end, 184)
//	        syscall
//	        xor  edi, edi
//	        jmp  exit
//	fail:   mov  edi, 126
//	exit:   mov  eax, 231           ; exit_group
//	        syscall
//	child:  mov  edi, 3             ; close(3): the report is the launcher's
//	        mov  eax, 3
//	        syscall
//	        mov  edi, 1             ; prctl(PR_SET_PDEATHSIG, SIGKILL)
//	        mov  esi, 9
//	        mov  eax, 157
//	        syscall
//	        mov  rdi, [r13+16]      ; execve(argv[1], &argv[2], envp)
//	        lea  rsi, [r13+24]
//	        mov  rax, [r13]
//	        lea  rdx, [r13+rax*8+16]
//	        mov  eax, 59
//	        syscall
//	        mov  edi, 127
//	        mov  eax, 231
//	        syscall
var launchCode = tinyCode{
	"amd64": {
		0x49, 0x89, 0xe5, 0x48, 0x81, 0xec, 0xb8, 0x00, 0x00, 0x00, 0xbf, 0x01, 0x00, 0x00, 0x00, 0x48,
		0x8d, 0xb4, 0x24, 0x98, 0x00, 0x00, 0x00, 0xb8, 0xe4, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xb8, 0x3a,
		0x00, 0x00, 0x00, 0x0f, 0x05, 0x48, 0x85, 0xc0, 0x74, 0x5f, 0x78, 0x51, 0x49, 0x89, 0xc4, 0x44,
		0x89, 0xe7, 0x48, 0x89, 0xe6, 0x31, 0xd2, 0x4c, 0x8d, 0x54, 0x24, 0x08, 0xb8, 0x3d, 0x00, 0x00,
		0x00, 0x0f, 0x05, 0x48, 0x83, 0xf8, 0xfc, 0x74, 0xe6, 0x48, 0x89, 0xc3, 0xbf, 0x01, 0x00, 0x00,
		0x00, 0x48, 0x8d, 0xb4, 0x24, 0xa8, 0x00, 0x00, 0x00, 0xb8, 0xe4, 0x00, 0x00, 0x00, 0x0f, 0x05,
		0x48, 0x85, 0xdb, 0x78, 0x18, 0xbf, 0x03, 0x00, 0x00, 0x00, 0x48, 0x89, 0xe6, 0xba, 0xb8, 0x00,
		0x00, 0x00, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x31, 0xff, 0xeb, 0x05, 0xbf, 0x7e, 0x00,
		0x00, 0x00, 0xb8, 0xe7, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xbf, 0x03, 0x00, 0x00, 0x00, 0xb8, 0x03,
		0x00, 0x00, 0x00, 0x0f, 0x05, 0xbf, 0x01, 0x00, 0x00, 0x00, 0xbe, 0x09, 0x00, 0x00, 0x00, 0xb8,
		0x9d, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x49, 0x8b, 0x7d, 0x10, 0x49, 0x8d, 0x75, 0x18, 0x49, 0x8b,
		0x45, 0x00, 0x49, 0x8d, 0x54, 0xc5, 0x10, 0xb8, 0x3b, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xbf, 0x7f,
		0x00, 0x00, 0x00, 0xb8, 0xe7, 0x00, 0x00, 0x00, 0x0f, 0x05,
	},
}

func le32(words ...uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// tinyLoadAddr is where the one segment is mapped: above the usual
// vm.mmap_min_addr (64 KiB), page aligned on both architectures.
const tinyLoadAddr = 0x400000

// buildTinyELF returns a static ELF executable for goarch whose entry point
// runs code: the ELF header, one PT_LOAD program header (read and execute,
// the whole file) and the code.
func buildTinyELF(goarch string, code []byte) ([]byte, error) {
	var machine elf.Machine
	switch goarch {
	case "amd64":
		machine = elf.EM_X86_64
	case "arm64":
		machine = elf.EM_AARCH64
	default:
		return nil, fmt.Errorf("no tiny program for %s", goarch)
	}
	const ehsize, phsize = 64, 56
	size := uint64(ehsize + phsize + len(code))
	hdr := elf.Header64{
		Type:      uint16(elf.ET_EXEC),
		Machine:   uint16(machine),
		Version:   uint32(elf.EV_CURRENT),
		Entry:     tinyLoadAddr + ehsize + phsize,
		Phoff:     ehsize,
		Ehsize:    ehsize,
		Phentsize: phsize,
		Phnum:     1,
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	hdr.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	hdr.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	hdr.Ident[elf.EI_OSABI] = byte(elf.ELFOSABI_NONE)
	ph := elf.Prog64{
		Type:   uint32(elf.PT_LOAD),
		Flags:  uint32(elf.PF_R | elf.PF_X),
		Vaddr:  tinyLoadAddr,
		Paddr:  tinyLoadAddr,
		Filesz: size,
		Memsz:  size,
		Align:  0x1000,
	}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, &hdr)
	binary.Write(&b, binary.LittleEndian, &ph)
	b.Write(code)
	return b.Bytes(), nil
}

// tinyProgram is one tiny program written to a memfd once per process.
type tinyProgram struct {
	name string
	code tinyCode
	once sync.Once
	path string
	err  error
}

var (
	exitProgram   = &tinyProgram{name: "sectax-exit", code: exitCode}
	launchProgram = &tinyProgram{name: "sectax-launch", code: launchCode}
)

// Path returns the path that executes the program (/proc/self/fd/N of a
// memfd that stays open), or why there is none on this machine.
func (t *tinyProgram) Path() (string, error) {
	t.once.Do(func() { t.path, t.err = t.write() })
	return t.path, t.err
}

func (t *tinyProgram) write() (string, error) {
	code, ok := t.code[runtime.GOARCH]
	if !ok {
		return "", fmt.Errorf("sectax has no %s program for %s", t.name, runtime.GOARCH)
	}
	img, err := buildTinyELF(runtime.GOARCH, code)
	if err != nil {
		return "", err
	}
	// MFD_EXEC says the file is meant to be executed (kernels ≥ 6.3 with
	// vm.memfd_noexec may require it); older kernels reject the flag.
	fd, err := unix.MemfdCreate(t.name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.MemfdCreate(t.name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return "", fmt.Errorf("memfd_create: %w", err)
	}
	if _, err := unix.Write(fd, img); err != nil {
		unix.Close(fd)
		return "", fmt.Errorf("write %s: %w", t.name, err)
	}
	// Seal it: nothing can change the program once it is written.
	unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
	return "/proc/self/fd/" + strconv.Itoa(fd), nil
}
