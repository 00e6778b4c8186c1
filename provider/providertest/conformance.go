package providertest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Behaviour names, as they appear in subtest names and in every
// [Violation].
const (
	BehaviourCreate                  = "Create"
	BehaviourUpdateTargets           = "UpdateTargets"
	BehaviourUpdateTTL               = "UpdateTTL"
	BehaviourDelete                  = "Delete"
	BehaviourReadAfterWrite          = "ReadAfterWrite"
	BehaviourNameNormalisation       = "NameNormalisation"
	BehaviourPunycodeNames           = "PunycodeNames"
	BehaviourWildcardNames           = "WildcardNames"
	BehaviourMultiTarget             = "MultiTarget"
	BehaviourTXTQuotes               = "TXTQuotes"
	BehaviourTXTLongValues           = "TXTLongValues"
	BehaviourUnknownProviderSpecific = "UnknownProviderSpecific"
	BehaviourSetIdentifier           = "SetIdentifier"
	BehaviourDomainFilter            = "DomainFilter"
	BehaviourCreateExisting          = "CreateExisting"
	BehaviourChangeMissing           = "ChangeMissing"
	BehaviourSortedRecords           = "SortedRecords"
	BehaviourReturnedSlicesAreCopies = "ReturnedSlicesAreCopies"
	BehaviourContextCanceled         = "ContextCanceled"
	BehaviourConcurrentApply         = "ConcurrentApply"
	BehaviourZones                   = "Zones"
	BehaviourVisitRecords            = "VisitRecords"
	BehaviourGuarantees              = "Guarantees"
)

// NamePrefix starts the name of every record the conformance suite creates.
const NamePrefix = "zs-conformance-"

// Violation is one breach of the provider contract found by the
// conformance suite. CheckProvider returns violations joined with
// errors.Join; errors.As finds them.
type Violation struct {
	// Behaviour is the behaviour checked, e.g. "SortedRecords".
	Behaviour string
	// Op is the operation that misbehaved, e.g. "Records" or
	// "ApplyChanges(create)".
	Op string
	// Record names the record concerned (name/type[/set identifier]), or is
	// empty.
	Record string
	// Msg says what was wrong.
	Msg string
	// Err is the error the provider returned, if any.
	Err error
}

// Error renders "Behaviour: Op record: Msg: Err".
func (v *Violation) Error() string {
	var b strings.Builder
	b.WriteString(v.Behaviour)
	b.WriteString(": ")
	b.WriteString(v.Op)
	if v.Record != "" {
		b.WriteByte(' ')
		b.WriteString(v.Record)
	}
	b.WriteString(": ")
	b.WriteString(v.Msg)
	if v.Err != nil {
		b.WriteString(": ")
		b.WriteString(v.Err.Error())
	}
	return b.String()
}

// Unwrap returns the provider's error.
func (v *Violation) Unwrap() error { return v.Err }

// Options configures [TestProvider] and [CheckProvider]. The zero value
// runs every behaviour in zone "example.org". The functions take zero or
// one Options; with several, the non-zero fields of later ones override
// earlier ones.
type Options struct {
	// Zone is the zone in which the suite creates its records (default
	// "example.org"). The provider must accept records below it.
	Zone string
	// NoSetIdentifier declares that the provider does not support set
	// identifiers (routing policies): the SetIdentifier behaviour is
	// skipped and the other behaviours create no record with one.
	NoSetIdentifier bool
	// Upsert declares that the provider writes with upsert semantics, as
	// the Route 53 UPSERT action does: a create of an existing record
	// replaces it instead of failing. The CreateExisting behaviour then
	// requires the create to succeed and the record to hold the new targets
	// and TTL, and ChangeMissing accepts an update of a missing record that
	// creates it (as well as one that fails and changes nothing). Deleting
	// a missing record must still fail. Without it a create of an existing
	// record must fail and keep the record.
	Upsert bool
	// Timeout bounds the time each behaviour (including its clean-up) may
	// take; zero or less means one minute.
	Timeout time.Duration
	// Concurrency is how many goroutines ConcurrentApply runs (default 8,
	// at least 2).
	Concurrency int
	// Lacks declares known gaps: behaviour name (Behaviour...) -> why the
	// provider cannot conform, e.g. a backend API that cannot do it. A
	// declared behaviour still runs; its violations are reported as the
	// declared gap instead of as failures ([TestProvider] logs them,
	// [CheckProvider] leaves them out), and a declared behaviour that
	// conforms after all is a violation of its own, so declarations stay
	// true. Names that are not behaviours are violations too.
	Lacks map[string]string
}

type suiteConfig struct {
	zone          string
	setIdentifier bool
	upsert        bool
	timeout       time.Duration
	concurrency   int
	lacks         map[string]string
}

func newSuiteConfig(opts []Options) *suiteConfig {
	c := &suiteConfig{zone: "example.org", setIdentifier: true, timeout: time.Minute, concurrency: 8}
	for _, o := range opts {
		if o.Zone != "" {
			c.zone = o.Zone
		}
		if o.NoSetIdentifier {
			c.setIdentifier = false
		}
		if o.Upsert {
			c.upsert = true
		}
		if o.Timeout != 0 {
			c.timeout = o.Timeout
		}
		if o.Concurrency != 0 {
			c.concurrency = o.Concurrency
		}
		for name, why := range o.Lacks {
			if c.lacks == nil {
				c.lacks = make(map[string]string)
			}
			c.lacks[name] = why
		}
	}
	c.zone = canonicalName(strings.TrimSpace(c.zone))
	if c.timeout <= 0 {
		c.timeout = time.Minute
	}
	if c.concurrency < 2 {
		c.concurrency = 2
	}
	return c
}

type behaviour struct {
	name string
	run  func(s *session)
	// skip returns why the behaviour is skipped under cfg, or "".
	skip func(cfg *suiteConfig) string
}

// behaviours lists the checks in the order they run. Only genuinely
// optional features have a skip function; the others always run.
func behaviours() []behaviour {
	return []behaviour{
		{name: BehaviourCreate, run: checkCreate},
		{name: BehaviourUpdateTargets, run: checkUpdateTargets},
		{name: BehaviourUpdateTTL, run: checkUpdateTTL},
		{name: BehaviourDelete, run: checkDelete},
		{name: BehaviourReadAfterWrite, run: checkReadAfterWrite},
		{name: BehaviourNameNormalisation, run: checkNameNormalisation},
		{name: BehaviourPunycodeNames, run: checkPunycodeNames},
		{name: BehaviourWildcardNames, run: checkWildcardNames},
		{name: BehaviourMultiTarget, run: checkMultiTarget},
		{name: BehaviourTXTQuotes, run: checkTXTQuotes},
		{name: BehaviourTXTLongValues, run: checkTXTLongValues},
		{name: BehaviourUnknownProviderSpecific, run: checkUnknownProviderSpecific},
		{name: BehaviourSetIdentifier, run: checkSetIdentifier, skip: func(c *suiteConfig) string {
			if !c.setIdentifier {
				return "the provider declared Options.NoSetIdentifier"
			}
			return ""
		}},
		{name: BehaviourDomainFilter, run: checkDomainFilter},
		{name: BehaviourCreateExisting, run: checkCreateExisting},
		{name: BehaviourChangeMissing, run: checkChangeMissing},
		{name: BehaviourSortedRecords, run: checkSortedRecords},
		{name: BehaviourReturnedSlicesAreCopies, run: checkReturnedSlicesAreCopies},
		{name: BehaviourContextCanceled, run: checkContextCanceled},
		{name: BehaviourConcurrentApply, run: checkConcurrentApply},
		{name: BehaviourZones, run: checkZones},
		{name: BehaviourVisitRecords, run: checkVisitRecords},
		{name: BehaviourGuarantees, run: checkGuarantees},
	}
}

// TestProvider runs the conformance suite as subtests of t, one per
// behaviour (see the package documentation), each on a fresh provider from
// newProvider. Violations are reported with t.Error and the subtest goes on,
// so one run shows every problem. Behaviours are skipped (t.Skip) only when
// an option declared the capability missing.
func TestProvider(t *testing.T, newProvider func(t *testing.T) provider.Provider, opts ...Options) {
	t.Helper()
	cfg := newSuiteConfig(opts)
	for _, err := range cfg.unknownLacks() {
		t.Error(err)
	}
	for _, b := range behaviours() {
		t.Run(b.name, func(t *testing.T) {
			t.Helper()
			if b.skip != nil {
				if why := b.skip(cfg); why != "" {
					t.Skip(why)
				}
			}
			p := newProvider(t)
			if p == nil {
				t.Fatal("newProvider returned nil")
			}
			errs := runBehaviour(t.Context(), p, cfg, b)
			why, lacking := cfg.lacks[b.name]
			switch {
			case lacking && len(errs) == 0:
				t.Error(lackingConforms(b.name, why))
			case lacking:
				for _, err := range errs {
					t.Logf("declared gap (%s): %v", why, err)
				}
			default:
				for _, err := range errs {
					t.Error(err)
				}
			}
		})
	}
}

// unknownLacks returns a violation for every declared gap that names no
// behaviour.
func (c *suiteConfig) unknownLacks() []error {
	known := make(map[string]bool)
	for _, b := range behaviours() {
		known[b.name] = true
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(c.lacks)) {
		if !known[name] {
			errs = append(errs, &Violation{Behaviour: name, Op: "Options.Lacks", Msg: "declares a gap in a behaviour the suite does not have"})
		}
	}
	return errs
}

func lackingConforms(name, why string) error {
	return &Violation{Behaviour: name, Op: "Options.Lacks", Msg: fmt.Sprintf("declared as a gap (%s), but the provider conforms: remove the declaration", why)}
}

// CheckProvider runs every behaviour of the conformance suite against p,
// one after the other, and returns all violations joined with errors.Join
// (each a [*Violation] naming the behaviour, the operation and the record),
// or nil. Unlike [TestProvider] it shares one provider between behaviours;
// each behaviour uses its own record names and removes them afterwards.
// It stops early only when ctx is done.
func CheckProvider(ctx context.Context, p provider.Provider, opts ...Options) error {
	if p == nil {
		return errors.New("providertest: CheckProvider: provider is nil")
	}
	cfg := newSuiteConfig(opts)
	errs := cfg.unknownLacks()
	for _, b := range behaviours() {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("providertest: CheckProvider stopped before %s: %w", b.name, err))
			break
		}
		if b.skip != nil && b.skip(cfg) != "" {
			continue
		}
		found := runBehaviour(ctx, p, cfg, b)
		why, lacking := cfg.lacks[b.name]
		switch {
		case lacking && len(found) == 0:
			errs = append(errs, lackingConforms(b.name, why))
		case !lacking:
			errs = append(errs, found...)
		}
	}
	return errors.Join(errs...)
}

// runBehaviour runs one check and cleans up, returning the violations.
func runBehaviour(parent context.Context, p provider.Provider, cfg *suiteConfig, b behaviour) []error {
	ctx, cancel := context.WithTimeout(parent, cfg.timeout)
	defer cancel()
	s := &session{
		ctx:       ctx,
		p:         p,
		cfg:       cfg,
		behaviour: b.name,
		prefix:    fmt.Sprintf("%s%06x-", NamePrefix, rand.Uint32()&0xffffff),
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.fail("(calling the provider)", "", fmt.Sprintf("panic: %v", r), nil)
			}
		}()
		b.run(s)
	}()
	// Clean up even when the behaviour's context expired.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(parent), cfg.timeout)
	defer ccancel()
	s.cleanup(cctx)
	return s.errs
}

// session is the state of one behaviour run.
type session struct {
	ctx       context.Context
	p         provider.Provider
	cfg       *suiteConfig
	behaviour string
	prefix    string

	mu   sync.Mutex
	errs []error
}

func (s *session) fail(op, record, msg string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, &Violation{Behaviour: s.behaviour, Op: op, Record: record, Msg: msg, Err: err})
}

// name returns a test-owned name "zs-conformance-<token>-<label>.<zone>".
func (s *session) name(label string) string {
	return s.prefix + label + "." + s.cfg.zone
}

func ep(name, recordType string, ttl endpoint.TTL, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpointWithTTL(name, recordType, ttl, targets...)
}

func keyOf(e *endpoint.Endpoint) string {
	if e == nil {
		return "<nil>"
	}
	return e.Key().String()
}

// apply applies changes and reports a violation when it fails.
func (s *session) apply(op string, c *plan.Changes, subject *endpoint.Endpoint) bool {
	if err := s.p.ApplyChanges(s.ctx, c); err != nil {
		s.fail("ApplyChanges("+op+")", keyOf(subject), "failed", err)
		return false
	}
	return true
}

func (s *session) create(eps ...*endpoint.Endpoint) bool {
	var subject *endpoint.Endpoint
	if len(eps) > 0 {
		subject = eps[0]
	}
	return s.apply("create", &plan.Changes{Create: eps}, subject)
}

func (s *session) update(oldEp, newEp *endpoint.Endpoint) bool {
	return s.apply("update", &plan.Changes{UpdateOld: []*endpoint.Endpoint{oldEp}, UpdateNew: []*endpoint.Endpoint{newEp}}, newEp)
}

// records lists the records, reporting a violation on error.
func (s *session) records(after string) ([]*endpoint.Endpoint, bool) {
	recs, err := s.p.Records(s.ctx)
	if err != nil {
		s.fail("Records", "", "failed after "+after, err)
		return nil, false
	}
	return recs, true
}

// canonicalName returns name in the form providers must return: lower
// case, without a trailing dot. It does not convert between A-labels and
// Unicode.
func canonicalName(name string) string {
	return strings.ToLower(strings.TrimSuffix(name, "."))
}

// sameKey reports whether e has the given key, comparing names in
// canonical form.
func sameKey(e *endpoint.Endpoint, name, recordType, setID string) bool {
	return e != nil && e.RecordType == recordType && e.SetIdentifier == setID &&
		canonicalName(e.DNSName) == canonicalName(name)
}

// find returns the records with want's key.
func find(recs []*endpoint.Endpoint, want *endpoint.Endpoint) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for _, e := range recs {
		if sameKey(e, want.DNSName, want.RecordType, want.SetIdentifier) {
			out = append(out, e)
		}
	}
	return out
}

// findOne returns the record with want's key, reporting a violation when
// there is none (ok is false) or more than one (the first is returned).
func (s *session) findOne(recs []*endpoint.Endpoint, want *endpoint.Endpoint, after string) (*endpoint.Endpoint, bool) {
	got := find(recs, want)
	switch {
	case len(got) == 0:
		s.fail("Records", keyOf(want), "record missing after "+after, nil)
		return nil, false
	case len(got) > 1:
		s.fail("Records", keyOf(want), fmt.Sprintf("record returned %d times after %s; one endpoint must hold all targets", len(got), after), nil)
	}
	return got[0], true
}

// expect checks that want is stored exactly once with its targets and, when
// configured, its TTL.
func (s *session) expect(recs []*endpoint.Endpoint, want *endpoint.Endpoint, after string) {
	g, ok := s.findOne(recs, want, after)
	if !ok {
		return
	}
	if !g.Targets.Same(want.Targets) {
		s.fail("Records", keyOf(want), fmt.Sprintf("targets are %q after %s, want %q", []string(g.Targets), after, []string(want.Targets)), nil)
	}
	if want.RecordTTL.IsConfigured() && g.RecordTTL != want.RecordTTL {
		s.fail("Records", keyOf(want), fmt.Sprintf("TTL is %d after %s, want %d", g.RecordTTL, after, want.RecordTTL), nil)
	}
}

// expectAbsent checks that no record has want's key.
func (s *session) expectAbsent(recs []*endpoint.Endpoint, want *endpoint.Endpoint, after string) {
	if got := find(recs, want); len(got) > 0 {
		s.fail("Records", keyOf(want), fmt.Sprintf("record present after %s (targets %q)", after, []string(got[0].Targets)), nil)
	}
}

// owns reports whether e is a record of this session: a label of its name
// starts with the session's prefix (so that "*.<prefix>..." counts too).
func (s *session) owns(e *endpoint.Endpoint) bool {
	if e == nil {
		return false
	}
	n := canonicalName(e.DNSName)
	return strings.HasPrefix(n, s.prefix) || strings.Contains(n, "."+s.prefix)
}

// cleanup deletes every record this session created.
func (s *session) cleanup(ctx context.Context) {
	recs, err := s.p.Records(ctx)
	if err != nil {
		s.fail("cleanup: Records", "", "failed; records named "+s.prefix+"* may remain", err)
		return
	}
	var mine []*endpoint.Endpoint
	for _, e := range recs {
		if s.owns(e) {
			mine = append(mine, e)
		}
	}
	if len(mine) == 0 {
		return
	}
	if err := s.p.ApplyChanges(ctx, &plan.Changes{Delete: mine}); err == nil {
		return
	}
	// One by one, so that one bad record does not keep the others.
	for _, e := range mine {
		if err := s.p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{e}}); err != nil {
			s.fail("cleanup: ApplyChanges(delete)", keyOf(e), "failed; the record remains", err)
		}
	}
}
