package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// doc is one YAML document of a manifest file: its text as written, comments
// included (the bundle carries objects in their own words), and its object.
type doc struct {
	file string // relative to the repository root
	text []byte
	obj  *unstructured.Unstructured
}

// what names the object for messages and comments.
func (d doc) what() string {
	name := d.obj.GetName()
	if ns := d.obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Sprintf("%s: %s %s", d.file, d.obj.GetKind(), name)
}

// readManifests reads every document of the *.yaml files of dirs (not their
// subdirectories, as the cluster-version operator and `kubectl apply -f` do).
func readManifests(root string, dirs ...string) ([]doc, error) {
	var docs []doc
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				return nil, err
			}
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			fileDocs, err := splitDocuments(rel, data)
			if err != nil {
				return nil, err
			}
			docs = append(docs, fileDocs...)
		}
	}
	return docs, nil
}

// splitDocuments cuts a file at its "---" lines; a document of only comments
// (or nothing) is no object and is dropped.
func splitDocuments(file string, data []byte) ([]doc, error) {
	var docs []doc
	for _, text := range bytes.Split(data, []byte("\n---\n")) {
		text = bytes.TrimPrefix(text, []byte("---\n"))
		obj := map[string]any{}
		if err := yaml.Unmarshal(text, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		if u.GetKind() == "" {
			return nil, fmt.Errorf("%s: a document without kind", file)
		}
		text = bytes.TrimSpace(text)
		docs = append(docs, doc{file: file, text: append(text, '\n'), obj: u})
	}
	return docs, nil
}

// decode reads a document into its typed object, refusing unknown fields.
func decode[T any](d doc) (*T, error) {
	typed := new(T)
	if err := yaml.UnmarshalStrict(d.text, typed); err != nil {
		return nil, fmt.Errorf("%s: %w", d.what(), err)
	}
	return typed, nil
}

// imageReferences reads the images of manifests/image-references, the
// ImageStream the release payload substitutes images by.
func imageReferences(root string) ([]relatedImage, error) {
	data, err := os.ReadFile(filepath.Join(root, "manifests", "image-references"))
	if err != nil {
		return nil, err
	}
	var stream struct {
		Kind string `json:"kind"`
		Spec struct {
			Tags []struct {
				Name string `json:"name"`
				From struct {
					Name string `json:"name"`
				} `json:"from"`
			} `json:"tags"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &stream); err != nil {
		return nil, fmt.Errorf("manifests/image-references: %w", err)
	}
	if stream.Kind != "ImageStream" || len(stream.Spec.Tags) == 0 {
		return nil, fmt.Errorf("manifests/image-references: not an ImageStream with tags")
	}
	var images []relatedImage
	for _, tag := range stream.Spec.Tags {
		images = append(images, relatedImage{Name: tag.Name, Image: tag.From.Name})
	}
	return images, nil
}

// findObject returns the one object of kind in docs; "" matches any name.
func findObject(docs []doc, kind, name string) (doc, error) {
	var found []doc
	for _, d := range docs {
		if d.obj.GetKind() == kind && (name == "" || d.obj.GetName() == name) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		var files []string
		for _, d := range found {
			files = append(files, d.file)
		}
		return doc{}, fmt.Errorf("want one %s %q, found %d (%s)", kind, name, len(found), strings.Join(files, ", "))
	}
	return found[0], nil
}
