package endpoint_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func TestNewEndpointTrailingDots(t *testing.T) {
	tests := []struct {
		name        string
		dnsName     string
		recordType  string
		targets     []string
		wantName    string
		wantTargets endpoint.Targets
	}{
		{"A strips", "app.example.com.", endpoint.RecordTypeA, []string{"192.0.2.1."}, "app.example.com", endpoint.Targets{"192.0.2.1"}},
		{"AAAA strips", "app.example.com", endpoint.RecordTypeAAAA, []string{"2001:db8::1."}, "app.example.com", endpoint.Targets{"2001:db8::1"}},
		{"CNAME strips", "www.example.com.", endpoint.RecordTypeCNAME, []string{"lb.example.net."}, "www.example.com", endpoint.Targets{"lb.example.net"}},
		{"NS strips", "sub.example.com.", endpoint.RecordTypeNS, []string{"ns1.example.net.", "ns2.example.net"}, "sub.example.com", endpoint.Targets{"ns1.example.net", "ns2.example.net"}},
		{"PTR strips", "1.2.0.192.in-addr.arpa.", endpoint.RecordTypePTR, []string{"host.example.com."}, "1.2.0.192.in-addr.arpa", endpoint.Targets{"host.example.com"}},
		{"DNAME strips", "old.example.com.", endpoint.RecordTypeDNAME, []string{"new.example.com."}, "old.example.com", endpoint.Targets{"new.example.com"}},
		{"MX strips", "example.com.", endpoint.RecordTypeMX, []string{"10 mail.example.com."}, "example.com", endpoint.Targets{"10 mail.example.com"}},
		{"SRV keeps", "_sip._tcp.example.com.", endpoint.RecordTypeSRV, []string{"10 5 5060 sip.example.com."}, "_sip._tcp.example.com", endpoint.Targets{"10 5 5060 sip.example.com."}},
		{"NAPTR keeps", "example.com.", endpoint.RecordTypeNAPTR, []string{`100 10 "S" "SIP+D2U" "" _sip._udp.example.com.`}, "example.com", endpoint.Targets{`100 10 "S" "SIP+D2U" "" _sip._udp.example.com.`}},
		{"TXT keeps", "example.com.", endpoint.RecordTypeTXT, []string{"v=spf1 -all."}, "example.com", endpoint.Targets{"v=spf1 -all."}},
		{"unknown type keeps", "example.com.", "CAA", []string{`0 issue "ca.example.net."`}, "example.com", endpoint.Targets{`0 issue "ca.example.net."`}},
		{"only one dot is stripped", "example.com..", endpoint.RecordTypeCNAME, []string{"a.example.net.."}, "example.com.", endpoint.Targets{"a.example.net."}},
		{"lower-case record type is not known", "example.com", "cname", []string{"a.example.net."}, "example.com", endpoint.Targets{"a.example.net."}},
		{"no targets", "example.com.", endpoint.RecordTypeA, nil, "example.com", endpoint.Targets{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := endpoint.NewEndpoint(tt.dnsName, tt.recordType, tt.targets...)
			require.NotNil(t, ep)
			assert.Equal(t, tt.wantName, ep.DNSName)
			assert.Equal(t, tt.recordType, ep.RecordType)
			assert.Equal(t, tt.wantTargets, ep.Targets)
			assert.Equal(t, endpoint.TTL(0), ep.RecordTTL)
			assert.False(t, ep.RecordTTL.IsConfigured())

			withTTL := endpoint.NewEndpointWithTTL(tt.dnsName, tt.recordType, 300, tt.targets...)
			assert.Equal(t, tt.wantName, withTTL.DNSName)
			assert.Equal(t, tt.wantTargets, withTTL.Targets)
			assert.Equal(t, endpoint.TTL(300), withTTL.RecordTTL)
		})
	}
}

func TestNewEndpointCopiesTargets(t *testing.T) {
	targets := []string{"192.0.2.1", "192.0.2.2"}
	ep := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, targets...)
	targets[0] = "198.51.100.1"
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, ep.Targets)
}

func TestWithHelpers(t *testing.T) {
	ep := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")
	got := ep.WithSetIdentifier("eu").
		WithLabel(endpoint.OwnerLabelKey, "default").
		WithLabel(endpoint.ResourceLabelKey, "service/default/a").
		WithProviderSpecific("alias", "false").
		WithProviderSpecific("webhook/x", "1")
	assert.Same(t, ep, got, "With* helpers return the receiver")
	assert.Equal(t, "eu", ep.SetIdentifier)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "service/default/a"}), ep.Labels)
	assert.Equal(t, endpoint.ProviderSpecific{{Name: "alias", Value: "false"}, {Name: "webhook/x", Value: "1"}}, ep.ProviderSpecific)

	// WithLabel replaces an existing value.
	ep.WithLabel(endpoint.OwnerLabelKey, "other")
	assert.Equal(t, "other", labelValue(ep.Labels, endpoint.OwnerLabelKey))
	// WithProviderSpecific replaces in place.
	ep.WithProviderSpecific("alias", "true")
	assert.Equal(t, endpoint.ProviderSpecific{{Name: "alias", Value: "true"}, {Name: "webhook/x", Value: "1"}}, ep.ProviderSpecific)
}

func TestProviderSpecificGetSetDelete(t *testing.T) {
	ep := &endpoint.Endpoint{}
	_, ok := ep.GetProviderSpecificProperty("alias")
	assert.False(t, ok, "nil list")

	ep.SetProviderSpecificProperty("b", "1")
	ep.SetProviderSpecificProperty("a", "2")
	ep.SetProviderSpecificProperty("c", "")
	ep.SetProviderSpecificProperty("b", "3") // replaces in place
	assert.Equal(t, endpoint.ProviderSpecific{{Name: "b", Value: "3"}, {Name: "a", Value: "2"}, {Name: "c"}}, ep.ProviderSpecific)

	v, ok := ep.GetProviderSpecificProperty("b")
	assert.True(t, ok)
	assert.Equal(t, "3", v)
	v, ok = ep.GetProviderSpecificProperty("c")
	assert.True(t, ok, "present with an empty value")
	assert.Empty(t, v)
	_, ok = ep.GetProviderSpecificProperty("B")
	assert.False(t, ok, "lookup is by exact name")

	// Delete removes every property of that name and keeps the order of the rest.
	ep.ProviderSpecific = append(ep.ProviderSpecific, endpoint.ProviderSpecificProperty{Name: "b", Value: "4"})
	ep.DeleteProviderSpecificProperty("b")
	assert.Equal(t, endpoint.ProviderSpecific{{Name: "a", Value: "2"}, {Name: "c"}}, ep.ProviderSpecific)
	ep.DeleteProviderSpecificProperty("missing")
	assert.Len(t, ep.ProviderSpecific, 2)

	v, ok = ep.ProviderSpecific.Get("a")
	assert.True(t, ok)
	assert.Equal(t, "2", v)
}

func TestProviderSpecificSame(t *testing.T) {
	p := func(kv ...string) endpoint.ProviderSpecific {
		out := endpoint.ProviderSpecific{}
		for i := 0; i < len(kv); i += 2 {
			out = append(out, endpoint.ProviderSpecificProperty{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		a, b endpoint.ProviderSpecific
		want bool
	}{
		{"both nil", nil, nil, true},
		{"nil and empty", nil, endpoint.ProviderSpecific{}, true},
		{"equal", p("a", "1", "b", "2"), p("a", "1", "b", "2"), true},
		{"order ignored", p("a", "1", "b", "2", "c", "3"), p("c", "3", "a", "1", "b", "2"), true},
		{"value differs", p("a", "1"), p("a", "2"), false},
		{"name differs", p("a", "1"), p("A", "1"), false},
		{"length differs", p("a", "1"), p("a", "1", "a", "1"), false},
		{"multiplicity counts", p("a", "1", "a", "1", "b", "2"), p("a", "1", "b", "2", "b", "2"), false},
		{"multiplicity equal", p("a", "1", "b", "2", "a", "1"), p("a", "1", "a", "1", "b", "2"), true},
		{"empty value vs missing", p("a", ""), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.a.Same(tt.b))
			assert.Equal(t, tt.want, tt.b.Same(tt.a), "symmetric")
		})
	}
}

func TestProviderSpecificCount(t *testing.T) {
	a := endpoint.ProviderSpecificProperty{Name: "a", Value: "1"}
	ps := endpoint.ProviderSpecific{a, {Name: "a", Value: "2"}, a, {Name: "b", Value: "1"}}
	tests := []struct {
		name string
		ps   endpoint.ProviderSpecific
		p    endpoint.ProviderSpecificProperty
		want int
	}{
		{"twice", ps, a, 2},
		{"name and value both count", ps, endpoint.ProviderSpecificProperty{Name: "a", Value: "2"}, 1},
		{"absent", ps, endpoint.ProviderSpecificProperty{Name: "c"}, 0},
		{"nil list", nil, a, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.ps.Count(tt.p))
		})
	}
}

func TestProviderSpecificSameDoesNotAllocate(t *testing.T) {
	a := endpoint.ProviderSpecific{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "c", Value: "3"}}
	b := endpoint.ProviderSpecific{{Name: "c", Value: "3"}, {Name: "b", Value: "2"}, {Name: "a", Value: "1"}}
	allocs := testing.AllocsPerRun(100, func() {
		if !a.Same(b) {
			panic("not same")
		}
	})
	assert.Zero(t, allocs)
}

func TestTTLIsConfigured(t *testing.T) {
	for ttl, want := range map[endpoint.TTL]bool{-1: false, 0: false, 1: true, 300: true} {
		assert.Equal(t, want, ttl.IsConfigured(), "TTL %d", ttl)
	}
}

func TestIsOwnedBy(t *testing.T) {
	tests := []struct {
		name   string
		labels endpoint.Labels
		owner  string
		want   bool
	}{
		{"owner matches", endpoint.LabelsFromMap(map[string]string{"owner": "default"}), "default", true},
		{"other owner", endpoint.LabelsFromMap(map[string]string{"owner": "other"}), "default", false},
		{"no labels", endpoint.Labels{}, "default", false},
		{"no owner label", endpoint.LabelsFromMap(map[string]string{"resource": "x"}), "default", false},
		{"empty owner id owns nothing", endpoint.LabelsFromMap(map[string]string{"owner": ""}), "", false},
		{"case matters", endpoint.LabelsFromMap(map[string]string{"owner": "Default"}), "default", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")
			ep.Labels = tt.labels
			assert.Equal(t, tt.want, ep.IsOwnedBy(tt.owner))
		})
	}
}

func TestKeyAndString(t *testing.T) {
	ep := endpoint.NewEndpointWithTTL("a.example.com", endpoint.RecordTypeA, 60, "192.0.2.1", "192.0.2.2")
	assert.Equal(t, endpoint.Key{DNSName: "a.example.com", RecordType: "A"}, ep.Key())
	assert.Equal(t, "a.example.com/A", ep.Key().String())
	assert.Equal(t, "a.example.com 60 IN A  192.0.2.1;192.0.2.2", ep.String())

	ep.WithSetIdentifier("eu").WithProviderSpecific("alias", "true")
	assert.Equal(t, endpoint.Key{DNSName: "a.example.com", RecordType: "A", SetIdentifier: "eu"}, ep.Key())
	assert.Equal(t, "a.example.com/A/eu", ep.Key().String())
	assert.Equal(t, "a.example.com 60 IN A eu 192.0.2.1;192.0.2.2 [{alias true}]", ep.String())

	var nilEp *endpoint.Endpoint
	assert.Equal(t, "<nil>", nilEp.String())
	assert.Equal(t, "a;b", endpoint.Targets{"a", "b"}.String())
}

func TestDeepCopySharesNothing(t *testing.T) {
	orig := endpoint.NewEndpointWithTTL("a.example.com", endpoint.RecordTypeA, 60, "192.0.2.1", "192.0.2.2").
		WithSetIdentifier("eu").
		WithLabel("owner", "default").
		WithProviderSpecific("alias", "false")
	cp := orig.DeepCopy()
	require.NotSame(t, orig, cp)
	require.Equal(t, orig, cp)
	require.True(t, orig.Equal(cp))

	cp.DNSName = "b.example.com"
	cp.Targets[0] = "198.51.100.1"
	cp.Targets = append(cp.Targets, "198.51.100.2")
	cp.Labels.Set("owner", "other")
	cp.Labels.Set("new", "x")
	cp.ProviderSpecific[0].Value = "true"
	cp.SetProviderSpecificProperty("more", "1")

	assert.Equal(t, "a.example.com", orig.DNSName)
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, orig.Targets)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "default"}), orig.Labels)
	assert.Equal(t, endpoint.ProviderSpecific{{Name: "alias", Value: "false"}}, orig.ProviderSpecific)

	var nilEp *endpoint.Endpoint
	assert.Nil(t, nilEp.DeepCopy())

	// nil and empty are preserved as they are (empty labels are the zero
	// value).
	empty := &endpoint.Endpoint{Targets: endpoint.Targets{}, Labels: endpoint.Labels{}}
	ecp := empty.DeepCopy()
	assert.NotNil(t, ecp.Targets)
	assert.Equal(t, endpoint.Labels{}, ecp.Labels)
	assert.Nil(t, ecp.ProviderSpecific)
}

func TestEqual(t *testing.T) {
	base := func() *endpoint.Endpoint {
		return endpoint.NewEndpointWithTTL("a.example.com", endpoint.RecordTypeA, 60, "192.0.2.1", "192.0.2.2").
			WithSetIdentifier("eu").
			WithLabel("owner", "default").
			WithProviderSpecific("a", "1").
			WithProviderSpecific("b", "2")
	}
	tests := []struct {
		name   string
		modify func(e *endpoint.Endpoint)
		want   bool
	}{
		{"identical", func(*endpoint.Endpoint) {}, true},
		{"targets reordered", func(e *endpoint.Endpoint) { e.Targets = endpoint.Targets{"192.0.2.2", "192.0.2.1"} }, true},
		{"provider-specific reordered", func(e *endpoint.Endpoint) {
			e.ProviderSpecific = endpoint.ProviderSpecific{{Name: "b", Value: "2"}, {Name: "a", Value: "1"}}
		}, true},
		{"name differs", func(e *endpoint.Endpoint) { e.DNSName = "b.example.com" }, false},
		{"name case differs", func(e *endpoint.Endpoint) { e.DNSName = "A.example.com" }, false},
		{"type differs", func(e *endpoint.Endpoint) { e.RecordType = "AAAA" }, false},
		{"set identifier differs", func(e *endpoint.Endpoint) { e.SetIdentifier = "us" }, false},
		{"TTL differs", func(e *endpoint.Endpoint) { e.RecordTTL = 61 }, false},
		{"targets differ", func(e *endpoint.Endpoint) { e.Targets = endpoint.Targets{"192.0.2.1"} }, false},
		{"label value differs", func(e *endpoint.Endpoint) { e.Labels.Set("owner", "x") }, false},
		{"extra label", func(e *endpoint.Endpoint) { e.Labels.Set("resource", "x") }, false},
		{"label key differs", func(e *endpoint.Endpoint) { e.Labels = endpoint.LabelsFromMap(map[string]string{"Owner": "default"}) }, false},
		{"provider-specific differs", func(e *endpoint.Endpoint) { e.SetProviderSpecificProperty("a", "9") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := base(), base()
			tt.modify(b)
			assert.Equal(t, tt.want, a.Equal(b))
			assert.Equal(t, tt.want, b.Equal(a), "symmetric")
		})
	}

	var nilEp *endpoint.Endpoint
	assert.True(t, nilEp.Equal(nil))
	assert.False(t, nilEp.Equal(base()))
	assert.False(t, base().Equal(nil))
	assert.True(t, (&endpoint.Endpoint{Labels: endpoint.Labels{}}).Equal(&endpoint.Endpoint{}), "nil and empty labels are equal")
}

func TestKnownAndDefaultRecordTypes(t *testing.T) {
	known := endpoint.KnownRecordTypes()
	assert.Equal(t, []string{"A", "AAAA", "CNAME", "NS", "MX", "PTR", "SRV", "NAPTR", "TXT", "DNAME", "TLSA"}, known)
	known[0] = "changed"
	assert.Equal(t, "A", endpoint.KnownRecordTypes()[0], "a new slice on every call")

	def := endpoint.DefaultManagedRecordTypes()
	assert.Equal(t, []string{"A", "AAAA", "CNAME"}, def)
	def[0] = "changed"
	assert.Equal(t, "A", endpoint.DefaultManagedRecordTypes()[0])
}

func TestCompare(t *testing.T) {
	a := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")
	tests := []struct {
		name string
		x, y *endpoint.Endpoint
		want int
	}{
		{name: "equal keys", x: a, y: endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.9"), want: 0},
		{name: "name first", x: endpoint.NewEndpoint("b.example.com", endpoint.RecordTypeA, "192.0.2.1"), y: endpoint.NewEndpoint("c.example.com", endpoint.RecordTypeA, "192.0.2.1"), want: -1},
		{name: "set identifier before type", x: endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeCNAME, "x.example.com"), y: endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1").WithSetIdentifier("eu"), want: -1},
		{name: "type last", x: endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeAAAA, "2001:db8::1"), y: a, want: 1},
		{name: "nil first", x: nil, y: a, want: -1},
		{name: "nil after", x: a, y: nil, want: 1},
		{name: "both nil", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, endpoint.Compare(tt.x, tt.y))
			assert.Equal(t, -tt.want, endpoint.Compare(tt.y, tt.x))
		})
	}
}

func TestDeepCopyAll(t *testing.T) {
	assert.Nil(t, endpoint.DeepCopyAll(nil))
	assert.Equal(t, []*endpoint.Endpoint{nil}, endpoint.DeepCopyAll([]*endpoint.Endpoint{nil}))

	in := []*endpoint.Endpoint{
		endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1", "192.0.2.2").
			WithLabel(endpoint.OwnerLabelKey, "me").WithProviderSpecific("alias", "false"),
		nil,
		endpoint.NewEndpoint("b.example.com", endpoint.RecordTypeTXT, `"x"`).WithSetIdentifier("eu"),
	}
	out := endpoint.DeepCopyAll(in)
	require.Len(t, out, 3)
	assert.Nil(t, out[1])
	for i := range in {
		if in[i] == nil {
			continue
		}
		assert.True(t, in[i].Equal(out[i]))
		assert.NotSame(t, in[i], out[i])
	}

	// The copies share nothing with the input, and appending to one copy's
	// slices does not write into the next copy.
	out[0].Targets[0] = "203.0.113.1"
	out[0].Labels.Set("owner", "other")
	out[0].ProviderSpecific[0].Value = "true"
	assert.Equal(t, "192.0.2.1", in[0].Targets[0])
	assert.Equal(t, "me", labelValue(in[0].Labels, "owner"))
	assert.Equal(t, "false", in[0].ProviderSpecific[0].Value)
	out[0].Targets = append(out[0].Targets, "203.0.113.2")
	assert.Equal(t, endpoint.Targets{`"x"`}, out[2].Targets)

	allocs := testing.AllocsPerRun(20, func() { _ = endpoint.DeepCopyAll(in) })
	assert.LessOrEqual(t, allocs, 6.0, "slab copy: out, structs, targets, props and one label map (header and slots)")
}
