//go:build !linux

package local

import "syscall"

func childProcAttr() *syscall.SysProcAttr { return nil }
