package local

import "syscall"

// childProcAttr kills a scheduler with the process that started it.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
