package main

import (
	"strings"
	"testing"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: op
  namespace: op-ns
spec:
  selector:
    matchLabels: {app: op}
  template:
    metadata:
      labels: {app: op}
    spec:
      serviceAccountName: op
      containers:
      - name: op
        image: op:latest
---
apiVersion: v1
kind: Namespace
metadata:
  name: op-ns
`

func docsOf(t *testing.T, yaml string) []doc {
	t.Helper()
	docs, err := splitDocuments("manifests/test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// roleAndBinding is a Role in namespace ns bound to the operator.
func roleAndBinding(ns string) string {
	return `---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: ` + ns + `}
rules:
- {apiGroups: [""], resources: [secrets], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: r, namespace: ` + ns + `}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects:
- {kind: ServiceAccount, name: op, namespace: op-ns}
`
}

func TestPlaceRoles(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		ns                      string
		permissions, clusterPer int
	}{
		{"a Role in the operator's namespace is the CSV's permissions", "op-ns", 1, 0},
		{"a Role elsewhere is granted cluster-wide", "operand-ns", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := place(docsOf(t, deployment+roleAndBinding(tc.ns)))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.permissions) != tc.permissions || len(p.clusterPermissions) != tc.clusterPer {
				t.Errorf("permissions %v, clusterPermissions %v", p.permissions, p.clusterPermissions)
			}
			if len(p.bundled) != 0 || len(p.outside) != 0 {
				t.Errorf("the Role or its binding is also in the bundle (%d) or outside it (%d)", len(p.bundled), len(p.outside))
			}
		})
	}
}

func TestPlaceRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{{
		name: "a kind without a rule",
		yaml: "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: op-ns}\n",
		want: "no rule places a Job",
	}, {
		name: "a binding to a Role of another namespace that manifests/ do not define",
		yaml: `---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: b, namespace: elsewhere}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: unknown}
subjects:
- {kind: ServiceAccount, name: op, namespace: op-ns}
`,
		want: "add its rules to builtinRoles",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := place(docsOf(t, deployment+tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"schedulerImage":     "Scheduler Image",
		"kubeAPIServerPort":  "Kube API Server Port",
		"etcdURL":            "Etcd URL",
		"rbac":               "RBAC",
		"SecondaryScheduler": "Secondary Scheduler",
	} {
		if got := displayName(in); got != want {
			t.Errorf("displayName(%q) = %q, want %q", in, got, want)
		}
	}
}
