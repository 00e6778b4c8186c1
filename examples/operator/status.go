package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/zonesync/zonesync"
)

// The operator reports the DNS state of each Service it publishes in two
// places on the Service:
//
//   - the condition DNSReady in status.conditions: True when every record of
//     the Service is applied (or already in DNS), False otherwise, with the
//     first problem as reason and message;
//   - the annotation below: the per-hostname list, one entry per record, as
//     JSON (Services have no status field for it): state "ready" when the
//     record is in DNS as desired, otherwise the zonesync.RecordState
//     (pending, skipped, rejected, failed) with its reason and message.
//
// A Service whose records are no longer desired (its hostname annotation
// was removed) loses both. Writes happen only when something changed, so a
// steady state writes nothing.
const (
	conditionDNSReady   = "DNSReady"
	recordsAnnotation   = "zonesync.example/dns-records"
	serviceResourceKind = "service"
	stateReady          = "ready"
)

// recordEntry is one element of the per-hostname list.
type recordEntry struct {
	Hostname string `json:"hostname"`
	Type     string `json:"type"`
	State    string `json:"state"`
	Reason   string `json:"reason,omitempty"`
	Message  string `json:"message,omitempty"`
}

// statusWriter writes the DNS state into the Services.
type statusWriter struct {
	client k8sclient.Interface
	// written holds the Services that got a status from us, so that one
	// no longer published can be cleared.
	written map[types.NamespacedName]bool
}

func newStatusWriter(client k8sclient.Interface) *statusWriter {
	return &statusWriter{client: client, written: map[types.NamespacedName]bool{}}
}

// write reports cycle c, the value RunOnce returned, on every Service it
// heard of ([zonesync.Cycle.ResourceStatuses]: a Service whose annotations
// the source could not read too, with the error), and clears the Services
// reported before that c no longer has or whose records it deleted. A
// cycle that failed before planning tells nothing about records and writes
// nothing.
func (w *statusWriter) write(ctx context.Context, c zonesync.Cycle) error {
	if c.Plan == nil {
		return nil
	}
	now := map[types.NamespacedName]zonesync.ResourceStatus{}
	for _, res := range c.ResourceStatuses() {
		kind, rest, _ := strings.Cut(res.Resource, "/")
		ns, name, ok := strings.Cut(rest, "/")
		if kind != serviceResourceKind || !ok || res.State == zonesync.RecordDeleted {
			continue
		}
		now[types.NamespacedName{Namespace: ns, Name: name}] = res
	}
	var errs []error
	for _, key := range slices.SortedFunc(maps.Keys(now), compareNames) {
		if err := w.update(ctx, key, now[key], true); err != nil {
			errs = append(errs, err)
			continue
		}
		w.written[key] = true
	}
	for _, key := range slices.SortedFunc(maps.Keys(w.written), compareNames) {
		if _, ok := now[key]; ok {
			continue
		}
		if err := w.update(ctx, key, zonesync.ResourceStatus{}, false); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(w.written, key)
	}
	return errors.Join(errs...)
}

func compareNames(a, b types.NamespacedName) int {
	return strings.Compare(a.String(), b.String())
}

// update writes (publish) or removes (!publish) the condition and the
// annotation of one Service. A Service that is gone is not an error.
func (w *statusWriter) update(ctx context.Context, key types.NamespacedName, res zonesync.ResourceStatus, publish bool) error {
	svcs := w.client.CoreV1().Services(key.Namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		svc, err := svcs.Get(ctx, key.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		// The annotation (metadata) first, then the condition (status
		// subresource).
		want, err := annotationValue(res, publish)
		if err != nil {
			return err
		}
		if svc.Annotations[recordsAnnotation] != want {
			svc = svc.DeepCopy()
			if want == "" {
				delete(svc.Annotations, recordsAnnotation)
			} else {
				if svc.Annotations == nil {
					svc.Annotations = map[string]string{}
				}
				svc.Annotations[recordsAnnotation] = want
			}
			if svc, err = svcs.Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		if !setCondition(svc, res, publish) {
			return nil
		}
		_, err = svcs.UpdateStatus(ctx, svc, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("writing the DNS status of Service %s: %w", key, err)
	}
	return nil
}

// annotationValue is the per-hostname list of res as JSON, "" to remove it.
func annotationValue(res zonesync.ResourceStatus, publish bool) (string, error) {
	if !publish {
		return "", nil
	}
	entries := make([]recordEntry, 0, len(res.Records))
	for _, s := range res.Records {
		// "ready" covers applied and unchanged alike, so that the list
		// does not change (and is not rewritten) on the cycle after a
		// change.
		e := recordEntry{Hostname: s.Endpoint.DNSName, Type: s.Endpoint.RecordType, State: stateReady, Reason: string(s.Reason), Message: s.Message}
		switch {
		case s.Ready():
		case s.Verification != nil && s.State == zonesync.RecordApplied:
			e.State, e.Reason, e.Message = string(s.State), "NotResolvable", string(s.Verification.Status)
		default:
			e.State = string(s.State)
		}
		entries = append(entries, e)
	}
	b, err := json.Marshal(entries)
	if err != nil {
		return "", fmt.Errorf("encoding the DNS records: %w", err)
	}
	return string(b), nil
}

// setCondition sets or removes the DNSReady condition on svc and reports
// whether it changed anything.
func setCondition(svc *corev1.Service, res zonesync.ResourceStatus, publish bool) bool {
	if !publish {
		return meta.RemoveStatusCondition(&svc.Status.Conditions, conditionDNSReady)
	}
	cond := metav1.Condition{
		Type:               conditionDNSReady,
		Status:             metav1.ConditionTrue,
		Reason:             "RecordsApplied",
		Message:            fmt.Sprintf("%d record(s) in DNS", len(res.Records)),
		ObservedGeneration: svc.Generation,
	}
	switch res.State {
	case zonesync.RecordApplied, zonesync.RecordUnchanged:
	default:
		// Invalid (an annotation the source could not read: no records at
		// all), failed, rejected, skipped or pending: the object's
		// summary names the first record in that state, or the error.
		state := string(res.State)
		cond.Status = metav1.ConditionFalse
		cond.Reason = "Record" + strings.ToUpper(state[:1]) + state[1:]
		cond.Message = res.Message
		return meta.SetStatusCondition(&svc.Status.Conditions, cond)
	}
	// Applied or unchanged: a record may still not resolve as desired.
	for _, s := range res.Records {
		if s.Ready() {
			continue
		}
		cond.Status = metav1.ConditionFalse
		// Condition reasons are CamelCase: "skipped" gives "RecordSkipped".
		state := string(s.State)
		cond.Reason = "Record" + strings.ToUpper(state[:1]) + state[1:]
		if s.Verification != nil {
			state = "applied, not resolvable yet (" + string(s.Verification.Status) + ")"
			cond.Reason = "RecordNotResolvable"
		}
		cond.Message = s.Endpoint.DNSName + " " + s.Endpoint.RecordType + ": " + state
		if s.Reason != "" {
			cond.Message += " (" + string(s.Reason) + ")"
		}
		if s.Message != "" {
			cond.Message += ": " + s.Message
		}
		break
	}
	return meta.SetStatusCondition(&svc.Status.Conditions, cond)
}
