package kubetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// CRDResource is the resource of CustomResourceDefinitions.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

var namespaceResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// Dynamic returns an admin dynamic client.
func (e *Env) Dynamic(t testing.TB) dynamic.Interface {
	t.Helper()
	c, err := dynamic.NewForConfig(e.Config())
	if err != nil {
		t.Fatalf("kubetest: dynamic client: %v", err)
	}
	return c
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// Namespace creates a namespace of its own for the test, named after it,
// and deletes it when the test ends (without a namespace controller it
// stays Terminating; its objects are not deleted, and no later test uses
// the name).
func (e *Env) Namespace(t testing.TB) string {
	t.Helper()
	base := strings.Trim(nonName.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	suffix := "-" + strconv.FormatInt(e.nsCounter.Add(1), 10)
	if max := 63 - len(suffix); len(base) > max {
		base = strings.Trim(base[:max], "-")
	}
	name := base + suffix
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Namespace",
		"metadata":   map[string]any{"name": name},
	}}
	c := e.Dynamic(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Resource(namespaceResource).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kubetest: creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Resource(namespaceResource).Delete(ctx, name, metav1.DeleteOptions{})
	})
	return name
}

// InstallCRDs creates (or updates) the CustomResourceDefinitions in the
// YAML documents (several per document separated by ---, or JSON) and
// waits until each is established and its resources are served. It fails
// the test on a document that is not a CustomResourceDefinition.
func (e *Env) InstallCRDs(t testing.TB, docs ...[]byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := e.installCRDs(ctx, e.Dynamic(t), docs); err != nil {
		t.Fatal(err)
	}
}

func (e *Env) installCRDs(ctx context.Context, c dynamic.Interface, docs [][]byte) error {
	e.installMu.Lock()
	defer e.installMu.Unlock()
	crds, err := decodeCRDs(docs)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if err := applyCRD(ctx, c, crd); err != nil {
			return err
		}
	}
	for _, crd := range crds {
		if err := waitServed(ctx, c, crd); err != nil {
			return err
		}
	}
	return nil
}

// decodeCRDs reads every non-empty document.
func decodeCRDs(docs [][]byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for i, doc := range docs {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(doc), 4096)
		for n := 0; ; n++ {
			var obj map[string]any
			if err := dec.Decode(&obj); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("kubetest: CRD document %d, object %d: %w", i, n, err)
			}
			if len(obj) == 0 {
				continue
			}
			u := &unstructured.Unstructured{Object: obj}
			if u.GetKind() != "CustomResourceDefinition" || u.GroupVersionKind().Group != crdResource.Group {
				return nil, fmt.Errorf("kubetest: CRD document %d, object %d: %s %q is not an %s CustomResourceDefinition",
					i, n, u.GetKind(), u.GetName(), crdResource.Group)
			}
			out = append(out, u)
		}
	}
	return out, nil
}

func applyCRD(ctx context.Context, c dynamic.Interface, crd *unstructured.Unstructured) error {
	r := c.Resource(crdResource)
	_, err := r.Create(ctx, crd, metav1.CreateOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("kubetest: creating CRD %s: %w", crd.GetName(), err)
	}
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cur, err := r.Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("kubetest: reading CRD %s: %w", crd.GetName(), err)
		}
		upd := crd.DeepCopy()
		upd.SetResourceVersion(cur.GetResourceVersion())
		if _, err := r.Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) {
				return false, nil
			}
			return false, fmt.Errorf("kubetest: updating CRD %s: %w", crd.GetName(), err)
		}
		return true, nil
	})
}

// waitServed waits until the CRD is Established and a list of each served
// version answers.
func waitServed(ctx context.Context, c dynamic.Interface, crd *unstructured.Unstructured) error {
	name := crd.GetName()
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var last error
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cur, err := c.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err
			return false, nil
		}
		if !established(cur) {
			last = errors.New("not Established yet")
			return false, nil
		}
		for _, v := range versions {
			vm, _ := v.(map[string]any)
			version, _ := vm["name"].(string)
			if served, ok := vm["served"].(bool); ok && !served {
				continue
			}
			gvr := schema.GroupVersionResource{Group: group, Version: version, Resource: plural}
			if _, err := c.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
				last = fmt.Errorf("listing %s: %w", gvr, err)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("kubetest: CRD %s not served: %w (last: %v)", name, err, last)
	}
	return nil
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		if cm["type"] == "Established" && cm["status"] == "True" {
			return true
		}
	}
	return false
}
