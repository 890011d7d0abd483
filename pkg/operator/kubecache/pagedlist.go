package kubecache

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// ListPageSize is how many whole objects a list through ListInPages holds at
// most before its transform trims them: 50 objects at the API server's limit
// of 256 KiB of annotations each are 12.5 MiB.
const ListPageSize = 50

// ListInPages is list, in pages of ListPageSize, with transform applied to
// each object as its page arrives, so that the next page is read once the
// previous one's objects are trimmed.
//
// An informer fills its cache from a watch that streams the objects one at a
// time (the watch-list), which the transform trims one at a time. When the API
// server does not serve that stream, or the stream fails, client-go's
// reflector falls back to a list, which it decodes whole before the transform
// sees any object: 2,000 objects with 250 KiB of annotations each, which any
// user who may create them in a namespace can write, are 500 MB at once. A
// list through ListInPages holds one page of whole objects and the trimmed
// rest. The transform must be safe to run again on what it returned: the
// informer runs it on every object it stores.
//
// The list is always a consistent read (resourceVersion ""): the API server
// ignores the limit of a list served from its watch cache at a given
// resourceVersion, and a consistent read is newer than any the reflector asks
// for.
func ListInPages[L runtime.Object](ctx context.Context, opts metav1.ListOptions, list func(context.Context, metav1.ListOptions) (L, error), transform cache.TransformFunc) (L, error) {
	opts.ResourceVersion, opts.ResourceVersionMatch, opts.Continue = "", "", ""
	opts.Limit = ListPageSize
	var kept []runtime.Object
	for {
		page, err := list(ctx, opts)
		if err != nil {
			return page, err
		}
		items, err := meta.ExtractList(page)
		if err != nil {
			return page, err
		}
		for _, item := range items {
			trimmed, err := transform(item)
			if err != nil {
				return page, err
			}
			obj, ok := trimmed.(runtime.Object)
			if !ok {
				return page, fmt.Errorf("the transform of %T returned %T, not an object", item, trimmed)
			}
			kept = append(kept, obj)
		}
		listMeta, err := meta.ListAccessor(page)
		if err != nil {
			return page, err
		}
		if listMeta.GetContinue() == "" {
			// Every page carries the resourceVersion of the first: the list's.
			return page, meta.SetList(page, kept)
		}
		opts.Continue = listMeta.GetContinue()
	}
}
