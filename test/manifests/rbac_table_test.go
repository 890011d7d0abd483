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
	operandRulesHeading    = "## What the scheduler pod holds"
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
	return objectsIn(t, "../../manifests/*.yaml", "../../manifests/optional/*.yaml")
}

// objectsIn reads every document of the files the patterns match.
func objectsIn(t *testing.T, patterns ...string) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for _, pattern := range patterns {
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
	return grantsTo(t, manifestObjects(t), operatorNamespace, operatorServiceAccount)
}

// grantsTo returns the rules objs grant ServiceAccount namespace/name, and
// the roles bound to it that objs do not define ("namespace/name").
func grantsTo(t *testing.T, objs []map[string]any, saNamespace, saName string) (map[grantedRule]bool, map[string]bool) {
	t.Helper()
	roles := map[string][]rbacv1.PolicyRule{} // "Kind/namespace/name"
	type binding struct {
		namespace string
		ref       rbacv1.RoleRef
		subjects  []rbacv1.Subject
	}
	var bindings []binding
	for _, obj := range objs {
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
			return s.Kind == "ServiceAccount" && s.Namespace == saNamespace && s.Name == saName
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

// documentedGrants reads the two tables under heading in docs/security.md.
// With neededByFiles, every "Needed by" cell must name at least one file of
// the repository; every file a cell names must exist.
func documentedGrants(t *testing.T, heading string, neededByFiles bool) (map[grantedRule]bool, map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(securityDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q section", securityDoc, heading)
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
		if neededByFiles && files == 0 && !strings.Contains(neededBy, "the same") {
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
	documented, documentedExternal := documentedGrants(t, rulesHeading, true)
	if len(granted) == 0 {
		t.Fatal("no rule is bound to the operator's ServiceAccount: the manifests were not read")
	}
	compareGrants(t, "the operator", granted, grantedExternal, documented, documentedExternal)
}

// compareGrants fails on a rule or binding granted to who that the table
// lacks, and on one the table lists that nothing grants.
func compareGrants(t *testing.T, who string, granted map[grantedRule]bool, grantedExternal map[string]bool,
	documented map[grantedRule]bool, documentedExternal map[string]bool) {
	t.Helper()
	for _, r := range missingFrom(granted, documented) {
		t.Errorf("%s is granted a rule %s does not list: %+v", who, securityDoc, r)
	}
	for _, r := range missingFrom(documented, granted) {
		t.Errorf("%s lists a rule nothing grants %s: %+v", securityDoc, who, r)
	}
	for _, r := range missingFrom(grantedExternal, documentedExternal) {
		t.Errorf("%s is bound to %s, which %s does not list", who, r, securityDoc)
	}
	for _, r := range missingFrom(documentedExternal, grantedExternal) {
		t.Errorf("%s lists a binding of %s to %s that nothing makes", securityDoc, who, r)
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

// TestEveryOperandRuleIsDocumented holds the table of what the scheduler pod's
// ServiceAccount holds to what manifests/ and the operator's assets grant it
// (spec.rbac aside: that is the user's, capped by the grantable ClusterRole).
func TestEveryOperandRuleIsDocumented(t *testing.T) {
	objs := append(manifestObjects(t), objectsIn(t, "../../bindata/assets/secondary-scheduler/*.yaml")...)
	granted, grantedExternal := grantsTo(t, objs, "openshift-secondary-scheduler", "secondary-scheduler")
	documented, documentedExternal := documentedGrants(t, operandRulesHeading, false)
	if len(granted) < 10 {
		t.Fatalf("only %d rules are bound to the scheduler's ServiceAccount: the assets were not read", len(granted))
	}
	compareGrants(t, "the scheduler's ServiceAccount", granted, grantedExternal, documented, documentedExternal)
}
