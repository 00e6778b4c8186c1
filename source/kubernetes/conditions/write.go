package conditions

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// apply brings the conditions of obj to want, or removes them when want is
// nil, and records the outcome in w.last.
func (w *Writer) apply(ctx context.Context, obj objectKey, want *target) error {
	var res dynamic.ResourceInterface = w.client
	if obj.namespace != "" {
		res = w.client.Namespace(obj.namespace)
	}
	var found target
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := res.Get(ctx, obj.name, metav1.GetOptions{}, "status")
		if err != nil {
			return err
		}
		list, err := edit(u, want)
		if err != nil || list == nil {
			found = written(want, u)
			return err
		}
		if len(list) == 0 {
			unstructured.RemoveNestedField(u.Object, "status", "conditions")
		} else if err := unstructured.SetNestedSlice(u.Object, list, "status", "conditions"); err != nil {
			return fmt.Errorf("status.conditions: %w", err)
		}
		out, err := res.UpdateStatus(ctx, u, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		if want != nil && pruned(out, want) {
			return ErrPruned
		}
		found = written(want, u)
		return nil
	})
	switch {
	case err == nil:
		if want == nil {
			delete(w.last, obj.key)
		} else {
			w.last[obj.key] = found
		}
		return nil
	case gone(err, obj.name):
		// Remembered as done, so that a key that names no object (a
		// record held in DNS for an object deleted long ago) is not
		// looked for every cycle; it is forgotten when it gets no
		// conditions, after one more look.
		if want == nil {
			delete(w.last, obj.key)
		} else {
			w.last[obj.key] = written(want, nil)
		}
		return nil
	case errors.Is(err, ErrPruned):
		return fmt.Errorf("conditions: %s %s: %w; add status.conditions (the metav1.Condition schema) to the status of the CustomResourceDefinition: for DNSEndpoints, apply zonesync's config/crd/dnsendpoints.externaldns.k8s.io.yaml, external-dns's CRD with that field added", w.what, obj, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("conditions: %s %s: %w (the client's user needs get and update on %s/status)", w.what, obj, err, w.opts.GVR.Resource)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("conditions: %s %s: %w (is the resource served, with a status subresource?)", w.what, obj, err)
	}
	return fmt.Errorf("conditions: %s %s: %w", w.what, obj, err)
}

// gone reports whether err says that the object name does not exist, as
// opposed to its resource or status subresource.
func gone(err error, name string) bool {
	var se apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &se) {
		return false
	}
	d := se.Status().Details
	return d != nil && d.Name == name
}

// written is what the writer leaves on the object: want, with Accepted as
// the object u had it when want keeps it (none when u is nil).
func written(want *target, u *unstructured.Unstructured) target {
	if want == nil {
		return target{}
	}
	t := *want
	t.keepAccepted = false
	if want.keepAccepted {
		t.accepted = nil
		if u == nil {
			return t
		}
		if c := meta.FindStatusCondition(readConditions(u), Accepted); c != nil {
			t.accepted = &metav1.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
		}
	}
	return t
}

// edit returns the new status.conditions of u (an empty list: none), or
// nil when they already are as wanted.
func edit(u *unstructured.Unstructured, want *target) ([]any, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions")
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	var list []any
	if found && raw != nil {
		var ok bool
		if list, ok = raw.([]any); !ok {
			return nil, fmt.Errorf("status.conditions: a %T, not a list", raw)
		}
	}
	// Ours: the entries of our two types, as conditions; an entry that
	// does not read as one is replaced.
	var ours []metav1.Condition
	changed := false
	for _, item := range list {
		m, typ := entry(item)
		if !isOurs(typ) {
			continue
		}
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err != nil || meta.FindStatusCondition(ours, typ) != nil {
			changed = true
			continue
		}
		ours = append(ours, c)
	}
	if want == nil {
		changed = meta.RemoveStatusCondition(&ours, Accepted) || changed
		changed = meta.RemoveStatusCondition(&ours, Programmed) || changed
	} else {
		gen := want.gen
		if gen == 0 {
			gen = u.GetGeneration()
		}
		set := []metav1.Condition{want.programmed}
		if !want.keepAccepted && want.accepted != nil {
			set = append(set, *want.accepted)
		}
		for _, c := range set {
			c.ObservedGeneration = gen
			changed = meta.SetStatusCondition(&ours, c) || changed
		}
	}
	if !changed {
		return nil, nil
	}
	// The other entries stay as they are, where they are; ours replace
	// the first entry of their type, or are added at the end.
	out := make([]any, 0, len(list)+2)
	placed := map[string]bool{}
	put := func(typ string) error {
		c := meta.FindStatusCondition(ours, typ)
		if c == nil || placed[typ] {
			return nil
		}
		placed[typ] = true
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
		if err != nil {
			return fmt.Errorf("status.conditions[%s]: %w", typ, err)
		}
		out = append(out, m)
		return nil
	}
	for _, item := range list {
		_, typ := entry(item)
		if !isOurs(typ) {
			out = append(out, item)
			continue
		}
		if err := put(typ); err != nil {
			return nil, err
		}
	}
	for _, typ := range []string{Accepted, Programmed} {
		if err := put(typ); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// entry returns an entry of status.conditions as a map and its type ("" if
// it has none).
func entry(item any) (map[string]any, string) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, ""
	}
	typ, _ := m["type"].(string)
	return m, typ
}

func isOurs(typ string) bool { return typ == Accepted || typ == Programmed }

// readConditions returns the entries of u's status.conditions that read as
// conditions.
func readConditions(u *unstructured.Unstructured) []metav1.Condition {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []metav1.Condition
	for _, item := range list {
		m, _ := entry(item)
		var c metav1.Condition
		if m != nil && runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// pruned reports whether the object the API server returned lacks a
// condition the writer set.
func pruned(out *unstructured.Unstructured, want *target) bool {
	got := readConditions(out)
	if c := meta.FindStatusCondition(got, Programmed); c == nil || c.Reason != want.programmed.Reason {
		return true
	}
	if !want.keepAccepted && want.accepted != nil {
		if c := meta.FindStatusCondition(got, Accepted); c == nil || c.Reason != want.accepted.Reason {
			return true
		}
	}
	return false
}
