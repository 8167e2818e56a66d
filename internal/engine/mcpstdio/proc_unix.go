//go:build unix

package mcpstdio

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the server as the leader of its own process group,
// so that killGroup reaches what it starts too (npx starts node, which may
// start more).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the server's process group. A group already gone is not
// an error: the kernel does not hand out a group's id as a new process id
// while any member lives, so the id cannot name someone else's group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
