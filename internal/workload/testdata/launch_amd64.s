# The launcher of timed commands (launchCode in tinyelf.go), GNU as:
#   as -o launch.o launch_amd64.s && objcopy -O binary -j .text launch.o launch.bin
# TestLaunchCodeAssembles assembles this file when as is installed and
# compares the bytes with launchCode["amd64"].
	.intel_syntax noprefix
	.globl _start
_start: mov  r13, rsp            # argc, argv, envp
	sub  rsp, 184            # [rsp] status (8), [rsp+8] rusage (144), [rsp+152] start, [rsp+168] end
	mov  edi, 1              # clock_gettime(CLOCK_MONOTONIC, &start)
	lea  rsi, [rsp+152]
	mov  eax, 228
	syscall
	mov  eax, 58             # vfork: this process sleeps until the command's execve (posix_spawn's clone)
	syscall
	test rax, rax
	jz   child
	js   fail
	mov  r12, rax            # the child's pid
wait:   mov  edi, r12d
	mov  rsi, rsp
	xor  edx, edx
	lea  r10, [rsp+8]
	mov  eax, 61             # wait4(pid, &status, 0, &rusage)
	syscall
	cmp  rax, -4             # EINTR: again
	je   wait
	mov  rbx, rax
	mov  edi, 1              # clock_gettime(CLOCK_MONOTONIC, &end)
	lea  rsi, [rsp+168]
	mov  eax, 228
	syscall
	test rbx, rbx            # wait4 failed
	js   fail
	mov  edi, 3
	mov  rsi, rsp
	mov  edx, 184
	mov  eax, 1              # write(3, status+rusage+start+end, 184)
	syscall
	xor  edi, edi
	jmp  exit
fail:   mov  edi, 126
exit:   mov  eax, 231            # exit_group
	syscall
child:  mov  edi, 3              # close(3): the report is the launcher's
	mov  eax, 3
	syscall
	mov  edi, 1              # prctl(PR_SET_PDEATHSIG, SIGKILL)
	mov  esi, 9
	mov  eax, 157
	syscall
	mov  rdi, [r13+16]       # execve(argv[1], &argv[2], envp)
	lea  rsi, [r13+24]
	mov  rax, [r13]
	lea  rdx, [r13+rax*8+16]
	mov  eax, 59
	syscall
	mov  edi, 127
	mov  eax, 231
	syscall
