package bench

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// memoryCgroup is a memory cgroup made under this process's own for one run
// of a command, with a limit: what a container running that command would be
// charged (its own memory, not the pages of its binary that are already in
// the page cache), and whether the limit ever bound. A peak RSS cannot tell
// those apart: it counts every page of the binary's image the process maps,
// which the kernel maps 2 MiB at a time where the page cache holds large
// folios.
type memoryCgroup struct {
	dir string
	v2  bool
}

// cgroupMount is where a cgroup hierarchy is mounted and the cgroup path its
// root stands for (not "/" inside a cgroup namespace's view of a bind mount).
type cgroupMount struct {
	dir, root string
	v2        bool
}

// newMemoryCgroup makes the cgroup NAME under this process's memory cgroup,
// with memory (and no swap) limited to limit bytes: cgroup v1's memory
// hierarchy where there is one, else cgroup v2 where the memory controller is
// enabled for children of this process's cgroup.
func newMemoryCgroup(name string, limit int64) (*memoryCgroup, error) {
	mount, path, err := ownMemoryCgroup()
	if err != nil {
		return nil, err
	}
	parent := filepath.Join(mount.dir, strings.TrimPrefix(path, mount.root))
	if mount.v2 {
		controllers, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
		if err != nil || !strings.Contains(" "+strings.TrimSpace(string(controllers))+" ", " memory ") {
			return nil, fmt.Errorf("cgroup v2 at %s does not enable the memory controller for its children", parent)
		}
	}
	c := &memoryCgroup{dir: filepath.Join(parent, name), v2: mount.v2}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, err
	}
	limits := [][2]string{{"memory.limit_in_bytes", fmt.Sprint(limit)}, {"memory.memsw.limit_in_bytes", fmt.Sprint(limit)}}
	if c.v2 {
		limits = [][2]string{{"memory.max", fmt.Sprint(limit)}, {"memory.swap.max", "0"}}
	}
	for _, l := range limits {
		file := filepath.Join(c.dir, l[0])
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) && strings.Contains(l[0], "sw") {
			continue // no swap accounting: no swap limit to set
		}
		if err := os.WriteFile(file, []byte(l[1]), 0o644); err != nil {
			_ = c.remove()
			return nil, err
		}
	}
	return c, nil
}

// ownMemoryCgroup is the mount of the memory cgroup hierarchy and this
// process's path in it.
func ownMemoryCgroup() (cgroupMount, string, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return cgroupMount{}, "", err
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return cgroupMount{}, "", err
	}
	var v2Path string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.SplitN(line, ":", 3)
		if len(fields) != 3 {
			continue
		}
		if fields[0] == "0" && fields[1] == "" {
			v2Path = fields[2]
			continue
		}
		if m, ok := mounts["memory"]; ok && strings.Contains(","+fields[1]+",", ",memory,") {
			return m, fields[2], nil
		}
	}
	if m, ok := mounts["v2"]; ok && v2Path != "" {
		return m, v2Path, nil
	}
	return cgroupMount{}, "", errors.New("no memory cgroup hierarchy mounted (/proc/self/mountinfo)")
}

// cgroupMounts reads /proc/self/mountinfo: the v1 hierarchy with the memory
// controller under "memory", the v2 one under "v2".
func cgroupMounts() (map[string]cgroupMount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	mounts := map[string]cgroupMount{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		// ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
		before, after, ok := strings.Cut(scanner.Text(), " - ")
		fields, super := strings.Fields(before), strings.Fields(after)
		if !ok || len(fields) < 5 || len(super) < 3 {
			continue
		}
		switch {
		case super[0] == "cgroup2":
			mounts["v2"] = cgroupMount{dir: fields[4], root: fields[3], v2: true}
		case super[0] == "cgroup" && strings.Contains(","+super[2]+",", ",memory,"):
			mounts["memory"] = cgroupMount{dir: fields[4], root: fields[3]}
		}
	}
	return mounts, scanner.Err()
}

// wrap is argv run inside the cgroup: a shell that moves itself in, then
// execs argv, so that nothing of the command runs outside it.
func (c *memoryCgroup) wrap(argv []string) []string {
	return append([]string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(c.dir, "cgroup.procs")}, argv...)
}

// usage is what the cgroup was charged at most, in bytes, how many times
// its limit was reached, and how many of its processes the kernel killed for
// memory.
func (c *memoryCgroup) usage() (peak, limitHits, oomKills int64, err error) {
	if c.v2 {
		if peak, err = readInt(filepath.Join(c.dir, "memory.peak")); err != nil {
			return 0, 0, 0, err
		}
		events, err := readKeyed(filepath.Join(c.dir, "memory.events"))
		return peak, events["max"], events["oom_kill"], err
	}
	if peak, err = readInt(filepath.Join(c.dir, "memory.max_usage_in_bytes")); err != nil {
		return 0, 0, 0, err
	}
	if limitHits, err = readInt(filepath.Join(c.dir, "memory.failcnt")); err != nil {
		return 0, 0, 0, err
	}
	// oom_kill is there since Linux 4.13.
	control, err := readKeyed(filepath.Join(c.dir, "memory.oom_control"))
	return peak, limitHits, control["oom_kill"], err
}

// remove removes the cgroup, once its processes are gone.
func (c *memoryCgroup) remove() error { return os.Remove(c.dir) }

func readInt(file string) (int64, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// readKeyed reads a file of "KEY VALUE" lines.
func readKeyed(file string) (map[string]int64, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		key, value, ok := strings.Cut(line, " ")
		if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); ok && err == nil {
			out[key] = n
		}
	}
	return out, nil
}
