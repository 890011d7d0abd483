package operandrunner

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sandbox is a pod's network namespace, as a kubelet's pod sandbox gives one:
// the pod's containers share it and its loopback, so they listen on the ports
// of their spec, whatever runs beside them on the host. A process (sleep) holds
// it, as the pause container does. Creating one needs CAP_SYS_ADMIN.
type sandbox struct {
	holder *exec.Cmd
	netns  string
	mu     sync.Mutex
	// forwards are host listeners that forward into the namespace.
	forwards []net.Listener
}

func newSandbox() (*sandbox, error) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		return nil, err
	}
	holder := exec.Command(sleep, "infinity")
	holder.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	if err := holder.Start(); err != nil {
		return nil, fmt.Errorf("creating the pod's network namespace (this needs CAP_SYS_ADMIN: run as root): %w", err)
	}
	go func() { _ = holder.Wait() }()
	s := &sandbox{holder: holder, netns: "/proc/" + strconv.Itoa(holder.Process.Pid) + "/ns/net"}
	if err := s.do(podNetwork); err != nil {
		s.close()
		return nil, fmt.Errorf("setting up the pod's network namespace: %w", err)
	}
	return s, nil
}

// podIP is the address every sandbox has (each in its own namespace).
var podIP = [4]byte{10, 244, 0, 2}

// podNetwork makes the namespace look like a pod's: loopback up, and an address
// with a default route, which kube-apiserver (the simulator embeds one) needs
// to pick the address it advertises. Both are on lo: nothing leaves the pod.
func podNetwork() error {
	if err := loopbackUp(); err != nil {
		return err
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return err
	}
	index := make([]byte, 4)
	binary.NativeEndian.PutUint32(index, uint32(lo.Index))
	// struct ifaddrmsg: family, prefixlen, flags, scope, index.
	addr := append([]byte{unix.AF_INET, 32, 0, unix.RT_SCOPE_UNIVERSE}, index...)
	addr = append(addr, rtAttr(unix.IFA_LOCAL, podIP[:])...)
	addr = append(addr, rtAttr(unix.IFA_ADDRESS, podIP[:])...)
	if err := netlinkRequest(unix.RTM_NEWADDR, addr); err != nil {
		return fmt.Errorf("adding %v to lo: %w", net.IP(podIP[:]), err)
	}
	// struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope,
	// type, flags (u32).
	route := []byte{unix.AF_INET, 0, 0, 0, unix.RT_TABLE_MAIN, unix.RTPROT_BOOT, unix.RT_SCOPE_LINK, unix.RTN_UNICAST, 0, 0, 0, 0}
	route = append(route, rtAttr(unix.RTA_OIF, index)...)
	if err := netlinkRequest(unix.RTM_NEWROUTE, route); err != nil {
		return fmt.Errorf("adding a default route: %w", err)
	}
	return nil
}

// rtAttr is a netlink route attribute, padded to 4 bytes.
func rtAttr(typ uint16, data []byte) []byte {
	b := make([]byte, unix.SizeofRtAttr, unix.SizeofRtAttr+len(data)+3)
	binary.NativeEndian.PutUint16(b[0:], uint16(unix.SizeofRtAttr+len(data)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// netlinkRequest sends one NETLINK_ROUTE request that creates something and
// waits for its acknowledgement.
func netlinkRequest(typ uint16, body []byte) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	msg := make([]byte, unix.NLMSG_HDRLEN, unix.NLMSG_HDRLEN+len(body))
	binary.NativeEndian.PutUint32(msg[0:], uint32(unix.NLMSG_HDRLEN+len(body)))
	binary.NativeEndian.PutUint16(msg[4:], typ)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	binary.NativeEndian.PutUint32(msg[8:], 1) // sequence
	msg = append(msg, body...)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	reply := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, reply, 0)
	if err != nil {
		return err
	}
	if n < unix.NLMSG_HDRLEN+4 || binary.NativeEndian.Uint16(reply[4:]) != unix.NLMSG_ERROR {
		return fmt.Errorf("unexpected netlink reply (%d bytes)", n)
	}
	if code := int32(binary.NativeEndian.Uint32(reply[unix.NLMSG_HDRLEN:])); code != 0 {
		return syscall.Errno(-code)
	}
	return nil
}

// loopbackUp sets lo up: a new network namespace has it down.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// do runs fn on a thread inside the namespace: sockets it opens and processes
// it starts live there.
func (s *sandbox) do(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		host, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer host.Close()
		pod, err := os.Open(s.netns)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer pod.Close()
		if err := unix.Setns(int(pod.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		err = fn()
		// A thread that cannot return to the host's namespace must die with
		// this goroutine (it stays locked), not run other goroutines.
		if unix.Setns(int(host.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// dial connects to addr inside the namespace.
func (s *sandbox) dial(addr string, timeout time.Duration) (net.Conn, error) {
	var c net.Conn
	err := s.do(func() (err error) {
		c, err = net.DialTimeout("tcp", addr, timeout)
		return err
	})
	return c, err
}

// answers says whether something accepts connections on addr in the namespace.
func (s *sandbox) answers(addr string) bool {
	c, err := s.dial(addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// forward listens on a free host loopback port and forwards every connection
// to port on the namespace's loopback, as `kubectl port-forward` does. It
// returns the host address.
func (s *sandbox) forward(port int32) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.forwardFrom(l, port)
	return l.Addr().String(), nil
}

// forwardFrom forwards every connection l accepts to port on the namespace's
// loopback, until the sandbox is closed.
func (s *sandbox) forwardFrom(l net.Listener, port int32) {
	s.mu.Lock()
	s.forwards = append(s.forwards, l)
	s.mu.Unlock()
	target := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return // closed
			}
			go func() {
				defer in.Close()
				out, err := s.dial(target, 5*time.Second)
				if err != nil {
					return // as a port-forward to a closed port: the connection ends
				}
				defer out.Close()
				done := make(chan struct{}, 2)
				pipe := func(dst, src net.Conn) {
					_, _ = io.Copy(dst, src)
					if tc, ok := dst.(*net.TCPConn); ok {
						_ = tc.CloseWrite()
					}
					done <- struct{}{}
				}
				go pipe(out, in)
				go pipe(in, out)
				<-done
				<-done
			}()
		}
	}()
}

// close stops forwarding and ends the namespace's holder.
func (s *sandbox) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.forwards {
		l.Close()
	}
	s.forwards = nil
	_ = s.holder.Process.Kill()
}

// start starts c inside the namespace.
func (s *sandbox) start(c hostCommand) (*Process, error) {
	var p *Process
	err := s.do(func() (err error) {
		p, err = startProcess(c, nil)
		return err
	})
	return p, err
}
