package trialbench

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sandboxPeaks are the peak resident sizes (VmHWM) of one sandbox's etcd,
// kube-apiserver and scheduler, children of this process.
type sandboxPeaks struct{ etcd, apiserver, scheduler int64 }

// peaksOf finds the kube-apiserver serving host (https://127.0.0.1:PORT) among
// this process's children, the etcd it stores in and the scheduler whose
// kubeconfig names it, and reads their peaks.
func peaksOf(host string) (sandboxPeaks, error) {
	u, err := url.Parse(host)
	if err != nil {
		return sandboxPeaks{}, err
	}
	children, err := childArgs()
	if err != nil {
		return sandboxPeaks{}, err
	}
	var out sandboxPeaks
	etcdURL := ""
	for pid, args := range children {
		if filepath.Base(args[0]) == "kube-apiserver" && hasArg(args, "--secure-port", u.Port()) {
			if out.apiserver, err = peakRSS(pid); err != nil {
				return out, err
			}
			etcdURL = argValue(args, "--etcd-servers")
		}
	}
	for pid, args := range children {
		if filepath.Base(args[0]) == "etcd" && etcdURL != "" && hasArg(args, "--listen-client-urls", etcdURL) {
			if out.etcd, err = peakRSS(pid); err != nil {
				return out, err
			}
		}
	}
	for pid, args := range children {
		if filepath.Base(args[0]) != "kube-scheduler" {
			continue
		}
		kubeconfig, err := os.ReadFile(argValue(args, "--authentication-kubeconfig"))
		if err == nil && bytes.Contains(kubeconfig, []byte("server: "+host+"\n")) {
			if out.scheduler, err = peakRSS(pid); err != nil {
				return out, err
			}
		}
	}
	if out.etcd == 0 || out.apiserver == 0 || out.scheduler == 0 {
		return out, fmt.Errorf("no kube-apiserver serving %s, its etcd and its scheduler among this process's children", host)
	}
	return out, nil
}

// childArgs are the command lines of this process's children, by pid.
func childArgs() (map[int][]string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	out := map[int][]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at its ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		out[pid] = strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	}
	return out, nil
}

func argValue(args []string, flag string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func hasArg(args []string, flag, value string) bool { return argValue(args, flag) == value }

// peakRSS is a process's peak resident size in bytes (VmHWM).
func peakRSS(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kib << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
}
