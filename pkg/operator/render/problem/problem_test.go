package problem

import (
	"reflect"
	"testing"
)

func TestList(t *testing.T) {
	var p List
	if p.Strings() != nil || p.Len() != 0 {
		t.Fatalf("empty list: %q", p.Strings())
	}
	p.Addf("ConfigMap ns/a config.yaml", Index("profiles", 1)+".schedulerName", "duplicate %q", "foo")
	p.Addf("SecondaryScheduler cluster", "", "no path")
	p.Addf("", JoinPath(JoinPath("args", "[2]"), "name"), "no source")
	p.Add(Problem{Message: "worded: elsewhere"})
	p.AddAbout(Subject{Field: "profiles[0].plugins.score", Plugin: "NodeName"}, "merged scheduler configuration", "profiles[0].plugins.score", "does not score")
	want := []string{
		`ConfigMap ns/a config.yaml: profiles[1].schedulerName: duplicate "foo"`,
		"SecondaryScheduler cluster: no path",
		"args[2].name: no source",
		"worded: elsewhere",
		"merged scheduler configuration: profiles[0].plugins.score: does not score",
	}
	got := p.Strings()
	if !reflect.DeepEqual(got, want) || p.Len() != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if s := p.Problems()[4].Subject.String(); s != "plugin NodeName at profiles[0].plugins.score" {
		t.Errorf("subject %q", s)
	}
	if p.Problems()[0].Subject != (Subject{}) {
		t.Errorf("Addf set a subject: %v", p.Problems()[0].Subject)
	}
	got[0] = "changed"
	if p.Strings()[0] != want[0] {
		t.Error("Strings aliases the list")
	}
}
