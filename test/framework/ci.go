package framework

import (
	"os"
	"strings"
)

// InCI reports whether the tests run in CI: the environment variable CI is
// true, 1 or yes, in any case. It is the only place a Go test reads CI, as
// in_ci in hack/lib/ci.sh is for the scripts; the two agree (TestInCI). In CI
// nothing that a tier needs may be missing: a test that would skip for a
// missing binary or cluster fails instead, so that CI never passes by skipping.
func InCI() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CI"))) {
	case "true", "1", "yes":
		return true
	}
	return false
}
