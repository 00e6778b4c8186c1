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
	"github.com/zonesync/zonesync/internal/contractkit"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Rule names, as they appear in every [Violation] and in the rule table
// of the package documentation.
const (
	RuleCreate                  = "Create"
	RuleUpdateTargets           = "UpdateTargets"
	RuleUpdateTTL               = "UpdateTTL"
	RuleDelete                  = "Delete"
	RuleReadAfterWrite          = "ReadAfterWrite"
	RuleNameNormalisation       = "NameNormalisation"
	RulePunycodeNames           = "PunycodeNames"
	RuleWildcardNames           = "WildcardNames"
	RuleMultiTarget             = "MultiTarget"
	RuleTXTQuotes               = "TXTQuotes"
	RuleTXTLongValues           = "TXTLongValues"
	RuleUnknownProviderSpecific = "UnknownProviderSpecific"
	RuleSetIdentifier           = "SetIdentifier"
	RuleDomainFilter            = "DomainFilter"
	RuleAdjustEndpoints         = "AdjustEndpoints"
	RuleCreateExisting          = "CreateExisting"
	RuleChangeMissing           = "ChangeMissing"
	RuleSortedRecords           = "SortedRecords"
	RuleSliceOwnership          = "SliceOwnership"
	RuleContext                 = "Context"
	RuleConcurrency             = "Concurrency"
	RuleZones                   = "Zones"
	RuleVisitRecords            = "VisitRecords"
	RuleGuarantees              = "Guarantees"
)

// NamePrefix starts the name of every record the conformance suite creates.
const NamePrefix = "zs-conformance-"

// Violation is one breach of the provider contract found by
// [CheckProvider]: the rule broken (Rule...), the call that misbehaved
// (Op), the record concerned (Record, name/type[/set identifier]), what was
// wrong (Msg) and the provider's error (Err). Its text is "Rule: Op
// record: Msg: Err". The three contract kits (providertest, registrytest,
// sourcetest) share this one type.
type Violation = contractkit.Violation

// Options configures [CheckProvider] and [TestProvider]: where the suite
// writes, and how the provider legitimately differs from the strict
// default. The zero value runs every rule in zone "example.org".
type Options struct {
	// Zone is the zone in which the suite creates its records (default
	// "example.org"). The provider must accept records below it.
	Zone string
	// NoSetIdentifier declares that the provider does not support set
	// identifiers (routing policies): the SetIdentifier rule is
	// skipped and the other rules create no record with one.
	NoSetIdentifier bool
	// Upsert declares that the provider writes with upsert semantics, as
	// the Route 53 UPSERT action does: a create of an existing record
	// replaces it instead of failing. The CreateExisting rule then
	// requires the create to succeed and the record to hold the new targets
	// and TTL, and ChangeMissing accepts an update of a missing record that
	// creates it (as well as one that fails and changes nothing). Deleting
	// a missing record must still fail. Without it a create of an existing
	// record must fail and keep the record.
	Upsert bool
	// Timeout bounds the time each rule (including its clean-up) may
	// take; zero or less means one minute.
	Timeout time.Duration
	// Concurrency is how many goroutines the Concurrency rule runs
	// (default 8, at least 2).
	Concurrency int
	// Lacks declares known gaps: rule name (Rule...) -> why the provider
	// cannot conform, e.g. a backend API that cannot do it. A declared
	// rule still runs; its violations are reported as the declared gap
	// instead of as failures ([TestProvider] logs them, [CheckProvider]
	// leaves them out), and a declared rule that holds after all is a
	// violation of its own, so declarations stay true. Names that are not
	// rules are violations too.
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

func newSuiteConfig(o Options) *suiteConfig {
	c := &suiteConfig{
		zone:          canonicalName(strings.TrimSpace(o.Zone)),
		setIdentifier: !o.NoSetIdentifier,
		upsert:        o.Upsert,
		timeout:       o.Timeout,
		concurrency:   o.Concurrency,
		lacks:         maps.Clone(o.Lacks),
	}
	if c.zone == "" {
		c.zone = "example.org"
	}
	if c.timeout <= 0 {
		c.timeout = time.Minute
	}
	if c.concurrency == 0 {
		c.concurrency = 8
	}
	if c.concurrency < 2 {
		c.concurrency = 2
	}
	return c
}

type rule struct {
	name string
	run  func(s *session)
	// skip returns why the rule is skipped under cfg, or "".
	skip func(cfg *suiteConfig) string
}

// rules lists the rules in the order they run. Only genuinely optional
// features have a skip function; the others always run.
func rules() []rule {
	return []rule{
		{name: RuleCreate, run: checkCreate},
		{name: RuleUpdateTargets, run: checkUpdateTargets},
		{name: RuleUpdateTTL, run: checkUpdateTTL},
		{name: RuleDelete, run: checkDelete},
		{name: RuleReadAfterWrite, run: checkReadAfterWrite},
		{name: RuleNameNormalisation, run: checkNameNormalisation},
		{name: RulePunycodeNames, run: checkPunycodeNames},
		{name: RuleWildcardNames, run: checkWildcardNames},
		{name: RuleMultiTarget, run: checkMultiTarget},
		{name: RuleTXTQuotes, run: checkTXTQuotes},
		{name: RuleTXTLongValues, run: checkTXTLongValues},
		{name: RuleUnknownProviderSpecific, run: checkUnknownProviderSpecific},
		{name: RuleSetIdentifier, run: checkSetIdentifier, skip: func(c *suiteConfig) string {
			if !c.setIdentifier {
				return "the provider declared Options.NoSetIdentifier"
			}
			return ""
		}},
		{name: RuleDomainFilter, run: checkDomainFilter},
		{name: RuleAdjustEndpoints, run: checkAdjustEndpoints},
		{name: RuleCreateExisting, run: checkCreateExisting},
		{name: RuleChangeMissing, run: checkChangeMissing},
		{name: RuleSortedRecords, run: checkSortedRecords},
		{name: RuleSliceOwnership, run: checkSliceOwnership},
		{name: RuleContext, run: checkContext},
		{name: RuleConcurrency, run: checkConcurrency},
		{name: RuleZones, run: checkZones},
		{name: RuleVisitRecords, run: checkVisitRecords},
		{name: RuleGuarantees, run: checkGuarantees},
	}
}

// TestProvider runs [CheckProvider] on p and reports each violation with
// t.Error, so that one run shows every problem; violations of a rule
// declared in [Options.Lacks] are logged with t.Log instead.
func TestProvider(t testing.TB, p provider.Provider, opts Options) {
	t.Helper()
	f := check(t.Context(), p, opts)
	f.Report(t)
}

// CheckProvider runs every rule of the provider contract (see the package
// documentation) against p, one after the other, and returns all
// violations joined with errors.Join (each a [*Violation]), or nil. Every
// rule uses its own record names and removes them afterwards. It stops
// early only when ctx is done, adding ctx's error.
func CheckProvider(ctx context.Context, p provider.Provider, opts Options) error {
	f := check(ctx, p, opts)
	return f.Err()
}

func check(ctx context.Context, p provider.Provider, opts Options) *contractkit.Findings {
	f := &contractkit.Findings{}
	if p == nil {
		f.Violations = append(f.Violations, errors.New("providertest: the provider is nil"))
		return f
	}
	cfg := newSuiteConfig(opts)
	known := make(map[string]bool)
	for _, r := range rules() {
		known[r.name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.lacks)) {
		if !known[name] {
			f.Violations = append(f.Violations, &Violation{Rule: name, Op: "Options.Lacks", Msg: "declares a gap in a rule the suite does not have"})
		}
	}
	for _, r := range rules() {
		if err := ctx.Err(); err != nil {
			f.Violations = append(f.Violations, fmt.Errorf("providertest: CheckProvider stopped before %s: %w", r.name, err))
			break
		}
		if r.skip != nil && r.skip(cfg) != "" {
			continue
		}
		found := runRule(ctx, p, cfg, r)
		why, lacking := cfg.lacks[r.name]
		switch {
		case lacking && len(found) == 0:
			f.Violations = append(f.Violations, &Violation{Rule: r.name, Op: "Options.Lacks",
				Msg: fmt.Sprintf("declared as a gap (%s), but the provider conforms: remove the declaration", why)})
		case lacking:
			for _, err := range found {
				f.Gaps = append(f.Gaps, fmt.Errorf("%w (declared: %s)", err, why))
			}
		default:
			f.Violations = append(f.Violations, found...)
		}
	}
	return f
}

// runRule runs one rule and cleans up, returning the violations.
func runRule(parent context.Context, p provider.Provider, cfg *suiteConfig, r rule) []error {
	ctx, cancel := context.WithTimeout(parent, cfg.timeout)
	defer cancel()
	s := &session{
		ctx:    ctx,
		p:      p,
		cfg:    cfg,
		rule:   r.name,
		prefix: fmt.Sprintf("%s%06x-", NamePrefix, rand.Uint32()&0xffffff),
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.fail("(calling the provider)", "", fmt.Sprintf("panic: %v", r), nil)
			}
		}()
		r.run(s)
	}()
	// Clean up even when the rule's context expired.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(parent), cfg.timeout)
	defer ccancel()
	s.cleanup(cctx)
	return s.errs
}

// session is the state of one rule's run.
type session struct {
	ctx    context.Context
	p      provider.Provider
	cfg    *suiteConfig
	rule   string
	prefix string

	mu   sync.Mutex
	errs []error
}

func (s *session) fail(op, record, msg string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, &Violation{Rule: s.rule, Op: op, Record: record, Msg: msg, Err: err})
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
