// Package version reports the build's version, stamped by the Makefile with -ldflags.
package version

import (
	"fmt"
	"runtime"

	"k8s.io/apimachinery/pkg/version"
)

var (
	// These are set with -ldflags -X at build time.
	versionFromGit = "v0.0.0-unset"
	commitFromGit  = ""
	buildDate      = "1970-01-01T00:00:00Z"
)

// Get returns the version of this build.
func Get() version.Info {
	return version.Info{
		GitVersion: versionFromGit,
		GitCommit:  commitFromGit,
		BuildDate:  buildDate,
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}
