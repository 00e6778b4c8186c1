package externaldns_test

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xcoredns "sigs.k8s.io/external-dns/provider/coredns"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/internal/etcdtest"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

const corednsPrefix = "/skydns/"

// newCoreDNS constructs external-dns's coredns provider on srv through the
// adapter. external-dns's coredns provider reads its etcd endpoints from
// ETCD_URLS, which the caller must have set (t.Setenv) to srv.URL().
func newCoreDNS(t *testing.T, zone string, extra ...string) *externaldns.Provider {
	t.Helper()
	cfg, err := externaldns.ParseFlags(append([]string{"--provider=coredns", "--coredns-prefix=" + corednsPrefix}, extra...))
	require.NoError(t, err)
	p, err := externaldns.New(t.Context(), xcoredns.New, cfg, xendpoint.NewDomainFilter([]string{zone}))
	require.NoError(t, err)
	return p
}

func TestConformanceCoreDNS(t *testing.T) {
	srv := etcdtest.Start(t, etcdtest.Config{})
	t.Setenv("ETCD_URLS", srv.URL())
	providertest.TestProvider(t, newCoreDNS(t, "example.org"), providertest.Options{
		Zone: "example.org",
		// Services in etcd have no set identifier: the provider drops it.
		NoSetIdentifier: true,
		Lacks: map[string]string{
			providertest.RuleCreate:                  txtTTL,
			providertest.RuleUpdateTargets:           keysByLabels,
			providertest.RuleUpdateTTL:               keysByLabels,
			providertest.RuleReadAfterWrite:          keysByLabels,
			providertest.RuleNameNormalisation:       keysByLabels,
			providertest.RuleWildcardNames:           keysByLabels + "; " + txtTTL,
			providertest.RuleUnknownProviderSpecific: keysByLabels,
			providertest.RuleTXTQuotes:               keysByLabels,
			providertest.RuleTXTLongValues:           keysByLabels,
			providertest.RuleConcurrency:             keysByLabels,
			providertest.RuleMultiTarget:             oneEndpointPerKey + "; " + txtFirstTarget + "; " + txtTTL,
			providertest.RuleSliceOwnership:          oneEndpointPerKey,
			providertest.RuleCreateExisting:          "a create writes a new etcd key under a fresh random prefix without looking for the record: an existing record gains a second key instead of failing or being replaced",
			providertest.RuleChangeMissing:           "a delete is an etcd delete of a key (or key prefix), which succeeds when nothing is there; an update of a missing record writes it",
		},
	})
}

// Why external-dns's coredns provider (v0.23.0, provider/coredns) falls
// short of the conformance suite, from its code.
const (
	// Records puts each service's random key prefix into the endpoint's
	// labels ("prefix", and one label per target); ApplyChanges copies
	// UpdateOld's labels into UpdateNew and writes each target under the
	// prefix it finds there, drawing a new random one when there is none.
	// The suite builds UpdateOld itself, without those labels, so an
	// update writes new keys and leaves the old ones: the record comes
	// back twice, with old and new targets. (zonesync's Reconciler passes
	// the records Records returned, labels included; see
	// TestReconcilerCoreDNS.)
	keysByLabels = "updates find the record's etcd keys through the labels Records put on UpdateOld (the random key prefix of each target); an UpdateOld built without them makes the update write new keys beside the old ones"
	// Records appends the endpoint of a name again for each further key
	// (service) holding a target of it, so a record with n targets is
	// returned n times.
	oneEndpointPerKey = "Records returns a record with n targets n times (it appends the same endpoint again for each etcd key of the name)"
	// updateTXTRecords stores ep.Targets[0] only.
	txtFirstTarget = "a TXT record keeps only its first target (one text per service)"
	// Records builds TXT endpoints without the service's TTL.
	txtTTL = "Records returns TXT records without their TTL (the key holds it, but the TXT endpoint is built without one)"
)

// skydnsService is the part of a SkyDNS service (the JSON value of an etcd
// key) that external-dns's coredns provider writes.
type skydnsService struct {
	Host        string `json:"host,omitempty"`
	Text        string `json:"text,omitempty"`
	TTL         uint32 `json:"ttl,omitempty"`
	TargetStrip int    `json:"targetstrip,omitempty"`
}

// skydnsRecords reads every key under corednsPrefix back from etcd and
// returns its services by the DNS name they serve: the key with the prefix
// removed and its labels reversed, less the TargetStrip labels of random
// prefix that make each key of a name unique. Services of a name are
// sorted by host, then text.
func skydnsRecords(t *testing.T, srv *etcdtest.Server) map[string][]skydnsService {
	t.Helper()
	out := make(map[string][]skydnsService)
	for key, value := range srv.Get(corednsPrefix) {
		var svc skydnsService
		require.NoError(t, json.Unmarshal([]byte(value), &svc), "etcd key %s: %s", key, value)
		labels := strings.Split(strings.TrimPrefix(key, corednsPrefix), "/")
		slices.Reverse(labels)
		require.GreaterOrEqual(t, len(labels), svc.TargetStrip, "etcd key %s: targetstrip %d", key, svc.TargetStrip)
		name := strings.Join(labels[svc.TargetStrip:], ".")
		out[name] = append(out[name], svc)
	}
	for _, svcs := range out {
		slices.SortFunc(svcs, func(a, b skydnsService) int {
			return cmp.Or(strings.Compare(a.Host, b.Host), strings.Compare(a.Text, b.Text))
		})
	}
	return out
}

// isOwnershipName reports whether name is one the TXT registry gives an
// ownership record ("a-www.example.org").
func isOwnershipName(name string) bool {
	for _, p := range []string{"a-", "aaaa-", "cname-", "txt-"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// ownershipLabels parses an ownership TXT value as the TXT registry writes
// it: "heritage=external-dns,external-dns/owner=...", quotes included.
func ownershipLabels(text string) map[string]string {
	text, ok := strings.CutPrefix(text, `"`)
	if !ok {
		return nil
	}
	text, ok = strings.CutSuffix(text, `"`)
	if !ok {
		return nil
	}
	out := make(map[string]string)
	for kv := range strings.SplitSeq(text, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

// TestReconcilerCoreDNS runs zonesync's Reconciler with the TXT registry
// over external-dns's coredns provider against a real etcd, through the
// adapter: records are created, updated and deleted over several cycles,
// etcd holds exactly the SkyDNS services they should after each cycle, a
// converged state plans nothing, and keys that are not the Reconciler's
// are never touched.
//
// The coredns provider finds a record's etcd keys by labels Records puts on
// it (the random last label of each key); the registry keeps those labels
// the provider's, over the older copy the ownership TXT holds, and gives
// the TXT records it replaces and deletes the labels read with them, so
// records updated several times are deleted, and no ownership key is ever
// left behind or doubled.
func TestReconcilerCoreDNS(t *testing.T) {
	srv := etcdtest.Start(t, etcdtest.Config{})
	t.Setenv("ETCD_URLS", srv.URL())

	// Keys that are not ours: a record of another writer in the zone, one
	// whose key shares a byte prefix with a record we manage ("www" and
	// "wwwx"), and a key outside the SkyDNS prefix.
	foreign := map[string]string{
		"/skydns/org/example/foreign/x1": `{"host":"192.0.2.99","ttl":60}`,
		"/skydns/org/example/wwwx/x2":    `{"host":"192.0.2.98","ttl":60}`,
		"/other/app/config":              `{"host":"192.0.2.97"}`,
	}
	for k, v := range foreign {
		srv.Put(k, v)
	}
	checkForeign := func(t *testing.T) {
		t.Helper()
		for k, v := range foreign {
			got := srv.Get(k)
			assert.Equal(t, v, got[k], "key %s, not ours, was touched", k)
		}
	}

	p := newCoreDNS(t, "example.org")
	types := []string{endpoint.RecordTypeA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}
	reg, err := txt.New(p, txt.Config{OwnerID: "e2e", ManagedRecordTypes: types})
	require.NoError(t, err)
	src := source.NewStatic()
	r := &zonesync.Reconciler{Source: src, Registry: reg}

	const (
		www  = "service/default/www"
		api  = "ingress/default/api"
		note = "service/default/note"
		old  = "service/default/old"
	)
	a := func(name string, ttl endpoint.TTL, res string, targets ...string) *endpoint.Endpoint {
		return endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeA, ttl, targets...).WithLabel(endpoint.ResourceLabelKey, res)
	}
	cname := func(name string, ttl endpoint.TTL, res, target string) *endpoint.Endpoint {
		return endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeCNAME, ttl, target).WithLabel(endpoint.ResourceLabelKey, res)
	}
	// TXT records without a TTL: external-dns's coredns provider reads TXT
	// records back without one (see txtTTL), so a TTL would be planned as
	// an update at every cycle.
	text := func(name, res, value string) *endpoint.Endpoint {
		return endpoint.NewEndpoint(name, endpoint.RecordTypeTXT, value).WithLabel(endpoint.ResourceLabelKey, res)
	}
	host := func(h string, ttl uint32) skydnsService { return skydnsService{Host: h, TTL: ttl, TargetStrip: 1} }
	// The foreign keys have no random-prefix label (TargetStrip 0): their
	// last label is part of the name.
	foreignServices := map[string][]skydnsService{
		"x1.foreign.example.org": {{Host: "192.0.2.99", TTL: 60}},
		"x2.wwwx.example.org":    {{Host: "192.0.2.98", TTL: 60}},
	}

	cycles := []struct {
		name    string
		desired []*endpoint.Endpoint
		create  int
		update  int
		delete  int
		want    map[string][]skydnsService
	}{{
		name: "create",
		desired: []*endpoint.Endpoint{
			a("www.example.org", 300, www, "192.0.2.1"),
			cname("api.example.org", 300, api, "www.example.org"),
			text("note.example.org", note, "hello world"),
			a("old.example.org", 300, old, "192.0.2.5"),
		},
		create: 4,
		want: map[string][]skydnsService{
			"www.example.org":  {host("192.0.2.1", 300)},
			"api.example.org":  {host("www.example.org", 300)},
			"note.example.org": {{Text: "hello world", TargetStrip: 1}},
			"old.example.org":  {host("192.0.2.5", 300)},
		},
	}, {
		name: "update targets, TTL and text",
		desired: []*endpoint.Endpoint{
			a("www.example.org", 600, www, "192.0.2.2"),
			cname("api.example.org", 300, api, "www.example.org"),
			text("note.example.org", note, "goodbye"),
			a("old.example.org", 300, old, "192.0.2.5"),
		},
		update: 2,
		want: map[string][]skydnsService{
			"www.example.org":  {host("192.0.2.2", 600)},
			"api.example.org":  {host("www.example.org", 300)},
			"note.example.org": {{Text: "goodbye", TargetStrip: 1}},
			"old.example.org":  {host("192.0.2.5", 300)},
		},
	}, {
		name: "update again",
		desired: []*endpoint.Endpoint{
			a("www.example.org", 600, www, "192.0.2.3"),
			cname("api.example.org", 300, api, "www.example.org"),
			text("note.example.org", note, "goodbye"),
			a("old.example.org", 300, old, "192.0.2.5"),
		},
		update: 1,
		want: map[string][]skydnsService{
			"www.example.org":  {host("192.0.2.3", 600)},
			"api.example.org":  {host("www.example.org", 300)},
			"note.example.org": {{Text: "goodbye", TargetStrip: 1}},
			"old.example.org":  {host("192.0.2.5", 300)},
		},
	}, {
		// www was updated twice, note once, old never.
		name: "delete",
		desired: []*endpoint.Endpoint{
			text("note.example.org", note, "goodbye"),
		},
		delete: 3,
		want: map[string][]skydnsService{
			"note.example.org": {{Text: "goodbye", TargetStrip: 1}},
		},
	}, {
		name:    "delete the rest",
		desired: nil,
		delete:  1,
		want:    map[string][]skydnsService{},
	}}
	for _, c := range cycles {
		t.Run(c.name, func(t *testing.T) {
			src.Set(c.desired...)
			cyc, err := r.RunOnce(t.Context())
			changes := cyc.Changes
			require.NoError(t, err)
			assert.Len(t, changes.Create, c.create, "creates")
			assert.Len(t, changes.UpdateNew, c.update, "updates")
			assert.Len(t, changes.Delete, c.delete, "deletes")

			got := skydnsRecords(t, srv)
			ownership := make(map[string][]skydnsService)
			for name, svcs := range got {
				if isOwnershipName(name) {
					ownership[name] = svcs
					delete(got, name)
				}
			}
			want := maps.Clone(c.want)
			maps.Copy(want, foreignServices)
			assert.Equal(t, want, got, "the records in etcd")
			checkForeign(t)

			// Each desired record has its ownership TXT, owned by us for
			// its resource.
			for _, ep := range c.desired {
				name := strings.ToLower(ep.RecordType) + "-" + ep.DNSName
				res, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
				svcs := ownership[name]
				if assert.NotEmpty(t, svcs, "ownership TXT %s", name) {
					assert.True(t, slices.ContainsFunc(svcs, func(s skydnsService) bool {
						l := ownershipLabels(s.Text)
						return l["heritage"] == "external-dns" && l["external-dns/owner"] == "e2e" && l["external-dns/resource"] == res
					}), "ownership TXT %s: %+v", name, svcs)
				}
			}
			// One ownership key per desired record, none for the others.
			for name, svcs := range ownership {
				want := 0
				if slices.ContainsFunc(c.desired, func(ep *endpoint.Endpoint) bool {
					return strings.ToLower(ep.RecordType)+"-"+ep.DNSName == name
				}) {
					want = 1
				}
				assert.Len(t, svcs, want, "ownership keys of %s", name)
			}

			// Converged: the next cycle plans nothing and writes nothing.
			before := srv.Get(corednsPrefix)
			cyc, err = r.RunOnce(t.Context())
			changes = cyc.Changes
			require.NoError(t, err)
			assert.False(t, changes.HasChanges(), "a converged state plans nothing: %+v", changes)
			assert.Equal(t, before, srv.Get(corednsPrefix), "a converged cycle writes nothing")
		})
	}
}

// TestCoreDNSLabelsMap: external-dns's endpoint constructors always make a
// labels map and the coredns provider writes into it (the etcd key prefix
// of each target), so the adapter gives every endpoint one, even one
// without labels.
func TestCoreDNSLabelsMap(t *testing.T) {
	srv := etcdtest.Start(t, etcdtest.Config{})
	t.Setenv("ETCD_URLS", srv.URL())
	p := newCoreDNS(t, "example.org")
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("nolabels.example.org", endpoint.RecordTypeA, 300, "192.0.2.1"),
	}}))
	assert.Len(t, srv.Get(corednsPrefix), 1)
}
