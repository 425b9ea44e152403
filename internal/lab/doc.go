// Package lab runs sectax inside QEMU guests: the plan of boots (kernels ×
// configurations × rounds, shuffled with a recorded seed), the initramfs
// with sectax as /init, the framed result channel on the guest's second
// serial port, the QEMU runner and the import of a guest's run.
//
// The pieces are usable on their own (internal/campaign's kexec test boots
// a guest the same way):
//
//   - BuildInitramfs writes a newc archive with a static executable as
//     /init, the kernel modules a task needs (ResolveModules, in
//     modules.dep order), a Task (name and JSON input) and extra Files.
//   - In the guest, the executable calls GuestMain when IsGuest: it mounts
//     /proc, /sys, /dev and /tmp, loads the modules with finit_module, opens
//     the channel, sends a hello frame, runs the TaskFunc registered under
//     the task's name (RegisterTask), sends its result or error and powers
//     off.
//   - Boot runs QEMU in its own process group, builds the initramfs when
//     asked, follows the frames, and bounds the time to the hello frame
//     (ErrNoHandshake), the whole run (Timeout) and QEMU's accelerator
//     errors (ErrAccel); every path kills the process group.
//   - The guest is untrusted: Boot reads the channel incrementally and
//     caps what a boot may write (Limits, ErrLimit), sanitises its text
//     (internal/safetext), and refuses a command line the kernel would
//     cut or that lacks LabParams (CheckCmdline; CheckConfigs before the
//     first boot); ImportRun holds a result to the host's command line
//     and image and verifies it again on the host (config.VerifyReported).
package lab
