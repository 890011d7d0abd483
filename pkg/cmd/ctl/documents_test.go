package ctl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// FuzzDocuments holds documents to k8s.io/apimachinery's YAMLReader, which it
// replaces: the same documents (up to the line endings that reader
// rewrites) and an error for the same inputs. The seeds run with go test.
func FuzzDocuments(f *testing.F) {
	for _, seed := range []string{
		"",
		"a: 1\n",
		"a: 1",
		"---\na: 1\n---\nb: 2\n",
		"a: 1\n---\n---\n\n---\nb: 2\n---\n",
		"--- # comment\na: 1\n---   \nb: 2",
		"a: 1\r\n---\r\nb: 2\r\n",
		"--- a: 1\n",
		"a: 1\n----\nb: 2\n",
		"a: 1\n ---\nb: 2\n",
		"a: |\n  ---\n  x\n",
		"---\n",
		"---",
		"\n\n",
		"# only a comment\n---\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		got, err := documents([]byte(input))
		want, wantErr := referenceDocuments(input)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, YAMLReader's %v", input, err, wantErr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d documents %q, YAMLReader's %d %q", input, len(got), got, len(want), want)
		}
		for i := range got {
			if normalized := lineEndings(got[i]); !bytes.Equal(normalized, want[i]) {
				t.Errorf("%q: document %d is %q, YAMLReader's %q", input, i+1, normalized, want[i])
			}
		}
	})
}

func referenceDocuments(input string) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader([]byte(input))))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, bytes.Clone(doc))
	}
}

// lineEndings is doc as YAMLReader returns it: every line ends in "\n", "\r\n" included.
func lineEndings(doc []byte) []byte {
	out := bytes.ReplaceAll(doc, []byte("\r\n"), []byte("\n"))
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}
