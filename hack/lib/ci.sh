# shellcheck shell=bash
# Whether this is a CI run, for the scripts (source it): in_ci succeeds when the
# environment variable CI is true, 1 or yes, in any case, exactly as
# framework.InCI (test/framework/ci.go) decides for the Go tests (TestInCI
# checks that they agree). In CI nothing a tier needs may be missing: what
# would be skipped elsewhere fails, and hack/prereqs.sh installs the Debian
# packages it lacks.
in_ci() {
  local v="${CI:-}"
  v="${v#"${v%%[![:space:]]*}"}"
  v="${v%"${v##*[![:space:]]}"}"
  case "${v,,}" in
    true | 1 | yes) return 0 ;;
    *) return 1 ;;
  esac
}
