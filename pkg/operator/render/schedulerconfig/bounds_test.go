package schedulerconfig

import (
	"strings"
	"testing"
)

func TestDocumentBounds(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"too big", "# " + strings.Repeat("x", MaxDocumentBytes) + "\n", "bytes; at most 1048576 are read"},
		{"a merge key", "profiles:\n- schedulerName: a\n  plugins: &p {score: {disabled: [{name: ImageLocality}]}}\n- <<: {schedulerName: b}\n  plugins: *p\n",
			"line 3: YAML anchors and aliases"},
		{"an anchor nobody uses", "profiles:\n- &a schedulerName: a\n", "line 2: YAML anchors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, problems, err := Merge(user(tc.config))
			if err != nil || len(problems) != 1 || !strings.Contains(problems[0], tc.want) {
				t.Fatalf("Merge: %q, %v; want %q", problems, err, tc.want)
			}
		})
	}
	// Many plain values cost what their text costs, and are fine.
	many := "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: X\n    args: {v: [" + strings.TrimSuffix(strings.Repeat("1,", 100000), ",") + "]}\n"
	if _, problems, err := Merge(user(many)); err != nil || len(problems) > 0 {
		t.Errorf("100,000 plain values: %q, %v", problems, err)
	}
}
