package local

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/rest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// servingFlags make an arm's scheduler serve on a loopback port of its own,
// with a certificate it makes itself into certDir; the sandbox's API server
// decides who may read it (--authentication/authorization-kubeconfig).
func servingFlags(port int, certDir string) []string {
	return []string{"--secure-port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--cert-dir=" + certDir}
}

// freeLoopbackPort is a port no process listens on now. Another may take it
// before the scheduler does: the scheduler then exits, and the arm fails
// saying so (Failed), as for its other ports.
func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// schedulerCert is the certificate kube-scheduler makes for itself in
// --cert-dir (its server certificate and the CA that signed it).
const schedulerCert = "kube-scheduler.crt"

// SchedulerMetrics implements trial.SchedulerMetrics: read as the sandbox's
// admin, over TLS verified against the certificate the scheduler made.
func (s *localArm) SchedulerMetrics(ctx context.Context) ([]byte, error) {
	ca, err := os.ReadFile(filepath.Join(s.certDir, schedulerCert))
	if err != nil {
		return nil, fmt.Errorf("the scheduler serves no certificate yet: %w", err)
	}
	cfg := rest.CopyConfig(s.sandbox.config)
	cfg.Host = s.MetricsHost()
	cfg.CAData, cfg.CAFile, cfg.ServerName = ca, "", ""
	return trial.ReadSchedulerMetrics(ctx, cfg)
}

// MetricsHost is the URL its scheduler serves its metrics at.
func (s *localArm) MetricsHost() string {
	return "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(s.metricsPort))
}
