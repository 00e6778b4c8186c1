package crd

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// Condition messages.
const (
	msgAccepted   = "accepted by zonesync; not yet applied to the DNS provider"
	msgProgrammed = "applied to the DNS provider"
	msgFound      = "the DNS provider holds the record set"
	msgFailed     = "the DNS provider refused the change: "
)

// ApplyChanges applies changes to the provider and keeps the DNSRecord
// objects in step, in this order (see the package documentation):
//
//  1. Changes are checked first: when an update (its UpdateOld record) or
//     a delete concerns a record whose owner label is not [Config.OwnerID],
//     nothing is applied and the error, which matches
//     [registry.ErrNotOwned], names every such record.
//  2. Intent: the DNSRecord of every create is created (an existing one of
//     ours is reused, its spec refreshed) and that of every update
//     rewritten, with the record set's previous data in
//     [PreviousEndpointAnnotation]; both get Ready=False, reason Accepted.
//     A create or update whose DNSRecord cannot be written is not sent to
//     the provider (the error names the record and the DNSRecord).
//  3. The provider applies the changes, in one call per zone when it lists
//     its zones ([provider.ZoneLister]); a zone that fails does not stop
//     the others, and the error joins one [*provider.ZoneError] per failed
//     zone.
//  4. Outcome: the DNSRecords of applied creates and updates get
//     Ready=True, reason Programmed; the others Ready=False, reason Failed,
//     with the provider's error.
//  5. The DNSRecords of applied deletes are deleted.
//  6. Repairs found by the last Records call that the changes leave
//     standing are made ([Registry.PendingRepairs]).
//
// Status writes that fail are logged and fail nothing: the next read heals
// them. Failures after the provider applied its changes (a DNSRecord that
// could not be deleted, a repair) come back as a soft error
// ([provider.SoftError]). changes and its endpoints are not modified;
// changes may be empty, or nil, to make the repairs alone.
func (r *Registry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil {
		changes = &plan.Changes{}
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		return fmt.Errorf("crd registry: %d UpdateOld and %d UpdateNew records: updates must come in pairs",
			len(changes.UpdateOld), len(changes.UpdateNew))
	}
	if err := r.checkOwned(changes); err != nil {
		return err
	}
	if _, err := r.runningCache(); err != nil {
		return err
	}
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	r.mu.Lock()
	st := r.state
	r.mu.Unlock()

	a := &applier{r: r, log: logr.FromContextOrDiscard(ctx), st: st,
		touched: map[string]bool{}, written: map[string]*pendingWrite{}}
	a.recordIntents(ctx, changes)
	providerErr := a.applyToProvider(ctx)
	a.recordOutcomes(ctx)
	a.removeDeleted(ctx)
	a.repair(ctx)
	r.finish(a)

	var errs []error
	if providerErr != nil {
		errs = append(errs, fmt.Errorf("crd registry: applying changes: %w", providerErr))
	}
	if len(a.skipped) > 0 {
		errs = append(errs, fmt.Errorf("crd registry: %w", errors.Join(a.skipped...)))
	}
	if len(a.after) > 0 {
		errs = append(errs, provider.NewSoftError(fmt.Errorf("crd registry: %w", errors.Join(a.after...))))
	}
	return errors.Join(errs...)
}

// checkOwned refuses changes that update or delete records the registry
// does not own: the error names every such record with its owner label and
// matches [registry.ErrNotOwned].
func (r *Registry) checkOwned(changes *plan.Changes) error {
	var errs []error
	check := func(action string, ep *endpoint.Endpoint) {
		if ep != nil && !ep.IsOwnedBy(r.cfg.OwnerID) {
			owner, _ := ep.Labels.Get(endpoint.OwnerLabelKey)
			errs = append(errs, fmt.Errorf("%s %s (owner %q): %w", action, ep.Key(), owner, registry.ErrNotOwned))
		}
	}
	for i, ep := range changes.UpdateOld {
		if changes.UpdateNew[i] != nil {
			check("update", ep)
		}
	}
	for _, ep := range changes.Delete {
		check("delete", ep)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("crd registry: nothing applied: %d change(s) of records not owned by %q: %w",
		len(errs), r.cfg.OwnerID, errors.Join(errs...))
}

// finish updates what the registry remembers after an ApplyChanges: the
// last read no longer describes the zone, the objects written are no
// longer stale, and the writes are waited for by the next read.
func (r *Registry) finish(a *applier) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gen++
	r.state = nil
	if len(r.stale) > 0 && len(a.touched) > 0 {
		stale := maps.Clone(r.stale) // Records may hold the old map
		for name := range a.touched {
			delete(stale, name)
		}
		r.stale = stale
	}
	objs := map[string]*pendingWrite{}
	if r.pending != nil {
		maps.Copy(objs, r.pending.objects)
	}
	for name, w := range a.written {
		if !w.gone && w.last == "" {
			// A client that keeps no resource versions (a fake): the
			// cache cannot be told apart from what was written.
			delete(objs, name)
			continue
		}
		objs[name] = w
	}
	r.pending = nil
	if len(objs) > 0 {
		r.pending = &writes{objects: objs}
	}
}

// applier is the work of one ApplyChanges.
type applier struct {
	r   *Registry
	log logr.Logger
	st  *readState // of the last read; nil: none

	items   []*item
	touched map[string]bool          // DNSRecords this call wrote or tried to
	written map[string]*pendingWrite // what it wrote, for the next read
	skipped []error                  // changes not applied: their DNSRecord could not be written
	after   []error                  // failures after the provider applied its changes
}

// item is one change and its DNSRecord.
type item struct {
	action string             // "create", "update" or "delete"
	rec    *endpoint.Endpoint // sent to the provider (for an update, the new record)
	old    *endpoint.Endpoint // an update's old record
	name   string             // the DNSRecord
	obj    *unstructured.Unstructured
	err    error // the provider's error; nil when applied
}

func (a *applier) ref(name string) string { return ref(a.r.cfg.Namespace, name) }

// objectName returns the name of the DNSRecord of rec: the one that
// claimed it at the last read, or the one named after it.
func (a *applier) objectName(rec *endpoint.Endpoint) string {
	if a.st != nil {
		if name, ok := a.st.claimedBy[recordKey(rec)]; ok {
			return name
		}
	}
	return ObjectName(rec.DNSName, rec.RecordType, rec.SetIdentifier)
}

// recordIntents writes the DNSRecords of the creates and updates, marked
// Accepted, and lists every change whose DNSRecord is written, and every
// delete, as an item.
func (a *applier) recordIntents(ctx context.Context, changes *plan.Changes) {
	owner := a.r.cfg.OwnerID
	for _, ep := range changes.Create {
		if ep == nil {
			continue
		}
		rec := ep.DeepCopy()
		rec.DNSName = endpoint.ToALabel(rec.DNSName)
		rec.Labels.Set(endpoint.OwnerLabelKey, owner)
		name := ObjectName(rec.DNSName, rec.RecordType, rec.SetIdentifier)
		a.touched[name] = true
		obj, err := a.ensureCreated(ctx, name, rec)
		if err != nil {
			a.skipped = append(a.skipped, fmt.Errorf("create %s not applied: %w", rec.Key(), err))
			a.log.Error(err, "not creating a record whose DNSRecord cannot be written", "record", rec.Key().String(), "dnsRecord", a.ref(name))
			continue
		}
		a.items = append(a.items, &item{action: "create", rec: rec, name: name, obj: obj})
	}
	for i, oldEp := range changes.UpdateOld {
		newEp := changes.UpdateNew[i]
		if oldEp == nil || newEp == nil {
			continue
		}
		old, rec := oldEp.DeepCopy(), newEp.DeepCopy()
		rec.Labels.Set(endpoint.OwnerLabelKey, owner)
		name := a.objectName(old)
		a.touched[name] = true
		var obj *unstructured.Unstructured
		err := fmt.Errorf("the update changes the record set's identity (name, type or set identifier): delete and create instead")
		if recordKey(old) == recordKey(rec) {
			obj, err = a.write(ctx, name, rec, old)
		}
		if err != nil {
			a.skipped = append(a.skipped, fmt.Errorf("update %s not applied: %w", rec.Key(), err))
			a.log.Error(err, "not updating a record whose DNSRecord cannot be written", "record", rec.Key().String(), "dnsRecord", a.ref(name))
			continue
		}
		a.items = append(a.items, &item{action: "update", rec: rec, old: old, name: name, obj: obj})
	}
	for _, ep := range changes.Delete {
		if ep == nil {
			continue
		}
		rec := ep.DeepCopy()
		name := a.objectName(rec)
		a.touched[name] = true
		a.items = append(a.items, &item{action: "delete", rec: rec, name: name})
	}
	for _, it := range a.items {
		if it.obj != nil {
			a.setStatus(ctx, it, ReasonAccepted, msgAccepted)
		}
	}
}

// ensureCreated creates the DNSRecord name recording rec, or, when it
// exists, rewrites its spec (see write).
func (a *applier) ensureCreated(ctx context.Context, name string, rec *endpoint.Endpoint) (*unstructured.Unstructured, error) {
	u, err := newObject(a.r.cfg.Namespace, name, a.r.cfg.OwnerID, rec)
	if err != nil {
		return nil, err
	}
	created, err := a.r.client.Create(ctx, u, metav1.CreateOptions{})
	if err == nil {
		a.wrote(name, "", created)
		return created, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, a.apiError(err, "creating", name)
	}
	a.log.V(1).Info("reusing an existing DNSRecord", "record", rec.Key().String(), "dnsRecord", a.ref(name))
	return a.write(ctx, name, rec, nil)
}

// errForeign is returned for a DNSRecord the registry may not write.
var errForeign = errors.New("the DNSRecord is not ours")

// write makes the DNSRecord name record rec, with prev (nil: none) in the
// PreviousEndpointAnnotation: it reads the object from the API server and
// rewrites its spec, or creates it when it does not exist. It refuses an
// object of another owner, or one recording another record set.
func (a *applier) write(ctx context.Context, name string, rec, prev *endpoint.Endpoint) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := a.r.client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			u, err := newObject(a.r.cfg.Namespace, name, a.r.cfg.OwnerID, rec)
			if err != nil {
				return err
			}
			if err := setPrevious(u, prev); err != nil {
				return err
			}
			created, err := a.r.client.Create(ctx, u, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				// Created meanwhile: read it again.
				return apierrors.NewConflict(GroupVersionResource().GroupResource(), name, err)
			}
			if err != nil {
				return a.apiError(err, "creating", name)
			}
			a.wrote(name, "", created)
			out = created
			return nil
		}
		if err != nil {
			return a.apiError(err, "reading", name)
		}
		if owner := ownerOf(cur); owner != a.r.cfg.OwnerID {
			return fmt.Errorf("%w: DNSRecord %s belongs to owner %q (%s label): give each owner id its own namespace (Config.Namespace)",
				errForeign, a.ref(name), owner, OwnerLabel)
		}
		if spec, err := specEndpoint(cur); err == nil && !sameIdentity(spec, rec) {
			return fmt.Errorf("%w: DNSRecord %s records %s, not %s", errForeign, a.ref(name), spec.Key(), rec.Key())
		}
		before := cur.GetResourceVersion()
		if err := setSpecEndpoint(cur, rec); err != nil {
			return err
		}
		if err := setPrevious(cur, prev); err != nil {
			return err
		}
		upd, err := a.r.client.Update(ctx, cur, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			return err
		}
		if err != nil {
			return a.apiError(err, "updating", name)
		}
		a.wrote(name, before, upd)
		out = upd
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// apiError names the DNSRecord and, for a Forbidden answer, says what the
// ServiceAccount needs.
func (a *applier) apiError(err error, verb, name string) error {
	if e := accessError(err, verb, a.r.cfg.Namespace); e != nil {
		return fmt.Errorf("DNSRecord %s: %w", a.ref(name), e)
	}
	return fmt.Errorf("%s DNSRecord %s: %w", verb, a.ref(name), err)
}

// wrote remembers that the object name, at resource version before ("":
// it did not exist), was written and became obj.
func (a *applier) wrote(name, before string, obj *unstructured.Unstructured) {
	w := a.pendingWrite(name, before)
	w.last, w.gone = obj.GetResourceVersion(), false
}

// deleted remembers that the object name, at resource version before, was
// deleted.
func (a *applier) deleted(name, before string) {
	w := a.pendingWrite(name, before)
	w.last, w.gone = "", true
}

func (a *applier) pendingWrite(name, before string) *pendingWrite {
	w := a.written[name]
	if w == nil {
		w = &pendingWrite{}
		a.written[name] = w
	}
	for _, rv := range []string{before, w.last} {
		if rv != "" {
			w.older = append(w.older, rv)
		}
	}
	return w
}

// setStatus sets the Ready condition of the item's DNSRecord through the
// status subresource. A failure is logged: the next read heals it.
func (a *applier) setStatus(ctx context.Context, it *item, reason, message string) {
	obj, err := a.updateStatus(ctx, it.name, it.obj, reason, message)
	if err != nil {
		a.log.Error(err, "writing the status of a DNSRecord failed; the next read heals it",
			"record", it.rec.Key().String(), "dnsRecord", a.ref(it.name), "reason", reason)
		return
	}
	it.obj = obj
}

// updateStatus writes the Ready condition of obj, the DNSRecord name as
// last written (nil: read it), and returns the object as written. On a
// conflict it reads the object again.
func (a *applier) updateStatus(ctx context.Context, name string, obj *unstructured.Unstructured, reason, message string) (*unstructured.Unstructured, error) {
	out := obj
	first := true
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := obj
		if !first || cur == nil {
			var err error
			if cur, err = a.r.client.Get(ctx, name, metav1.GetOptions{}); err != nil {
				return a.apiError(err, "reading", name)
			}
			if owner := ownerOf(cur); owner != a.r.cfg.OwnerID {
				return fmt.Errorf("%w: DNSRecord %s belongs to owner %q", errForeign, a.ref(name), owner)
			}
		}
		first = false
		cur = cur.DeepCopy()
		before := cur.GetResourceVersion()
		changed, err := setReady(cur, reason, message, a.r.cfg.Clock.Now())
		if err != nil || !changed {
			out = cur
			return err
		}
		upd, err := a.r.client.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			return err
		}
		if err != nil {
			return a.apiError(err, "updating the status of", name)
		}
		a.wrote(name, before, upd)
		out = upd
		return nil
	})
	return out, err
}

// applyToProvider hands the items to the provider: in one call, or, when
// the provider lists its zones, in one call per zone, in zone order. Each
// item gets the error of its call (for a rejected change, its rejection).
func (a *applier) applyToProvider(ctx context.Context) error {
	out := &plan.Changes{}
	of := map[*endpoint.Endpoint]*item{}
	for _, it := range a.items {
		of[it.rec] = it
		switch it.action {
		case "create":
			out.Create = append(out.Create, it.rec)
		case "update":
			out.UpdateOld = append(out.UpdateOld, it.old)
			out.UpdateNew = append(out.UpdateNew, it.rec)
		case "delete":
			out.Delete = append(out.Delete, it.rec)
		}
	}
	if len(a.items) == 0 {
		return nil
	}
	fail := func(c *plan.Changes, err error) {
		rejected := provider.Rejected(err)
		for _, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateNew, c.Delete} {
			for _, ep := range list {
				it := of[ep]
				if it == nil {
					continue
				}
				it.err = err
				for _, rj := range rejected {
					if rj.Endpoint != nil && recordKey(rj.Endpoint) == recordKey(ep) && rj.Reason != nil {
						it.err = rj.Reason
					}
				}
			}
		}
	}
	zones, ok, err := provider.ZonesOf(ctx, a.r.provider)
	if err != nil {
		fail(out, err)
		return err
	}
	if !ok {
		if err := a.r.provider.ApplyChanges(ctx, out); err != nil {
			fail(out, err)
			return err
		}
		return nil
	}
	names, parts := provider.SplitByZone(out, provider.NewZoneMatcher(zones...))
	var errs []error
	for _, zone := range names {
		err := ctx.Err()
		if err == nil {
			err = a.r.provider.ApplyChanges(ctx, parts[zone])
		}
		if err != nil {
			ze := &provider.ZoneError{Zone: zone, Err: err}
			fail(parts[zone], ze)
			errs = append(errs, ze)
		}
	}
	return errors.Join(errs...)
}

// recordOutcomes marks the DNSRecords of the creates and updates
// Programmed, or Failed with the provider's error.
func (a *applier) recordOutcomes(ctx context.Context) {
	for _, it := range a.items {
		if it.obj == nil {
			continue
		}
		if it.err == nil {
			a.setStatus(ctx, it, ReasonProgrammed, msgProgrammed)
		} else {
			a.setStatus(ctx, it, ReasonFailed, msgFailed+it.err.Error())
		}
	}
}

// removeDeleted deletes the DNSRecords of the deletes the provider applied.
// One that is missing is fine; one of another owner, or recording another
// record set, is left alone.
func (a *applier) removeDeleted(ctx context.Context) {
	for _, it := range a.items {
		if it.action != "delete" || it.err != nil {
			continue
		}
		cur, err := a.r.client.Get(ctx, it.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			a.after = append(a.after, fmt.Errorf("delete %s: the record is deleted, its DNSRecord is not: %w", it.rec.Key(), a.apiError(err, "reading", it.name)))
			continue
		}
		if owner := ownerOf(cur); owner != a.r.cfg.OwnerID {
			a.log.Info("not deleting a DNSRecord of another owner", "record", it.rec.Key().String(), "dnsRecord", a.ref(it.name), "owner", owner)
			continue
		}
		if spec, err := specEndpoint(cur); err == nil && !sameIdentity(spec, it.rec) {
			a.log.Info("not deleting a DNSRecord that records another record set", "record", it.rec.Key().String(),
				"dnsRecord", a.ref(it.name), "recorded", spec.Key().String())
			continue
		}
		uid := cur.GetUID()
		err = a.r.client.Delete(ctx, it.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			a.after = append(a.after, fmt.Errorf("delete %s: the record is deleted, its DNSRecord is not: %w", it.rec.Key(), a.apiError(err, "deleting", it.name)))
			continue
		}
		a.deleted(it.name, cur.GetResourceVersion())
	}
}

// repair makes the repairs of the last read that this call leaves
// standing: it deletes the DNSRecords of ours that claimed nothing (unless
// written since), and marks Programmed those found not Ready while the
// provider holds their record set.
func (a *applier) repair(ctx context.Context) {
	if a.st == nil {
		return
	}
	for _, d := range a.st.deletes {
		if a.touched[d.name] {
			continue // written by this call: its record is created
		}
		a.touched[d.name] = true
		opts := metav1.DeleteOptions{}
		if d.resourceVersion != "" {
			// Not if written since the read.
			opts.Preconditions = &metav1.Preconditions{ResourceVersion: &d.resourceVersion}
		}
		err := a.r.client.Delete(ctx, d.name, opts)
		switch {
		case err == nil:
			a.deleted(d.name, d.resourceVersion)
			a.log.V(1).Info("deleted a DNSRecord of ours that claimed nothing", "dnsRecord", a.ref(d.name))
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		default:
			a.after = append(a.after, fmt.Errorf("repair: %w", a.apiError(err, "deleting", d.name)))
		}
	}
	for _, p := range a.st.programs {
		if a.touched[p.name] {
			continue
		}
		a.touched[p.name] = true
		var obj *unstructured.Unstructured
		if p.restore != nil {
			// The update did not reach the provider: the spec goes back to
			// what the provider holds.
			var err error
			if obj, err = a.write(ctx, p.name, p.restore, nil); err != nil {
				a.after = append(a.after, fmt.Errorf("repair of %s: %w", p.restore.Key(), err))
				continue
			}
		}
		if _, err := a.updateStatus(ctx, p.name, obj, ReasonProgrammed, msgFound); err != nil {
			a.after = append(a.after, fmt.Errorf("repair: %w", err))
			continue
		}
		a.log.V(1).Info("marked a DNSRecord Programmed whose record set the provider holds", "dnsRecord", a.ref(p.name))
	}
}
