// Package manifests checks manifests/ against the documents that describe them.
package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const (
	operatorNamespace      = "openshift-secondary-scheduler-operator"
	operatorServiceAccount = "secondary-scheduler-operator"
	securityDoc            = "../../docs/security.md"
	rulesHeading           = "## What the operator holds"
)

// grantedRule is one rule of a Role or ClusterRole bound to the operator, in
// the namespace it applies to ("" for cluster-wide), with sorted lists.
type grantedRule struct {
	role, namespace                         string
	groups, resources, verbs, resourceNames string
}

func ruleOf(role, namespace string, r rbacv1.PolicyRule) grantedRule {
	join := func(s []string) string {
		s = slices.Clone(s)
		slices.Sort(s)
		return strings.Join(s, ",")
	}
	return grantedRule{role: role, namespace: namespace, groups: join(r.APIGroups), resources: join(r.Resources),
		verbs: join(r.Verbs), resourceNames: join(r.ResourceNames)}
}

// manifestObjects reads every document of manifests/ (and manifests/optional).
func manifestObjects(t *testing.T) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for _, pattern := range []string{"../../manifests/*.yaml", "../../manifests/optional/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
			for {
				doc, err := reader.Read()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				var obj map[string]any
				if err := yaml.Unmarshal(doc, &obj); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if obj != nil {
					docs = append(docs, obj)
				}
			}
		}
	}
	return docs
}

func decode[T any](t *testing.T, obj map[string]any) T {
	t.Helper()
	var out T
	data, err := yaml.Marshal(obj)
	if err == nil {
		err = yaml.Unmarshal(data, &out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// operatorGrants returns the rules manifests/ grant the operator's ServiceAccount,
// and the roles bound to it that manifests/ do not define ("namespace/name").
func operatorGrants(t *testing.T) (map[grantedRule]bool, map[string]bool) {
	t.Helper()
	roles := map[string][]rbacv1.PolicyRule{} // "Kind/namespace/name"
	type binding struct {
		namespace string
		ref       rbacv1.RoleRef
		subjects  []rbacv1.Subject
	}
	var bindings []binding
	for _, obj := range manifestObjects(t) {
		switch obj["kind"] {
		case "ClusterRole":
			r := decode[rbacv1.ClusterRole](t, obj)
			roles["ClusterRole//"+r.Name] = r.Rules
		case "Role":
			r := decode[rbacv1.Role](t, obj)
			roles["Role/"+r.Namespace+"/"+r.Name] = r.Rules
		case "ClusterRoleBinding":
			b := decode[rbacv1.ClusterRoleBinding](t, obj)
			bindings = append(bindings, binding{ref: b.RoleRef, subjects: b.Subjects})
		case "RoleBinding":
			b := decode[rbacv1.RoleBinding](t, obj)
			bindings = append(bindings, binding{namespace: b.Namespace, ref: b.RoleRef, subjects: b.Subjects})
		}
	}
	rules, external := map[grantedRule]bool{}, map[string]bool{}
	for _, b := range bindings {
		if !slices.ContainsFunc(b.subjects, func(s rbacv1.Subject) bool {
			return s.Kind == "ServiceAccount" && s.Namespace == operatorNamespace && s.Name == operatorServiceAccount
		}) {
			continue
		}
		key := b.ref.Kind + "/" + b.namespace + "/" + b.ref.Name
		if b.ref.Kind == "ClusterRole" {
			key = "ClusterRole//" + b.ref.Name
		}
		defined, ok := roles[key]
		if !ok {
			external[b.namespace+"/"+b.ref.Name] = true
			continue
		}
		for _, r := range defined {
			rules[ruleOf(b.ref.Name, b.namespace, r)] = true
		}
	}
	return rules, external
}

var backticked = regexp.MustCompile("`([^`]+)`")

// documentedGrants reads the two tables under rulesHeading in docs/security.md.
// Every "Needed by" cell must name at least one file of the repository, and
// every file it names must exist.
func documentedGrants(t *testing.T) (map[grantedRule]bool, map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(securityDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), rulesHeading+"\n")
	if !ok {
		t.Fatalf("%s has no %q section", securityDoc, rulesHeading)
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	unquote := func(s string) string { return strings.Trim(strings.TrimSpace(s), "`") }
	list := func(cell string) []string {
		var out []string
		for _, v := range strings.Split(cell, ",") {
			v = unquote(v)
			if v == `""` {
				v = ""
			}
			out = append(out, v)
		}
		if strings.TrimSpace(cell) == "" {
			return nil
		}
		return out
	}
	rules, external := map[grantedRule]bool{}, map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		neededBy := cells[len(cells)-1]
		files := 0
		for _, m := range backticked.FindAllStringSubmatch(neededBy, -1) {
			if !strings.Contains(m[1], "/") || strings.HasPrefix(m[1], "/") || strings.Contains(m[1], " ") {
				continue
			}
			files++
			if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
				t.Errorf("%s names %s, which does not exist: %q", securityDoc, m[1], line)
			}
		}
		if files == 0 && !strings.Contains(neededBy, "the same") {
			t.Errorf("%s: the rule names no code that needs it: %q", securityDoc, line)
		}
		switch len(cells) {
		case 7:
			rules[ruleOf(unquote(cells[0]), unquote(cells[1]), rbacv1.PolicyRule{
				APIGroups: list(cells[2]), Resources: list(cells[3]), Verbs: list(cells[4]), ResourceNames: list(cells[5]),
			})] = true
		case 3:
			external[unquote(cells[1])+"/"+unquote(cells[0])] = true
		default:
			t.Errorf("%s: a row of %d cells: %q", securityDoc, len(cells), line)
		}
	}
	return rules, external
}

// TestEveryOperatorRuleIsDocumented: a rule granted to the operator that
// docs/security.md does not list fails, and so does a listed rule nothing grants.
func TestEveryOperatorRuleIsDocumented(t *testing.T) {
	granted, grantedExternal := operatorGrants(t)
	documented, documentedExternal := documentedGrants(t)
	if len(granted) == 0 {
		t.Fatal("no rule is bound to the operator's ServiceAccount: the manifests were not read")
	}
	for _, r := range missingFrom(granted, documented) {
		t.Errorf("manifests/ grant the operator a rule %s does not list: %+v", securityDoc, r)
	}
	for _, r := range missingFrom(documented, granted) {
		t.Errorf("%s lists a rule no manifest grants the operator: %+v", securityDoc, r)
	}
	for _, r := range missingFrom(grantedExternal, documentedExternal) {
		t.Errorf("manifests/ bind the operator to %s, which %s does not list", r, securityDoc)
	}
	for _, r := range missingFrom(documentedExternal, grantedExternal) {
		t.Errorf("%s lists a binding to %s that no manifest makes", securityDoc, r)
	}
}

// missingFrom lists the keys of have that want lacks.
func missingFrom[K comparable](have, want map[K]bool) []K {
	var out []K
	for k := range have {
		if !want[k] {
			out = append(out, k)
		}
	}
	return out
}
