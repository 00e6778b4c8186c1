package crd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/client-go/dynamic"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// Registry is the DNSRecord ownership registry: a [registry.Registry]
// that keeps the owner of every record set it creates in a DNSRecord
// custom resource, as external-dns's CRD registry does. Create one with
// [New] and start its cache with [Registry.Start]; the zero value is not
// usable. A Registry is safe for concurrent use.
type Registry struct {
	provider provider.Provider
	dyn      dynamic.Interface
	client   dynamic.ResourceInterface // DNSRecords of the namespace
	cfg      Config

	startMu sync.Mutex // serialises Start
	applyMu sync.Mutex // serialises ApplyChanges

	mu    sync.Mutex
	cache *recordCache // nil until Start succeeds
	gen   uint64       // incremented by every ApplyChanges
	state *readState   // of the last read; nil: none since the last ApplyChanges
	// stale holds, by object name, the resource version of the DNSRecords
	// of ours that claim nothing until they are written again, whatever
	// appears at their name: those the last read found claiming nothing
	// (their record was missing, or held data they never asked for), and
	// those of creates the provider did not apply. The map is replaced,
	// never modified, once published. It lives as long as the Registry:
	// after a restart the objects' status alone decides (see the package
	// documentation).
	stale map[string]string
	// pending is what the last ApplyChanges wrote, until a read sees the
	// cache show it; nil when there is nothing to wait for.
	pending *writes
}

var (
	_ registry.Registry          = (*Registry)(nil)
	_ registry.OwnershipReporter = (*Registry)(nil)
	_ registry.Repairer          = (*Registry)(nil)
	_ provider.ZoneLister        = (*Registry)(nil)
	_ provider.GuaranteeDeclarer = (*Registry)(nil)
)

// writes is the set of objects one ApplyChanges wrote, by name.
type writes struct {
	objects map[string]*pendingWrite
}

// readState is what a read found that ApplyChanges needs.
type readState struct {
	// claimedBy maps the key of every record of ours (recordKey) to the
	// name of the DNSRecord that claims it.
	claimedBy map[endpoint.Key]string
	// deletes are the DNSRecords of ours that claim nothing, by name.
	deletes []staleObject
	// programs are the DNSRecords of ours whose Ready condition is False
	// while the provider holds their record set, by name.
	programs []program
}

// program is a DNSRecord to mark Programmed as a repair.
type program struct {
	name string
	// generation is the generation of the object the read found: the
	// status is written for that spec only.
	generation int64
	// restore, when set, is the record set to write back as the spec
	// first: the provider holds the data from before a failed update
	// (PreviousEndpointAnnotation), not the spec's.
	restore *endpoint.Endpoint
}

func (st *readState) repairs() int {
	if st == nil {
		return 0
	}
	return len(st.deletes) + len(st.programs)
}

// staleObject is a DNSRecord to delete as a repair.
type staleObject struct {
	name, resourceVersion string
}

// New returns a CRD registry over p that keeps its DNSRecord objects
// through client (dynamic.NewForConfig, or a fake in tests). The
// configuration is checked (see [Config]); errors wrap [ErrInvalidConfig]
// and name the field at fault. Nothing is read or written until
// [Registry.Start].
func New(p provider.Provider, client dynamic.Interface, cfg Config) (*Registry, error) {
	if p == nil {
		return nil, fmt.Errorf("crd registry: %w: provider is nil", ErrInvalidConfig)
	}
	if client == nil {
		return nil, fmt.Errorf("crd registry: %w: dynamic client is nil: pass dynamic.NewForConfig(restConfig)", ErrInvalidConfig)
	}
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	return &Registry{
		provider: p,
		dyn:      client,
		client:   client.Resource(GroupVersionResource()).Namespace(cfg.Namespace),
		cfg:      cfg,
	}, nil
}

// Start starts the registry's cache of DNSRecord objects — an informer on
// [Config.Namespace] selecting the objects whose [OwnerLabel] is
// [Config.OwnerID] — which runs until ctx ends, and returns once the cache
// holds the first complete list. It fails when the API server forbids the
// list or watch (the error names the resource, the namespace and the verbs
// the ServiceAccount needs), when it does not serve DNSRecord (install
// [CustomResourceDefinitionYAML]), when ctx ends first, or when the list
// does not complete within [Config.CacheTimeout]; nothing keeps running
// then, and Start may be called again. Once it has succeeded, Start returns
// an error. Records and ApplyChanges fail with [ErrNotStarted] until Start
// succeeds, and with [ErrStopped] once ctx has ended.
func (r *Registry) Start(ctx context.Context) error {
	r.startMu.Lock()
	defer r.startMu.Unlock()
	r.mu.Lock()
	started := r.cache != nil
	r.mu.Unlock()
	if started {
		return errors.New("crd registry: Start called on a registry already started")
	}
	c, err := newRecordCache(r.dyn, r.cfg.Namespace, r.cfg.OwnerID)
	if err != nil {
		return fmt.Errorf("crd registry: %w", err)
	}
	if err := c.start(ctx, r.cfg); err != nil {
		return err
	}
	r.mu.Lock()
	r.cache = c
	r.mu.Unlock()
	logr.FromContextOrDiscard(ctx).V(1).Info("DNSRecord cache synced", "namespace", r.cfg.Namespace, "owner", r.cfg.OwnerID)
	return nil
}

// runningCache returns the started cache, or the error saying why there is
// none.
func (r *Registry) runningCache() (*recordCache, error) {
	r.mu.Lock()
	c := r.cache
	r.mu.Unlock()
	if c == nil {
		return nil, ErrNotStarted
	}
	if c.stopped() {
		return nil, ErrStopped
	}
	return c, nil
}

// OwnerID returns [Config.OwnerID].
func (r *Registry) OwnerID() string { return r.cfg.OwnerID }

// Namespace returns the namespace of the registry's DNSRecord objects
// ([Config.Namespace], "default" when it was empty).
func (r *Registry) Namespace() string { return r.cfg.Namespace }

// Ownership returns the registry's ownership settings: its owner id. The
// registry takes over no old owner and does not restrict the record types
// a Reconciler manages.
func (r *Registry) Ownership() registry.Ownership {
	return registry.Ownership{OwnerID: r.cfg.OwnerID}
}

// owners returns the registry's ownership rule: its owner id, no old owner.
func (r *Registry) owners() endpoint.Owners {
	return endpoint.Owners{OwnerID: r.cfg.OwnerID}
}

// Guarantees implements [provider.GuaranteeDeclarer]: the guarantees of the
// provider under the registry ([provider.GuaranteesOf]), so that a
// Reconciler holding only the registry enforces them. When they do not
// include CreateFailsIfExists, ApplyChanges reads the records again before
// creating (see [Registry.ApplyChanges]).
func (r *Registry) Guarantees() provider.Guarantees {
	return provider.GuaranteesOf(r.provider)
}

// ZoneGuarantees implements [provider.ZoneGuaranteeDeclarer]: the
// per-zone guarantees of the provider under the registry
// ([provider.ZoneGuaranteesOf]), nil when it has none.
func (r *Registry) ZoneGuarantees() map[string]provider.Guarantees {
	return provider.ZoneGuaranteesOf(r.provider)
}

// AdjustEndpoints passes eps to the provider's AdjustEndpoints.
func (r *Registry) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return r.provider.AdjustEndpoints(ctx, eps)
}

// GetDomainFilter returns the provider's domain filter.
func (r *Registry) GetDomainFilter() endpoint.DomainFilterInterface {
	return r.provider.GetDomainFilter()
}

// ListZones returns the zones of the provider under the registry, so that
// callers holding only the registry (a Reconciler applying its safety
// threshold per zone) see them through [provider.ZonesOf]. It returns an
// error matching [provider.ErrZonesUnsupported] when that provider does not
// list zones.
func (r *Registry) ListZones(ctx context.Context) ([]string, error) {
	zones, ok, err := provider.ZonesOf(ctx, r.provider)
	if err != nil {
		return nil, fmt.Errorf("crd registry: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("crd registry: %w", provider.ErrZonesUnsupported)
	}
	return zones, nil
}

// PendingRepairs returns the number of repairs the last Records call found
// (see [registry.Repairer]): DNSRecords of ours to delete because they
// claim nothing, and DNSRecords whose Ready condition is False although the
// provider holds their record set, to mark Programmed. ApplyChanges makes
// them.
func (r *Registry) PendingRepairs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state.repairs()
}

// Records returns the provider's records, sorted by (DNSName,
// SetIdentifier, RecordType); those a DNSRecord of ours claims carry the
// owner label [Config.OwnerID] and the labels the DNSRecord stores (see the
// package documentation for the rules). An owner label the provider itself
// returned claims nothing and is removed. Every record carries its
// ownership verdict ([endpoint.Endpoint.SetOwnership]), decided from the
// owner label so given by [endpoint.Owners.Verdict]: [endpoint.OwnedByUs]
// for the records claimed, [endpoint.OwnedByNobody] for the others. The
// slice and the endpoints are the caller's.
//
// Records reads the DNSRecord objects from the cache. When the last
// ApplyChanges wrote objects, it first waits, at most
// [Config.CacheTimeout], until the cache shows those writes, so that a
// record created by the last cycle is seen as ours.
func (r *Registry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	c, err := r.runningCache()
	if err != nil {
		return nil, err
	}
	log := logr.FromContextOrDiscard(ctx)
	r.awaitWrites(ctx, log, c)

	r.mu.Lock()
	gen, stale := r.gen, r.stale
	r.mu.Unlock()

	recs, err := r.provider.Records(ctx)
	if err != nil {
		return nil, fmt.Errorf("crd registry: reading records: %w", err)
	}
	recs = slices.DeleteFunc(recs, func(ep *endpoint.Endpoint) bool { return ep == nil })
	if !slices.IsSortedFunc(recs, endpoint.Compare) {
		slices.SortStableFunc(recs, endpoint.Compare)
	}
	st, nextStale := r.attach(log, recs, c.objects(r.cfg.OwnerID), r.provider.GetDomainFilter(), stale)

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen == gen {
		// No ApplyChanges ran meanwhile: this read describes the zone.
		r.state = st
		r.stale = nextStale
	}
	return recs, nil
}

// awaitWrites waits until the cache shows what the last ApplyChanges
// wrote, at most Config.CacheTimeout, then forgets those writes.
func (r *Registry) awaitWrites(ctx context.Context, log logr.Logger, c *recordCache) {
	r.mu.Lock()
	w := r.pending
	r.mu.Unlock()
	if w == nil {
		return
	}
	timer := r.cfg.Clock.NewTimer(r.cfg.CacheTimeout)
	defer timer.Stop()
	if lagging := c.waitFor(ctx, w.objects, timer.C()); len(lagging) > 0 {
		log.Info("the DNSRecord cache does not show every write of the last ApplyChanges; reading it as it is",
			"namespace", r.cfg.Namespace, "objects", names(lagging))
	}
	r.mu.Lock()
	if r.pending == w {
		r.pending = nil
	}
	r.mu.Unlock()
}

// recordKey is the identity of a record set in the form names have in
// memory: name in A-labels without trailing dot, type in upper case.
func recordKey(ep *endpoint.Endpoint) endpoint.Key {
	return endpoint.Key{DNSName: endpoint.CanonicalName(ep.DNSName), RecordType: strings.ToUpper(ep.RecordType), SetIdentifier: ep.SetIdentifier}
}

// lookup returns the DNSRecord of objs named after rec whose spec.endpoint
// is rec's record set, or nil. It looks under the [ObjectName] of rec's
// name as read, then under its [FallbackObjectName] (the registry's name
// for the second of two record sets whose object names collide), and, for
// a name with A-labels, under the ObjectName of its Unicode form:
// external-dns names the object after the name its source gave, which can
// be Unicode.
func lookup(objs map[string]*object, rec *endpoint.Endpoint) *object {
	names := objectNameOf(rec.DNSName, rec.RecordType, rec.SetIdentifier)
	if o := recording(objs[names.primary()], rec); o != nil {
		return o
	}
	if o := recording(objs[names.fallback()], rec); o != nil {
		return o
	}
	if !strings.Contains(strings.ToLower(rec.DNSName), "xn--") {
		return nil
	}
	u := endpoint.ToUnicode(rec.DNSName)
	return recording(objs[ObjectName(u, rec.RecordType, rec.SetIdentifier)], rec)
}

// recording returns o when it records rec's record set, or nil.
func recording(o *object, rec *endpoint.Endpoint) *object {
	if o != nil && o.ep != nil && sameIdentity(o.ep, rec) {
		return o
	}
	return nil
}

// claim is how a DNSRecord claims a record.
type claim int

const (
	claimNone     claim = iota
	claimReady          // its Ready condition is True
	claimSpec           // the record holds the data of its spec
	claimPrevious       // the record holds the data from before its last update
)

// claims says whether o, the DNSRecord of ours found for rec, claims it,
// and if not, why. stale is the registry's memory of objects that claim
// nothing until written again.
//
// A claim needs a Ready condition, which only a writer of the status
// subresource can set (the API server keeps the status of a create or of
// an update of the main resource out of the object): an object somebody
// merely created claims nothing, whatever its labels and spec say. A claim
// by data needs more: a condition this registry wrote for the spec the
// object holds now (observedGeneration equal to the generation), reason
// Accepted for the spec's data (the intent the registry writes before the
// provider applies a change), Accepted or Failed for the data of the
// PreviousEndpointAnnotation (an update that did not reach the provider).
// A Failed create claims nothing by data: the record set that appears at
// its name is somebody else's. A Failed update claims its spec's data too:
// its record set was ours before the update, which the provider may have
// applied although it reported an error.
func claims(o *object, rec *endpoint.Endpoint, stale map[string]string) (claim, string) {
	if rv, ok := stale[o.Name]; ok && rv == o.ResourceVersion {
		return claimNone, "the DNSRecord claimed nothing at an earlier read (its record was missing, or held other data) or belongs to a create the provider did not apply, and has not been written since"
	}
	switch {
	case o.ready.programmed:
		return claimReady, ""
	case !o.ready.set:
		return claimNone, "the DNSRecord has no Ready condition: nothing shows that this registry wrote it (whoever creates a DNSRecord cannot set its status)"
	case !o.current():
		return claimNone, fmt.Sprintf("its Ready condition (%s) was written for generation %d of its spec, not for the current generation %d",
			o.ready.reason, o.ready.observedGeneration, o.Generation)
	}
	update := o.previous != nil && sameIdentity(o.previous, rec)
	accepted, failed := o.ready.reason == ReasonAccepted, o.ready.reason == ReasonFailed
	switch {
	case (accepted || failed && update) && sameData(rec, o.ep):
		return claimSpec, ""
	case (accepted || failed) && update && sameData(rec, o.previous):
		return claimPrevious, ""
	case failed && !update:
		return claimNone, "the DNSRecord is Failed from a create the provider refused or was not sent: a record that appears at its name is somebody else's"
	}
	return claimNone, fmt.Sprintf("the DNSRecord is not Ready (reason %q) and the record holds other data than it asked for", o.ready.reason)
}

// sameData reports whether the provider's record holds the data of want:
// the planner would see no change from rec to want (targets as a set, a
// configured TTL, provider-specific properties).
func sameData(rec, want *endpoint.Endpoint) bool {
	return !plan.Why(rec, want).ChangesData()
}

// attach gives the records of recs that a DNSRecord of objs claims their
// labels, and returns what ApplyChanges needs to know, with the registry's
// new memory of stale objects.
func (r *Registry) attach(log logr.Logger, recs []*endpoint.Endpoint, objs map[string]*object,
	filter endpoint.DomainFilterInterface, stale map[string]string,
) (*readState, map[string]string) {
	st := &readState{claimedBy: make(map[endpoint.Key]string)}
	found := make(map[string]bool, len(objs)) // objects a record was found for: claiming or not
	unclaimed := map[string]bool{}
	for _, rec := range recs {
		if _, ok := rec.Labels.Get(endpoint.OwnerLabelKey); ok {
			// Ownership comes from a DNSRecord and from nothing else.
			rec.Labels.Delete(endpoint.OwnerLabelKey)
		}
		o := lookup(objs, rec)
		if o == nil {
			continue
		}
		found[o.Name] = true
		how, why := claims(o, rec, stale)
		if how == claimNone {
			unclaimed[o.Name] = true
			log.Info("a DNSRecord of ours does not claim the record at its name: the record is left alone and the DNSRecord will be deleted",
				"record", rec.Key().String(), "dnsRecord", ref(r.cfg.Namespace, o.Name), "reason", why)
			continue
		}
		giveLabels(rec, o.ep.Labels, r.cfg.OwnerID)
		st.claimedBy[recordKey(rec)] = o.Name
		switch how {
		case claimSpec:
			st.programs = append(st.programs, program{name: o.Name, generation: o.Generation})
		case claimPrevious:
			st.programs = append(st.programs, program{name: o.Name, generation: o.Generation, restore: o.previous})
		}
	}
	// The one ownership rule, on the labels just decided: claimed records
	// carry our owner label, the others none.
	owners := r.owners()
	for _, rec := range recs {
		rec.SetOwnership(owners.Verdict(rec))
	}

	nextStale := map[string]string{}
	for _, name := range sortedNames(objs) {
		o := objs[name]
		switch {
		case o.ep == nil:
			log.Info("a DNSRecord of ours cannot be read: it claims nothing and is left alone",
				"dnsRecord", ref(r.cfg.Namespace, name), "reason", o.invalid)
			continue
		case found[name] && !unclaimed[name]:
			continue
		case !found[name] && filter != nil && !filter.Match(endpoint.CanonicalName(o.ep.DNSName)):
			// Records outside the filter are not read: their absence
			// proves nothing.
			continue
		}
		if !found[name] {
			log.V(1).Info("a DNSRecord of ours whose record is missing will be deleted unless the record is created",
				"dnsRecord", ref(r.cfg.Namespace, name), "record", o.ep.Key().String())
		}
		st.deletes = append(st.deletes, staleObject{name: name, resourceVersion: o.ResourceVersion})
		nextStale[name] = o.ResourceVersion
	}
	slices.SortFunc(st.programs, func(a, b program) int { return strings.Compare(a.name, b.name) })
	if len(nextStale) == 0 {
		nextStale = nil
	}
	if log := log.V(1); log.Enabled() {
		log.Info("read records", "records", len(recs), "dnsRecords", len(objs), "owned", len(st.claimedBy),
			"toDelete", len(st.deletes), "toMarkProgrammed", len(st.programs))
	}
	return st, nextStale
}

// giveLabels gives rec the labels a DNSRecord stores, and owner as its
// owner label. The registry's own keys (owner, resource:
// endpoint.IsReservedLabelKey) come from the DNSRecord; any other label
// rec already has is the provider's and is kept, even when the DNSRecord
// holds an older copy of it.
func giveLabels(rec *endpoint.Endpoint, stored endpoint.Labels, owner string) {
	own := rec.Labels
	rec.Labels = stored
	for k, v := range own.All() {
		if !endpoint.IsReservedLabelKey(k) {
			rec.Labels.Set(k, v)
		}
	}
	rec.Labels.Set(endpoint.OwnerLabelKey, owner)
}

func sortedNames(objs map[string]*object) []string {
	out := make([]string, 0, len(objs))
	for name := range objs {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
