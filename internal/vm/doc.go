// Package vm boots a kernel under QEMU with sectax as /init and gets frames
// back: the initramfs, the framed result channel on the guest's second
// serial port, the QEMU runner, kernel discovery, the guest's task
// registry and a boot with no workload (Observe). The lab experiment
// (internal/lab), the proofs of --prove and the corpus (internal/proof) and
// the campaign's guest (internal/campaign) boot through it:
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
//     first boot); CheckObserved holds a snapshot to the command line the
//     host passed and the image it booted (lab.ImportRun does so for a
//     run, and verifies it again on the host).
package vm
