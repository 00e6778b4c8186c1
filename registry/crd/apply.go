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
	msgNotSent    = "not sent to the DNS provider: "
)

// ApplyChanges applies changes to the provider and keeps the DNSRecord
// objects in step, in this order (see the package documentation):
//
//  1. Changes are checked first: when an update (its UpdateOld record) or
//     a delete concerns a record whose ownership verdict
//     ([endpoint.Owners.Of]) is not ours, nothing is applied and the
//     error, which matches [registry.ErrNotOwned], names every such
//     record.
//  2. Intent: the DNSRecord of every create is created (an existing one of
//     ours recording the same record set is reused, its spec refreshed;
//     when the [ObjectName] is held by an object recording another record
//     set, the DNSRecord is kept under [FallbackObjectName]) and that of
//     every update rewritten, with the record set's previous data in
//     [PreviousEndpointAnnotation]; then each gets Ready=False, reason
//     Accepted, through the status subresource, for the generation of the
//     spec just written. A create or update whose DNSRecord or Accepted
//     status cannot be written is not sent to the provider (the error
//     names the record and the DNSRecord).
//  3. On a provider whose creates may replace an existing record
//     ([provider.Guarantees] without CreateFailsIfExists), the records are
//     read again just before the provider is called
//     ([provider.RecheckCreates]): a create whose record set appeared
//     since the last read is not sent, nor are the other changes at its
//     name; its DNSRecord is marked Failed, so that it never claims the
//     record that appeared, and the error (soft, [provider.SoftError])
//     wraps [provider.ErrCreateWouldOverwrite] and names each record left
//     out.
//  4. The provider applies the changes, in one call per zone when it lists
//     its zones ([provider.ZoneLister]); a zone that fails does not stop
//     the others, and the error joins one [*provider.ZoneError] per failed
//     zone.
//  5. Outcome: the DNSRecords of applied creates and updates get
//     Ready=True, reason Programmed; the others Ready=False, reason Failed,
//     with the provider's error.
//  6. The DNSRecords of applied deletes are deleted.
//  7. Repairs found by the last Records call that the changes leave
//     standing are made ([Registry.PendingRepairs]).
//
// Outcome writes that fail are logged and fail nothing: the next read
// heals them. Failures after the provider applied its changes (a DNSRecord
// that could not be deleted, a repair) come back as a soft error
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
	if len(a.left) > 0 {
		errs = append(errs, provider.NewSoftError(fmt.Errorf("crd registry: %w", errors.Join(a.left...))))
	}
	if len(a.after) > 0 {
		errs = append(errs, provider.NewSoftError(fmt.Errorf("crd registry: %w", errors.Join(a.after...))))
	}
	return errors.Join(errs...)
}

// checkOwned refuses changes that update or delete records the registry
// does not own (their verdict, [endpoint.Owners.Of], is not ours): the
// error names every such record with its owner label and matches
// [registry.ErrNotOwned].
func (r *Registry) checkOwned(changes *plan.Changes) error {
	var errs []error
	owners := r.owners()
	check := func(action string, ep *endpoint.Endpoint) {
		if ep != nil && !owners.Of(ep).Mine() {
			owner, _ := ep.Labels.Get(endpoint.OwnerLabelKey)
			errs = append(errs, fmt.Errorf("%s %s (owner %q): %w", action, ep.Key(), endpoint.Printable(owner), registry.ErrNotOwned))
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
// longer stale, those of creates the provider did not apply are (they
// claim nothing until written again), and the writes are waited for by
// the next read.
func (r *Registry) finish(a *applier) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gen++
	r.state = nil
	failed := map[string]string{}
	unapplied := a.unsent
	for _, it := range a.items {
		if it.action == "create" && it.err != nil {
			unapplied = append(unapplied, it.name)
		}
	}
	for _, name := range unapplied {
		if w := a.written[name]; w != nil && !w.gone {
			failed[name] = w.last
		}
	}
	if len(r.stale) > 0 && len(a.written) > 0 || len(failed) > 0 {
		stale := make(map[string]string, len(r.stale)+len(failed)) // Records may hold the old map
		for name, rv := range r.stale {
			if _, ok := a.written[name]; !ok {
				stale[name] = rv
			}
		}
		maps.Copy(stale, failed)
		if len(stale) == 0 {
			stale = nil
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
	touched map[string]bool          // DNSRecords this call wrote or tried to write for their record set
	written map[string]*pendingWrite // what it wrote, for the next read
	skipped []error                  // changes not applied: their DNSRecord or its intent could not be written
	left    []error                  // changes left out: a create would have replaced a record that appeared
	after   []error                  // failures after the provider applied its changes
	// unsent are the DNSRecords of creates written but not sent to the
	// provider because their intent could not be written.
	unsent []string
}

// item is one change and its DNSRecord.
type item struct {
	action string             // "create", "update" or "delete"
	rec    *endpoint.Endpoint // sent to the provider (for an update, the new record)
	old    *endpoint.Endpoint // an update's old record
	name   string             // the DNSRecord
	// alt is, for a delete whose DNSRecord no read named, the other name
	// it may have ([FallbackObjectName]); "" otherwise.
	alt string
	obj *unstructured.Unstructured
	err error // the provider's error; nil when applied
	// notSent: the change was not sent to the provider (err says why).
	notSent bool
}

func (a *applier) ref(name string) string { return ref(a.r.cfg.Namespace, name) }

// claimed returns the name of the DNSRecord that claimed rec at the last
// read, if any.
func (a *applier) claimed(rec *endpoint.Endpoint) (string, bool) {
	if a.st == nil {
		return "", false
	}
	name, ok := a.st.claimedBy[recordKey(rec)]
	return name, ok
}

// namesOf returns the names the DNSRecord of rec may have: its
// [ObjectName] and its [FallbackObjectName], of the name in A-label form
// (the form the registry writes).
func namesOf(rec *endpoint.Endpoint) [2]string {
	n := objectNameOf(endpoint.CanonicalName(rec.DNSName), rec.RecordType, rec.SetIdentifier)
	return [2]string{n.primary(), n.fallback()}
}

// recordIntents writes the DNSRecords of the creates and updates, then
// marks them Accepted, and lists as an item every change whose DNSRecord
// and intent are written, and every delete.
func (a *applier) recordIntents(ctx context.Context, changes *plan.Changes) {
	owner := a.r.cfg.OwnerID
	for _, ep := range changes.Create {
		if ep == nil {
			continue
		}
		rec := ep.DeepCopy()
		rec.DNSName = endpoint.CanonicalName(rec.DNSName)
		rec.Labels.Set(endpoint.OwnerLabelKey, owner)
		name, obj, err := a.ensureCreated(ctx, rec)
		if err != nil {
			a.skipped = append(a.skipped, fmt.Errorf("create %s not applied: %w", rec.Key(), err))
			a.log.Error(err, "not creating a record whose DNSRecord cannot be written", "record", rec.Key().String())
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
		var name string
		var obj *unstructured.Unstructured
		err := fmt.Errorf("the update changes the record set's identity (name, type or set identifier): delete and create instead")
		if recordKey(old) == recordKey(rec) {
			name, obj, err = a.rewrite(ctx, old, rec)
		}
		if err != nil {
			a.skipped = append(a.skipped, fmt.Errorf("update %s not applied: %w", rec.Key(), err))
			a.log.Error(err, "not updating a record whose DNSRecord cannot be written", "record", rec.Key().String())
			continue
		}
		a.items = append(a.items, &item{action: "update", rec: rec, old: old, name: name, obj: obj})
	}
	for _, ep := range changes.Delete {
		if ep == nil {
			continue
		}
		rec := ep.DeepCopy()
		it := &item{action: "delete", rec: rec}
		if name, ok := a.claimed(rec); ok {
			it.name = name
		} else {
			names := namesOf(rec)
			it.name, it.alt = names[0], names[1]
		}
		a.touched[it.name] = true
		a.items = append(a.items, it)
	}
	// Intent, before the provider sees anything: a change whose Accepted
	// status cannot be written is not sent, so that a record set is never
	// created without a DNSRecord that can claim it.
	kept := a.items[:0]
	for _, it := range a.items {
		if it.obj != nil {
			if err := a.setStatus(ctx, it, ReasonAccepted, msgAccepted); err != nil {
				a.skipped = append(a.skipped, fmt.Errorf("%s %s not applied: marking its DNSRecord %s Accepted: %w",
					it.action, it.rec.Key(), a.ref(it.name), err))
				if it.action == "create" {
					a.unsent = append(a.unsent, it.name)
				}
				continue
			}
		}
		kept = append(kept, it)
	}
	clear(a.items[len(kept):])
	a.items = kept
}

// ensureCreated makes a DNSRecord record rec for a create: it creates the
// object named [ObjectName], or, when that exists, rewrites it if it is
// ours and records the same record set (see write). When the name is held
// by an object recording another record set (the hash in the name
// collides), it does the same under [FallbackObjectName]. It returns the
// name used and the object as written.
func (a *applier) ensureCreated(ctx context.Context, rec *endpoint.Endpoint) (string, *unstructured.Unstructured, error) {
	var collisions []error
	for _, name := range namesOf(rec) {
		u, err := newObject(a.r.cfg.Namespace, name, a.r.cfg.OwnerID, rec)
		if err != nil {
			return "", nil, err
		}
		created, err := a.r.client.Create(ctx, u, metav1.CreateOptions{})
		if err == nil {
			a.touched[name] = true
			a.wrote(name, "", created)
			return name, created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return "", nil, a.apiError(err, "creating", name)
		}
		obj, err := a.write(ctx, name, rec, nil)
		if errors.Is(err, errCollision) {
			a.log.Info("the DNSRecord name of a record set is held by another record set; using the longer name",
				"record", rec.Key().String(), "dnsRecord", a.ref(name))
			collisions = append(collisions, err)
			continue
		}
		if err != nil {
			return "", nil, err
		}
		a.log.V(1).Info("reusing an existing DNSRecord", "record", rec.Key().String(), "dnsRecord", a.ref(name))
		return name, obj, nil
	}
	return "", nil, errors.Join(collisions...)
}

// rewrite makes the DNSRecord of an update record rec, with old in the
// PreviousEndpointAnnotation: the one that claimed old at the last read,
// or, when no read named one, the one under [ObjectName] or, when that
// records another record set, under [FallbackObjectName] (see write).
func (a *applier) rewrite(ctx context.Context, old, rec *endpoint.Endpoint) (string, *unstructured.Unstructured, error) {
	if name, ok := a.claimed(old); ok {
		obj, err := a.write(ctx, name, rec, old)
		return name, obj, err
	}
	var collisions []error
	for _, name := range namesOf(old) {
		obj, err := a.write(ctx, name, rec, old)
		if errors.Is(err, errCollision) {
			collisions = append(collisions, err)
			continue
		}
		return name, obj, err
	}
	return "", nil, errors.Join(collisions...)
}

// Errors of the DNSRecords the registry may not write.
var (
	// errForeign: the object belongs to another owner.
	errForeign = errors.New("the DNSRecord is not ours")
	// errCollision: the object records another record set whose object
	// name is the same.
	errCollision = errors.New("the DNSRecord's name is held by another record set")
	// errSpecChanged: the spec changed after the registry wrote it, so a
	// status for the registry's spec would describe somebody else's.
	errSpecChanged = errors.New("the DNSRecord's spec changed since the registry wrote it")
)

// write makes the DNSRecord name record rec, with prev (nil: none) in the
// PreviousEndpointAnnotation: it reads the object from the API server and
// rewrites its spec, or creates it when it does not exist. It refuses, with
// errCollision, an object recording another record set, and, with
// errForeign, one of another owner.
func (a *applier) write(ctx context.Context, name string, rec, prev *endpoint.Endpoint) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := a.r.client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			a.touched[name] = true
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
		if spec, err := specEndpoint(cur); err == nil && !sameIdentity(spec, rec) {
			return fmt.Errorf("%w: DNSRecord %s records %s, not %s", errCollision, a.ref(name), spec.Key(), rec.Key())
		}
		if owner := ownerOf(cur); owner != a.r.cfg.OwnerID {
			return fmt.Errorf("%w: DNSRecord %s belongs to owner %q (%s label): give each owner id its own namespace (Config.Namespace)",
				errForeign, a.ref(name), endpoint.Printable(owner), OwnerLabel)
		}
		a.touched[name] = true
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
// status subresource, for the generation of the spec the registry wrote
// (see updateStatus).
func (a *applier) setStatus(ctx context.Context, it *item, reason, message string) error {
	obj, err := a.updateStatus(ctx, it.name, it.obj, it.obj.GetGeneration(), reason, message)
	if err != nil {
		a.log.Error(err, "writing the status of a DNSRecord failed",
			"record", it.rec.Key().String(), "dnsRecord", a.ref(it.name), "reason", reason)
		return err
	}
	it.obj = obj
	return nil
}

// updateStatus writes the Ready condition of the DNSRecord name, with
// gen, the generation of the spec the condition is about, as its
// observedGeneration; obj is the object as last written (nil: read it).
// It returns the object as written. On a conflict it reads the object
// again; it refuses (errSpecChanged) when the object's generation is no
// longer gen: the condition would vouch for a spec the registry did not
// write.
func (a *applier) updateStatus(ctx context.Context, name string, obj *unstructured.Unstructured, gen int64, reason, message string) (*unstructured.Unstructured, error) {
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
				return fmt.Errorf("%w: DNSRecord %s belongs to owner %q", errForeign, a.ref(name), endpoint.Printable(owner))
			}
		}
		first = false
		if g := cur.GetGeneration(); g != gen {
			return fmt.Errorf("%w: DNSRecord %s is at generation %d, the registry wrote generation %d", errSpecChanged, a.ref(name), g, gen)
		}
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
	// fail gives each item of c the error of its call, as the registry
	// package reads it ([registry.ApplyOutcome], the one reading of
	// rejections and failed zones): its own rejection, the call's error,
	// or none when the provider applied it (the call reported only the
	// rejections of others).
	fail := func(c *plan.Changes, err error) {
		// The error of one zone's call is read without its zone: every
		// change of c is in it.
		read := err
		if ze, ok := err.(*provider.ZoneError); ok {
			read = ze.Err
		}
		outcome := registry.NewApplyOutcome(read, provider.Rejected(err))
		for i, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateNew, c.Delete} {
			action := [...]plan.Action{plan.ActionCreate, plan.ActionUpdate, plan.ActionDelete}[i]
			for _, ep := range list {
				if it := of[ep]; it != nil {
					if st, cause := outcome.Of(action, ep); st != registry.Applied {
						if cause == read {
							cause = err
						}
						it.err = cause
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
	kept, err := a.recheckCreates(ctx, out, of)
	if err != nil {
		fail(out, err)
		for _, it := range a.items {
			it.notSent = it.err != nil
		}
		return err
	}
	if out = kept; empty(out) {
		return nil
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

// recheckCreates narrows the window in which a create could replace a
// record that appeared after the last read, on a provider whose creates
// may overwrite ([provider.Guarantees] without CreateFailsIfExists): it
// reads the records again ([provider.RecheckCreates]) and returns the
// changes to send. Every item left out gets an error wrapping
// [provider.ErrCreateWouldOverwrite] (its DNSRecord is then marked
// Failed), and each create left out is reported.
func (a *applier) recheckCreates(ctx context.Context, out *plan.Changes, of map[*endpoint.Endpoint]*item) (*plan.Changes, error) {
	if len(out.Create) == 0 || provider.GuaranteesOf(a.r.provider).CreateFailsIfExists {
		return out, nil
	}
	kept, dropped, err := provider.RecheckCreates(ctx, a.r.provider, out)
	if err != nil || len(dropped) == 0 {
		return kept, err
	}
	sent := map[*endpoint.Endpoint]bool{}
	for _, list := range [][]*endpoint.Endpoint{kept.Create, kept.UpdateNew, kept.Delete} {
		for _, ep := range list {
			sent[ep] = true
		}
	}
	for _, list := range [][]*endpoint.Endpoint{out.Create, out.UpdateNew, out.Delete} {
		for _, ep := range list {
			it := of[ep]
			if it == nil || sent[ep] {
				continue
			}
			it.notSent = true
			if it.action == "create" {
				it.err = fmt.Errorf("%w (the provider's creates replace existing records)", provider.ErrCreateWouldOverwrite)
			} else {
				it.err = fmt.Errorf("left out with a create at the same name: %w", provider.ErrCreateWouldOverwrite)
			}
			a.left = append(a.left, fmt.Errorf("%s %s not applied: %w; the next cycle plans it from what it reads then", it.action, it.rec.Key(), it.err))
			a.log.Info("not sending a change at a name where a record set appeared after the zone was read",
				"action", it.action, "record", it.rec.Key().String(), "dnsRecord", a.ref(it.name))
		}
	}
	return kept, nil
}

// empty reports whether c holds no change.
func empty(c *plan.Changes) bool {
	return c == nil || len(c.Create) == 0 && len(c.UpdateNew) == 0 && len(c.Delete) == 0
}

// recordOutcomes marks the DNSRecords of the creates and updates
// Programmed, or Failed with the provider's error (or with the reason the
// change was not sent). A status write that fails is logged: the next
// read heals it.
func (a *applier) recordOutcomes(ctx context.Context) {
	for _, it := range a.items {
		if it.obj == nil {
			continue
		}
		switch {
		case it.err == nil:
			_ = a.setStatus(ctx, it, ReasonProgrammed, msgProgrammed)
		case it.notSent:
			_ = a.setStatus(ctx, it, ReasonFailed, msgNotSent+it.err.Error())
		default:
			_ = a.setStatus(ctx, it, ReasonFailed, msgFailed+it.err.Error())
		}
	}
}

// removeDeleted deletes the DNSRecords of the deletes the provider applied.
// One that is missing is fine; one of another owner, or recording another
// record set, is left alone (a delete whose DNSRecord no read named then
// looks under its other name).
func (a *applier) removeDeleted(ctx context.Context) {
	for _, it := range a.items {
		if it.action != "delete" || it.err != nil {
			continue
		}
		for _, name := range []string{it.name, it.alt} {
			if name != "" && a.removeObject(ctx, it, name) {
				break
			}
		}
	}
}

// removeObject deletes the DNSRecord name of the delete it, when it is ours
// and records its record set. It reports whether the search ends there:
// false when the object is missing or records another record set.
func (a *applier) removeObject(ctx context.Context, it *item, name string) bool {
	cur, err := a.r.client.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		a.after = append(a.after, fmt.Errorf("delete %s: the record is deleted, its DNSRecord is not: %w", it.rec.Key(), a.apiError(err, "reading", name)))
		return true
	}
	if spec, err := specEndpoint(cur); err == nil && !sameIdentity(spec, it.rec) {
		a.log.V(1).Info("not deleting a DNSRecord that records another record set", "record", it.rec.Key().String(),
			"dnsRecord", a.ref(name), "recorded", spec.Key().String())
		return false
	}
	if owner := ownerOf(cur); owner != a.r.cfg.OwnerID {
		a.log.Info("not deleting a DNSRecord of another owner", "record", it.rec.Key().String(), "dnsRecord", a.ref(name), "owner", owner)
		return true
	}
	a.touched[name] = true
	uid := cur.GetUID()
	err = a.r.client.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		a.after = append(a.after, fmt.Errorf("delete %s: the record is deleted, its DNSRecord is not: %w", it.rec.Key(), a.apiError(err, "deleting", name)))
		return true
	}
	a.deleted(name, cur.GetResourceVersion())
	return true
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
		gen := p.generation
		if p.restore != nil {
			// The update did not reach the provider: the spec goes back to
			// what the provider holds.
			var err error
			if obj, err = a.write(ctx, p.name, p.restore, nil); err != nil {
				a.after = append(a.after, fmt.Errorf("repair of %s: %w", p.restore.Key(), err))
				continue
			}
			gen = obj.GetGeneration()
		}
		if _, err := a.updateStatus(ctx, p.name, obj, gen, ReasonProgrammed, msgFound); err != nil {
			a.after = append(a.after, fmt.Errorf("repair: %w", err))
			continue
		}
		a.log.V(1).Info("marked a DNSRecord Programmed whose record set the provider holds", "dnsRecord", a.ref(p.name))
	}
}
