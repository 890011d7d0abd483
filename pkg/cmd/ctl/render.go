package ctl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	yamlv3 "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	configv1 "github.com/openshift/api/config/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/clusterconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
)

type renderOptions struct {
	files       []string
	outputDir   string
	servingCert bool
}

// newRenderCommand is render: the objects the operator would apply, offline.
func newRenderCommand() *cobra.Command {
	o := &renderOptions{}
	c := &cobra.Command{
		Use:   "render -f FILE [-f FILE ...] [--output-dir DIR]",
		Short: "Print every object the operator would apply for a SecondaryScheduler, without a cluster",
		Long: `Reads YAML documents: one SecondaryScheduler, the ConfigMap its spec.schedulerConfig
names, and optionally apiservers.config.openshift.io/cluster and
schedulers.config.openshift.io/cluster, which fill spec.observedConfig as the
operator's config observer would. Prints the objects the operator applies as YAML
documents, in apply order, or writes one file per object into --output-dir.
Invalid input prints the problems, each naming its field, and exits non-zero.`,
		Args: cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			if err := o.run(c.InOrStdin(), c.OutOrStdout()); err != nil {
				printRenderError(c.ErrOrStderr(), err)
				// Like kubectl: a CLI error is a message, not the klog line
				// cli.Run would make of a returned error.
				exit(1)
			}
		},
	}
	c.Flags().StringArrayVarP(&o.files, "filename", "f", nil, "a YAML file of input objects; - reads standard input")
	c.Flags().StringVar(&o.outputDir, "output-dir", "", "write one file per object into this directory instead of standard output")
	c.Flags().BoolVar(&o.servingCert, "serving-cert", false,
		"render as on OpenShift once service-ca has issued the scheduler's serving certificate")
	return c
}

var exit = os.Exit

// printRenderError prints one problem per line, each naming its field.
func printRenderError(w io.Writer, err error) {
	var ie *render.InputError
	if errors.As(err, &ie) {
		fmt.Fprintln(w, "error: the SecondaryScheduler cannot be rendered:")
		for _, p := range ie.Problems {
			fmt.Fprintln(w, "  "+p.String())
		}
		return
	}
	fmt.Fprintln(w, "error: "+err.Error())
}

// renderInput is what the files hold.
type renderInput struct {
	scheduler  *secondaryschedulerv1.SecondaryScheduler
	configMaps []*corev1.ConfigMap
	observed   []runtime.Object // APIServer, Scheduler
}

func (o *renderOptions) run(stdin io.Reader, stdout io.Writer) error {
	in, err := readInputs(o.files, stdin)
	if err != nil {
		return err
	}
	ss := in.scheduler
	if len(in.observed) > 0 {
		if err := observe(ss, in.observed); err != nil {
			return fmt.Errorf("observing the cluster configuration: %w", err)
		}
	}
	objs, err := render.Render(render.Inputs{
		SecondaryScheduler:   ss,
		UserConfig:           in.userConfig(ss.Spec.SchedulerConfig),
		ServingCertAvailable: o.servingCert,
	})
	if err != nil {
		return err
	}
	// Print only once everything rendered: bad input leaves stdout empty.
	var docs [][]byte
	for _, obj := range objs.All() {
		b, err := render.ToYAML(obj)
		if err != nil {
			return err
		}
		docs = append(docs, b)
	}
	if o.outputDir != "" {
		return writeFiles(o.outputDir, objs.All(), docs)
	}
	var buf bytes.Buffer
	for _, d := range docs {
		buf.WriteString("---\n")
		buf.Write(d)
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}

// maxRenderInputBytes bounds one file given to render or diff: a
// SecondaryScheduler, its ConfigMaps and the cluster config objects.
const maxRenderInputBytes = 8 * schedulerconfig.MaxDocumentBytes

func (in *renderInput) readFile(name string, stdin io.Reader) error {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	// Read whole but bounded: a file is a few documents of at most
	// schedulerconfig.MaxDocumentBytes each, and reading on would cost unbounded memory.
	all, err := readBounded(r, maxRenderInputBytes)
	if err != nil {
		return err
	}
	if len(all) > maxRenderInputBytes {
		return fmt.Errorf("%s: more than %d bytes; give the SecondaryScheduler and the ConfigMaps it names", name, maxRenderInputBytes)
	}
	docs, err := documents(all)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for i, data := range docs {
		doc := i + 1
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		tree, err := schedulerconfig.CheckedTreeHead(data, checkConfigMapHead(name, doc))
		if err == nil {
			err = checkConfigMapData(tree)
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", name, doc, err)
		}
		if err := in.add(data); err != nil {
			return fmt.Errorf("%s: document %d: %w", name, doc, err)
		}
	}
	return nil
}

// readBounded reads r whole, and at most limit+1 bytes of it. A file's
// size sizes the buffer: a large input is read in one allocation, not the
// doublings of io.ReadAll, which touch three times its size.
func readBounded(r io.Reader, limit int) ([]byte, error) {
	var buf bytes.Buffer
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			buf.Grow(int(min(st.Size(), int64(limit)+1)) + bytes.MinRead)
		}
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, int64(limit)+1)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// documents splits a stream of YAML documents at its "---" lines, as
// k8s.io/apimachinery's YAMLReader does, but into slices of all: that reader
// copies a document twice, line by line into growing buffers, five times the
// bytes of a large one. As there, a separator may be followed by a comment,
// nothing else; it ends a document, or, when none is open, is the first line
// of the next.
func documents(all []byte) ([][]byte, error) {
	var docs [][]byte
	start := 0
	for off := 0; off < len(all); {
		next := len(all)
		if i := bytes.IndexByte(all[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		if rest, ok := bytes.CutPrefix(all[off:next], []byte("---")); ok {
			if t := bytes.TrimSpace(rest); len(t) > 0 && t[0] != '#' {
				return nil, fmt.Errorf("document %d: invalid YAML document separator: %s", len(docs)+1, t)
			}
			if off > start {
				docs = append(docs, all[start:off])
				start = next
			}
		}
		off = next
	}
	if len(all) > start {
		docs = append(docs, all[start:])
	}
	return docs, nil
}

// checkConfigMapData holds every value of a ConfigMap document (tree, as
// schedulerconfig.CheckedTree parsed it) to schedulerconfig.CheckDocument,
// before the document is converted and decoded: a hostile configuration is
// refused without that work, as the render's own check refuses it.
func checkConfigMapData(tree *yamlv3.Node) error {
	top := root(tree)
	if scalar(field(top, "kind")) != "ConfigMap" {
		return nil // not a ConfigMap: the strict decode names what is wrong
	}
	return checkLayers(top, false, configMapName(field(top, "metadata")))
}

// checkConfigMapHead is checkConfigMapData on the tree of a large document's
// first lines (schedulerconfig.CheckedTreeHead), for the layers written as
// literal block scalars, as kubectl and sigs.k8s.io/yaml write them: kubectl
// writes data before kind and metadata, and without it the anchor on the
// first line of a 900 KB layer costs the parse of the whole document. It
// refuses only what the whole parse refuses too: a literal block scalar's
// first bytes are the layer's own, and a v1 document that turns out not to
// be a ConfigMap is no input of render (FuzzConfigMapHead).
func checkConfigMapHead(file string, doc int) func(*yamlv3.Node) error {
	return func(head *yamlv3.Node) error {
		top := root(head)
		if kind := field(top, "kind"); kind != nil && scalar(kind) != "ConfigMap" {
			return nil
		}
		// metadata is whole when data comes after it.
		configMap := fmt.Sprintf("ConfigMap (%s, document %d)", file, doc)
		if meta, data := keyIndex(top, "metadata"), keyIndex(top, "data"); meta >= 0 && meta < data {
			configMap = configMapName(field(top, "metadata"))
		}
		return checkLayers(top, true, configMap)
	}
}

// checkLayers holds each value of the data of a v1 document (top) to
// schedulerconfig.CheckDocument; with literalOnly, only literal block scalars.
func checkLayers(top *yamlv3.Node, literalOnly bool, configMap string) error {
	data := field(top, "data")
	if scalar(field(top, "apiVersion")) != "v1" || data == nil || data.Kind != yamlv3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(data.Content); i += 2 {
		key, value := data.Content[i], data.Content[i+1]
		if value.Kind != yamlv3.ScalarNode || literalOnly && value.Style&yamlv3.LiteralStyle == 0 {
			continue // the strict decode names it, or the whole parse checks it
		}
		if err := schedulerconfig.CheckDocument([]byte(value.Value)); err != nil {
			return &render.InputError{Problems: []problem.Problem{{Source: configMap + " " + key.Value, Message: err.Error()}}}
		}
	}
	return nil
}

// configMapName is "namespace/name" of a ConfigMap's metadata, in the
// operand namespace when it names none, as render reads it.
func configMapName(meta *yamlv3.Node) string {
	name, namespace := scalar(field(meta, "name")), scalar(field(meta, "namespace"))
	if namespace == "" {
		namespace = names.OperandNamespace
	}
	return "ConfigMap " + namespace + "/" + name
}

// root is the top node of a parsed document, nil for none.
func root(tree *yamlv3.Node) *yamlv3.Node {
	if tree == nil || tree.Kind != yamlv3.DocumentNode || len(tree.Content) == 0 {
		return nil
	}
	return tree.Content[0]
}

// keyIndex is the position of the last entry of key in a mapping node, or -1.
func keyIndex(mapping *yamlv3.Node, key string) int {
	at := -1
	if mapping != nil && mapping.Kind == yamlv3.MappingNode {
		for i := 0; i+1 < len(mapping.Content); i += 2 {
			if mapping.Content[i].Value == key {
				at = i
			}
		}
	}
	return at
}

// field is the value of key in a mapping node, the last one if the key
// repeats (as a decode would take it), or nil.
func field(mapping *yamlv3.Node, key string) *yamlv3.Node {
	if i := keyIndex(mapping, key); i >= 0 {
		return mapping.Content[i+1]
	}
	return nil
}

func scalar(n *yamlv3.Node) string {
	if n == nil || n.Kind != yamlv3.ScalarNode {
		return ""
	}
	return n.Value
}

// add decodes one document strictly: a misspelt field in the CR is an error,
// as the API server's schema would make it.
func (in *renderInput) add(data []byte) error {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	// One conversion to JSON serves the kind and the strict decode: a
	// document is parsed once here, however large (up to its bound).
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(j, &tm); err != nil {
		return err
	}
	if tm.APIVersion == "" && tm.Kind == "" {
		return nil // a comment-only document
	}
	switch tm.APIVersion + " " + tm.Kind {
	case secondaryschedulerv1.SchemeGroupVersion.String() + " SecondaryScheduler":
		if in.scheduler != nil {
			return errors.New("a second SecondaryScheduler; give exactly one")
		}
		in.scheduler = &secondaryschedulerv1.SecondaryScheduler{}
		return strictJSON(j, in.scheduler)
	case "v1 ConfigMap":
		cm := &corev1.ConfigMap{}
		in.configMaps = append(in.configMaps, cm)
		return strictJSON(j, cm)
	case configv1.GroupVersion.String() + " APIServer":
		obj := &configv1.APIServer{}
		in.observed = append(in.observed, obj)
		return strictJSON(j, obj)
	case configv1.GroupVersion.String() + " Scheduler":
		obj := &configv1.Scheduler{}
		in.observed = append(in.observed, obj)
		return strictJSON(j, obj)
	}
	return fmt.Errorf("%s %s is not an input of render; give a SecondaryScheduler, ConfigMaps, "+
		"and optionally the APIServer and Scheduler config.openshift.io/v1 objects", tm.APIVersion, tm.Kind)
}

// strictJSON decodes like the API server's strict field validation, with the
// full path of an unknown field ("spec.sidecar").
func strictJSON(j []byte, into interface{}) error {
	strictErrs, err := sigsjson.UnmarshalStrict(j, into)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return utilerrors.NewAggregate(strictErrs)
}

// userConfig finds the ConfigMap spec.schedulerConfig names, in the operand
// namespace (or without a namespace, as a file often has it).
func (in *renderInput) userConfig(name string) *corev1.ConfigMap {
	for _, cm := range in.configMaps {
		if cm.Name == name && (cm.Namespace == "" || cm.Namespace == names.OperandNamespace) {
			return cm
		}
	}
	return nil
}

// observe fills spec.observedConfig from the given cluster config objects, as
// the config observer controller would.
func observe(ss *secondaryschedulerv1.SecondaryScheduler, objs []runtime.Object) error {
	existing := map[string]interface{}{}
	if raw := ss.Spec.ObservedConfig.Raw; len(raw) > 0 {
		if err := json.Unmarshal(raw, &existing); err != nil {
			return fmt.Errorf("spec.observedConfig: %w", err)
		}
	}
	observed, err := clusterconfig.ObserveObjects(existing, objs...)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(observed)
	if err != nil {
		return err
	}
	ss.Spec.ObservedConfig.Raw = raw
	ss.Spec.ObservedConfig.Object = nil
	return nil
}

func writeFiles(dir string, objs []runtime.Object, docs [][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, obj := range objs {
		kind := strings.ToLower(obj.GetObjectKind().GroupVersionKind().Kind)
		name := ""
		if m, ok := obj.(interface{ GetName() string }); ok {
			name = m.GetName()
		}
		file := filepath.Join(dir, fmt.Sprintf("%02d-%s-%s.yaml", i, kind, name))
		if err := os.WriteFile(file, docs[i], 0o644); err != nil {
			return err
		}
	}
	return nil
}
