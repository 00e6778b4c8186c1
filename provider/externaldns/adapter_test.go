package externaldns_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xplan "sigs.k8s.io/external-dns/plan"
	xprovider "sigs.k8s.io/external-dns/provider"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
)

// fake is an external-dns provider whose methods the test sets.
type fake struct {
	records func(ctx context.Context) ([]*xendpoint.Endpoint, error)
	apply   func(ctx context.Context, c *xplan.Changes) error
	adjust  func(eps []*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error)
	filter  xendpoint.DomainFilterInterface
}

func (f *fake) Records(ctx context.Context) ([]*xendpoint.Endpoint, error) {
	if f.records == nil {
		return nil, nil
	}
	return f.records(ctx)
}

func (f *fake) ApplyChanges(ctx context.Context, c *xplan.Changes) error {
	if f.apply == nil {
		return nil
	}
	return f.apply(ctx, c)
}

func (f *fake) AdjustEndpoints(eps []*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error) {
	if f.adjust == nil {
		return eps, nil
	}
	return f.adjust(eps)
}

func (f *fake) GetDomainFilter() xendpoint.DomainFilterInterface { return f.filter }

func TestRecordsCanonicalAndSorted(t *testing.T) {
	p := externaldns.Wrap(&fake{records: func(context.Context) ([]*xendpoint.Endpoint, error) {
		return []*xendpoint.Endpoint{
			xendpoint.NewEndpoint("b.example.org", "A", "192.0.2.2"),
			nil,
			{DNSName: "WWW.Example.ORG.", RecordType: "A", Targets: xendpoint.Targets{"192.0.2.1"}},
			{DNSName: "münchen.example.org", RecordType: "A", Targets: xendpoint.Targets{"192.0.2.3"}},
			xendpoint.NewEndpoint("a.example.org", "TXT", "x"),
		}, nil
	}})
	eps, err := p.Records(t.Context())
	require.NoError(t, err)
	var got []string
	for _, ep := range eps {
		got = append(got, ep.DNSName+"/"+ep.RecordType)
	}
	assert.Equal(t, []string{"a.example.org/TXT", "b.example.org/A", "www.example.org/A", "xn--mnchen-3ya.example.org/A"}, got)
}

// A record Records found under another spelling is changed under that
// spelling; new records and other names get zonesync's form.
func TestChangesUseTheProvidersSpelling(t *testing.T) {
	var applied *xplan.Changes
	p := externaldns.Wrap(&fake{
		records: func(context.Context) ([]*xendpoint.Endpoint, error) {
			return []*xendpoint.Endpoint{{DNSName: "WWW.Example.ORG.", RecordType: "A", Targets: xendpoint.Targets{"192.0.2.1"}}}, nil
		},
		apply: func(_ context.Context, c *xplan.Changes) error { applied = c; return nil },
	})
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	update := recs[0].DeepCopy()
	update.Targets = endpoint.Targets{"192.0.2.9"}
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{
		Create:    []*endpoint.Endpoint{endpoint.NewEndpoint("New.Example.org.", "A", "192.0.2.5")},
		UpdateOld: []*endpoint.Endpoint{recs[0]},
		UpdateNew: []*endpoint.Endpoint{update},
	}))
	require.NotNil(t, applied)
	assert.Equal(t, "new.example.org", applied.Create[0].DNSName)
	assert.Equal(t, "WWW.Example.ORG.", applied.UpdateOld[0].DNSName)
	assert.Equal(t, "WWW.Example.ORG.", applied.UpdateNew[0].DNSName)
	assert.Equal(t, "www.example.org", recs[0].DNSName, "the caller's endpoints are not modified")
}

func TestErrors(t *testing.T) {
	hard := errors.New("zone not found")
	tests := []struct {
		name     string
		err      error
		soft     bool
		contains string
	}{
		{"hard error stays hard", hard, false, "external-dns test provider: Records: zone not found"},
		{"soft error becomes zonesync's", xprovider.NewSoftErrorf("rate limited"), true, "rate limited"},
		{"wrapped soft error", fmt.Errorf("listing: %w", xprovider.NewSoftError(hard)), true, "zone not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := externaldns.Wrap(&fake{
				records: func(context.Context) ([]*xendpoint.Endpoint, error) { return nil, tt.err },
				apply:   func(context.Context, *xplan.Changes) error { return tt.err },
				adjust:  func([]*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error) { return nil, tt.err },
			}, externaldns.Options{Name: "test"})
			_, rerr := p.Records(t.Context())
			aerr := p.ApplyChanges(t.Context(), &plan.Changes{})
			_, jerr := p.AdjustEndpoints(t.Context(), nil)
			for _, err := range []error{rerr, aerr, jerr} {
				require.Error(t, err)
				assert.Equal(t, tt.soft, errors.Is(err, provider.SoftError), "zonesync soft error: %v", err)
				assert.Equal(t, tt.soft, errors.Is(err, xprovider.SoftError), "the original chain is kept: %v", err)
				assert.ErrorIs(t, err, tt.err)
			}
			assert.Contains(t, rerr.Error(), tt.contains)
			assert.Contains(t, aerr.Error(), "ApplyChanges")
			assert.Contains(t, jerr.Error(), "AdjustEndpoints")
		})
	}
}

func TestPanicsAreRecovered(t *testing.T) {
	boom := errors.New("boom")
	p := externaldns.Wrap(&fake{
		records: func(context.Context) ([]*xendpoint.Endpoint, error) { panic("index out of range") },
		apply:   func(context.Context, *xplan.Changes) error { panic(boom) },
		adjust:  func([]*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error) { panic(nil) },
	}, externaldns.Options{Name: "buggy"})
	_, err := p.Records(t.Context())
	var pe *externaldns.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "buggy", pe.Provider)
	assert.Equal(t, "Records", pe.Method)
	assert.Contains(t, string(pe.Stack), "adapter_test.go")
	assert.Contains(t, err.Error(), "panicked in Records: index out of range")

	err = p.ApplyChanges(t.Context(), &plan.Changes{})
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, boom)

	_, err = p.AdjustEndpoints(t.Context(), nil)
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "AdjustEndpoints", pe.Method)
	// Later calls still work: the provider's lock was released.
	_, err = p.Records(t.Context())
	require.Error(t, err)
}

func TestCancelledContextIsNotPassedOn(t *testing.T) {
	called := false
	p := externaldns.Wrap(&fake{
		records: func(context.Context) ([]*xendpoint.Endpoint, error) { called = true; return nil, nil },
		apply:   func(context.Context, *xplan.Changes) error { called = true; return nil },
		adjust:  func(eps []*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error) { called = true; return eps, nil },
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := p.Records(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, p.ApplyChanges(ctx, &plan.Changes{}), context.Canceled)
	_, err = p.AdjustEndpoints(ctx, nil)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, called)
}

func TestAdjustEndpoints(t *testing.T) {
	p := externaldns.Wrap(&fake{adjust: func(eps []*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error) {
		for _, ep := range eps {
			ep.RecordTTL = 60 // providers may modify what they are given
			ep.DNSName = strings.ToUpper(ep.DNSName)
		}
		return append(eps, nil), nil
	}})
	in := []*endpoint.Endpoint{
		endpoint.NewEndpoint("a.example.org", "A", "192.0.2.1").WithProviderSpecific("alias", "A"),
		endpoint.NewEndpoint("b.example.org", "AAAA", "2001:db8::1").WithProviderSpecific("alias", "AAAA"),
		endpoint.NewEndpoint("c.example.org", "AAAA", "2001:db8::1").WithProviderSpecific("alias", "A"),
		endpoint.NewEndpoint("d.example.org", "CNAME", "x.example.org"),
	}
	want := make([]*endpoint.Endpoint, len(in))
	for i, ep := range in {
		want[i] = ep.DeepCopy()
	}
	out, err := p.AdjustEndpoints(t.Context(), in)
	require.NoError(t, err)
	require.Len(t, out, 4)
	alias := func(ep *endpoint.Endpoint) string { v, _ := ep.GetProviderSpecificProperty("alias"); return v }
	assert.Equal(t, []string{"true", "true", "A", ""}, []string{alias(out[0]), alias(out[1]), alias(out[2]), alias(out[3])})
	assert.Equal(t, "a.example.org", out[0].DNSName, "names come back in zonesync's form")
	assert.Equal(t, endpoint.TTL(60), out[0].RecordTTL)
	for i := range in {
		assert.True(t, want[i].Equal(in[i]), "input %d modified", i)
	}
}

func TestDomainFilterPassedThrough(t *testing.T) {
	f := xendpoint.NewDomainFilter([]string{"example.org"})
	p := externaldns.Wrap(&fake{filter: f})
	got := p.GetDomainFilter()
	assert.True(t, got.Match("www.example.org"))
	assert.False(t, got.Match("www.example.com"))
	// A provider without a filter matches everything.
	assert.True(t, externaldns.Wrap(&fake{}).GetDomainFilter().Match("anything.test"))
}

func TestCallsAreLogged(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{Verbosity: 1})
	ctx := logr.NewContext(t.Context(), log)
	p := externaldns.Wrap(&fake{
		records: func(context.Context) ([]*xendpoint.Endpoint, error) {
			return []*xendpoint.Endpoint{xendpoint.NewEndpoint("a.example.org", "A", "192.0.2.1")}, nil
		},
		apply: func(context.Context, *xplan.Changes) error { return errors.New("denied") },
	}, externaldns.Options{Name: "logged"})
	_, err := p.Records(ctx)
	require.NoError(t, err)
	require.Error(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.org", "A", "192.0.2.2")}}))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"msg"="external-dns provider read records" "provider"="logged" "records"=1`)
	assert.Contains(t, lines[1], `"msg"="external-dns provider call failed" "error"="external-dns logged provider: ApplyChanges: denied"`)
	assert.Contains(t, lines[1], `"create"=1`)
}

func TestConcurrentCallsAreSerialised(t *testing.T) {
	var inside, most int
	var mu sync.Mutex
	enter := func() {
		mu.Lock()
		inside++
		most = max(most, inside)
		mu.Unlock()
	}
	leave := func() { mu.Lock(); inside--; mu.Unlock() }
	p := externaldns.Wrap(&fake{
		records: func(context.Context) ([]*xendpoint.Endpoint, error) { enter(); defer leave(); return nil, nil },
		apply:   func(context.Context, *xplan.Changes) error { enter(); defer leave(); return nil },
	})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			_, _ = p.Records(t.Context())
			_ = p.ApplyChanges(t.Context(), &plan.Changes{})
		})
	}
	wg.Wait()
	assert.Equal(t, 1, most)
}

func TestNew(t *testing.T) {
	ctor := func(_ context.Context, cfg *xconfig.Config, f *xendpoint.DomainFilter) (xprovider.Provider, error) {
		if cfg.Provider == "broken" {
			return nil, errors.New("missing credentials")
		}
		if cfg.Provider == "nil" {
			return nil, nil
		}
		return &fake{filter: f}, nil
	}
	cfg := xconfig.NewConfig()
	cfg.Provider = "mine"
	p, err := externaldns.New(t.Context(), ctor, cfg, xendpoint.NewDomainFilter([]string{"example.org"}))
	require.NoError(t, err)
	assert.Equal(t, "mine", p.Name())
	assert.False(t, p.GetDomainFilter().Match("example.com"))
	assert.IsType(t, &fake{}, p.ExternalDNS())

	p, err = externaldns.New(t.Context(), ctor, nil, nil, externaldns.Options{Name: "named"})
	require.NoError(t, err)
	assert.Equal(t, "named", p.Name())
	assert.True(t, p.GetDomainFilter().Match("example.com"))

	for name, want := range map[string]string{
		"broken": "external-dns broken provider: missing credentials",
		"nil":    "returned no provider and no error",
	} {
		cfg := xconfig.NewConfig()
		cfg.Provider = name
		_, err := externaldns.New(t.Context(), ctor, cfg, nil)
		require.ErrorContains(t, err, want)
	}
	cfg = xconfig.NewConfig()
	cfg.ProviderCacheTime = 1
	_, err = externaldns.New(t.Context(), ctor, cfg, nil)
	require.ErrorContains(t, err, "provider/cache")
	_, err = externaldns.New(t.Context(), nil, nil, nil)
	require.Error(t, err)
	panicking := func(context.Context, *xconfig.Config, *xendpoint.DomainFilter) (xprovider.Provider, error) {
		panic("nil map")
	}
	_, err = externaldns.New(t.Context(), panicking, nil, nil)
	var pe *externaldns.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Panics(t, func() { externaldns.Wrap(nil) })
}

func TestParseFlags(t *testing.T) {
	cfg, err := externaldns.ParseFlags([]string{"--provider=aws", "--aws-zone-type=public"})
	require.NoError(t, err)
	assert.Equal(t, "aws", cfg.Provider)
	assert.Equal(t, "public", cfg.AWSZoneType)
	assert.Equal(t, 1000, cfg.AWSBatchChangeSize, "flag defaults are filled in")
	assert.Equal(t, []string{"fake"}, cfg.Sources)

	cfg, err = externaldns.ParseFlags([]string{"--provider=pdns", "--source=service", "--pdns-server=http://127.0.0.1:8081"})
	require.NoError(t, err)
	assert.Equal(t, []string{"service"}, cfg.Sources)
	assert.Equal(t, "http://127.0.0.1:8081", cfg.PDNSServer)

	for _, args := range [][]string{
		{"--aws-zone-type=public"},              // --provider is required
		{"--provider=nonesuch"},                 // not a provider
		{"--provider=aws", "--no-such-flag=1"},  // unknown flag
		{"--provider=aws", "--help"},            // would exit the process
		{"--provider=aws", "--version"},         // would exit the process
		{"--provider=aws", "--completion-bash"}, // would exit the process
	} {
		_, err := externaldns.ParseFlags(args)
		assert.Error(t, err, "%q", args)
	}
}

// TestWaitingForTheProviderHonoursTheContext is the regression test of a
// finding of issue 33: a provider call that ignores its context keeps the
// provider busy, and the calls that wait for their turn must give up when
// their own context ends instead of waiting with it. GetDomainFilter, which
// has no context, waits and then works.
func TestWaitingForTheProviderHonoursTheContext(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	stuck := true
	p := externaldns.Wrap(&zonesFake{
		fake: fake{
			records: func(context.Context) ([]*xendpoint.Endpoint, error) {
				if stuck {
					stuck = false
					close(entered)
					<-release // ignores its context
				}
				return nil, nil
			},
			filter: xendpoint.NewDomainFilter([]string{"example.org"}),
		},
		zones: func() map[string]string { return map[string]string{"example.org": "example.org"} },
	}, externaldns.Options{Name: "stuck"})
	go func() { _, _ = p.Records(context.Background()) }()
	<-entered

	calls := []struct {
		method string
		call   func(ctx context.Context) error
	}{
		{"Records", func(ctx context.Context) error { _, err := p.Records(ctx); return err }},
		{"ApplyChanges", func(ctx context.Context) error { return p.ApplyChanges(ctx, &plan.Changes{}) }},
		{"AdjustEndpoints", func(ctx context.Context) error { _, err := p.AdjustEndpoints(ctx, nil); return err }},
		{"ListZones", func(ctx context.Context) error { _, err := p.ListZones(ctx); return err }},
	}
	for _, c := range calls {
		t.Run(c.method, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.call(ctx) }()
			select {
			case err := <-done:
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.ErrorContains(t, err, "external-dns stuck provider: "+c.method+": waiting for the provider's previous call to end")
			case <-time.After(10 * time.Second):
				t.Fatalf("%s still waits for the provider 10 s after its context ended", c.method)
			}
		})
	}

	filter := make(chan endpoint.DomainFilterInterface, 1)
	go func() { filter <- p.GetDomainFilter() }()
	select {
	case <-filter:
		t.Fatal("GetDomainFilter called the provider while another call was in it")
	case <-time.After(50 * time.Millisecond):
	}
	once.Do(func() { close(release) })
	select {
	case f := <-filter:
		assert.True(t, f.Match("www.example.org"))
		assert.False(t, f.Match("www.example.com"))
	case <-time.After(10 * time.Second):
		t.Fatal("GetDomainFilter did not return once the provider was free")
	}
	zones, err := p.ListZones(t.Context())
	require.NoError(t, err, "the provider is free again")
	assert.Equal(t, []string{"example.org"}, zones)
}

// TestChangesReachTheRecordTheyConcern is the regression test of a finding
// of issue 33: a provider that returns two spellings of one name
// ("App.Example.com." and "app.example.com") must receive every change
// under the spelling of the record the change is about, told apart by
// type, set identifier and, when those are the same, targets.
func TestChangesReachTheRecordTheyConcern(t *testing.T) {
	stored := []*xendpoint.Endpoint{
		{DNSName: "App.Example.com.", RecordType: "A", Targets: xendpoint.Targets{"192.0.2.1"}},
		{DNSName: "app.example.com", RecordType: "A", Targets: xendpoint.Targets{"192.0.2.2"}},
		{DNSName: "App.Example.com.", RecordType: "TXT", Targets: xendpoint.Targets{"text"}},
		{DNSName: "Api.Example.com.", RecordType: "A", SetIdentifier: "eu", Targets: xendpoint.Targets{"192.0.2.3"}},
		{DNSName: "api.example.com", RecordType: "A", SetIdentifier: "us", Targets: xendpoint.Targets{"192.0.2.4"}},
		{DNSName: "Www.Example.com.", RecordType: "CNAME", Targets: xendpoint.Targets{"app.example.com"}},
	}
	var applied *xplan.Changes
	p := externaldns.Wrap(&fake{
		records: func(context.Context) ([]*xendpoint.Endpoint, error) { return stored, nil },
		apply:   func(_ context.Context, c *xplan.Changes) error { applied = c; return nil },
	})
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	find := func(name, typ, setID, target string) *endpoint.Endpoint {
		for _, r := range recs {
			if r.DNSName == name && r.RecordType == typ && r.SetIdentifier == setID && r.Targets[0] == target {
				return r.DeepCopy()
			}
		}
		t.Fatalf("no record %s %s %s %s", name, typ, setID, target)
		return nil
	}
	tests := []struct {
		name string
		rec  *endpoint.Endpoint
		want string
	}{
		{"same identity, first spelling", find("app.example.com", "A", "", "192.0.2.1"), "App.Example.com."},
		{"same identity, second spelling", find("app.example.com", "A", "", "192.0.2.2"), "app.example.com"},
		{"another type", find("app.example.com", "TXT", "", "text"), "App.Example.com."},
		{"set identifier eu", find("api.example.com", "A", "eu", "192.0.2.3"), "Api.Example.com."},
		{"set identifier us", find("api.example.com", "A", "us", "192.0.2.4"), "api.example.com"},
		{"one spelling", find("www.example.com", "CNAME", "", "app.example.com"), "Www.Example.com."},
	}
	for _, tt := range tests {
		t.Run(tt.name+": delete", func(t *testing.T) {
			require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Delete: []*endpoint.Endpoint{tt.rec}}))
			assert.Equal(t, tt.want, applied.Delete[0].DNSName)
		})
		t.Run(tt.name+": update", func(t *testing.T) {
			newRec := tt.rec.DeepCopy()
			newRec.Targets = endpoint.Targets{"192.0.2.99"}
			require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{tt.rec}, UpdateNew: []*endpoint.Endpoint{newRec},
			}))
			assert.Equal(t, tt.want, applied.UpdateOld[0].DNSName)
			assert.Equal(t, tt.want, applied.UpdateNew[0].DNSName, "the new record goes under the replaced one's spelling")
		})
	}
	t.Run("creates", func(t *testing.T) {
		require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{
			endpoint.NewEndpoint("New.Example.com.", "A", "192.0.2.5"),
			endpoint.NewEndpoint("www.example.com", "CNAME", "other.example.com"),
			endpoint.NewEndpoint("app.example.com", "A", "192.0.2.7"),
		}}))
		assert.Equal(t, "new.example.com", applied.Create[0].DNSName, "a new name in zonesync's form")
		assert.Equal(t, "Www.Example.com.", applied.Create[1].DNSName, "under the spelling of the record set it would meet")
		assert.Equal(t, "app.example.com", applied.Create[2].DNSName, "several spellings and none with these targets: zonesync's form")
	})
}

// TestDeleteReachesTheRecordItConcerns runs the spelling regression
// against external-dns's in-memory provider, whose names are case
// sensitive: it holds "App.example.com" and "app.example.com" as two
// records, and deleting the second through the adapter must leave the
// first.
func TestDeleteReachesTheRecordItConcerns(t *testing.T) {
	inner := xinmemory.NewInMemoryProvider(xinmemory.InMemoryInitZones([]string{"example.com"}))
	require.NoError(t, inner.ApplyChanges(t.Context(), &xplan.Changes{Create: []*xendpoint.Endpoint{
		xendpoint.NewEndpoint("App.example.com", "A", "192.0.2.1"),
		xendpoint.NewEndpoint("app.example.com", "A", "192.0.2.2"),
	}}))
	p := externaldns.Wrap(inner, externaldns.Options{Name: "inmemory"})
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 2)
	victim := recs[slices.IndexFunc(recs, func(r *endpoint.Endpoint) bool { return r.Targets[0] == "192.0.2.2" })]
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Delete: []*endpoint.Endpoint{victim}}))
	left, err := inner.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, "App.example.com", left[0].DNSName)
	assert.Equal(t, xendpoint.Targets{"192.0.2.1"}, left[0].Targets)
}
