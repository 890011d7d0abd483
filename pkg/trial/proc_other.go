//go:build !linux

package trial

import "syscall"

func childProcAttr() *syscall.SysProcAttr { return nil }
