package txt

import (
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/registry"
)

// SharedOwnerID is the owner that the ownership TXT record of a shared
// record set names: external-dns, and a registry not in shared mode, read
// the record set as owned by somebody else and leave it alone. [New]
// refuses it as an OwnerID or OldOwnerID.
const SharedOwnerID = "zonesync-shared"

// Defaults and bounds of [SharedConfig].
const (
	// DefaultSharedHeartbeat is the default [SharedConfig.Heartbeat].
	DefaultSharedHeartbeat = 5 * time.Minute
	// MinSharedHeartbeat is the shortest heartbeat allowed: every
	// heartbeat is one TXT write per contribution.
	MinSharedHeartbeat = time.Minute
	// MinSharedExpireAfter is the shortest expiry allowed: a contribution
	// is removed by the others only after it has not been refreshed for at
	// least this long (and for at least three of its own heartbeats).
	MinSharedExpireAfter = 15 * time.Minute
)

// SharedConfig turns on shared mode ([Config.Shared]): several owners may
// publish one record set together, each contributing its own targets. See
// the package documentation, "Shared record sets".
type SharedConfig struct {
	// Names selects the names in shared mode: a name ("app.example.com")
	// matches itself; "*.example.com" matches every name below
	// example.com (and the wildcard record itself). Empty: every name.
	// Names are compared in the form names have in memory (lower-case
	// A-labels).
	Names []string
	// RecordTypes are the types shared, in upper case; empty: the types
	// [SharedRecordTypes] returns. Records of other types are owned
	// the usual way, by one owner.
	RecordTypes []string
	// Heartbeat is how often this registry rewrites each of its
	// contributions so that the others see it alive (the rewrite happens
	// in the first cycle after the interval: a Reconciler's interval must
	// be shorter). Zero: [DefaultSharedHeartbeat]; at least
	// [MinSharedHeartbeat].
	Heartbeat time.Duration
	// ExpireAfter, when set, removes the contributions of other owners
	// that have not been refreshed for that long, or for three of their
	// own heartbeats if that is longer: the way to clear the targets of a
	// cluster that disappeared. Zero: contributions never expire here. At
	// least [MinSharedExpireAfter] and three Heartbeats. The clocks of
	// every owner must agree to well within it.
	ExpireAfter time.Duration
	// Clock gives the time of heartbeats and expiry; nil: the system
	// clock.
	Clock clock.Clock
}

// SharedRecordTypes returns the record types shared by default: those whose
// values can be merged (A, AAAA, MX, SRV, TXT, NS, CAA: the union of the
// targets) and CNAME (shared only while every contributor asks for the
// same target). The slice is new on every call.
func SharedRecordTypes() []string {
	return []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeMX,
		endpoint.RecordTypeSRV, endpoint.RecordTypeTXT, endpoint.RecordTypeNS, "CAA"}
}

// ErrSharedConflict is wrapped by the error of a contribution that cannot
// be merged with the others: a CNAME (or alias) record whose target differs
// from the one the other contributors ask for.
var ErrSharedConflict = errors.New("contribution conflicts with the shared record set")

// sharedMode is a validated SharedConfig.
type sharedMode struct {
	exact     map[string]bool // names
	suffixes  []string        // ".example.com" of "*.example.com"
	all       bool
	types     []string
	heartbeat time.Duration
	expire    time.Duration
	clock     clock.Clock
}

// validate checks cfg and returns the shared mode it configures.
func (cfg *SharedConfig) validate() (*sharedMode, error) {
	m := &sharedMode{exact: map[string]bool{}, heartbeat: cfg.Heartbeat, expire: cfg.ExpireAfter, clock: clock.OrReal(cfg.Clock)}
	var errs []error
	m.all = len(cfg.Names) == 0
	for _, n := range cfg.Names {
		name := strings.TrimSuffix(strings.TrimSpace(n), ".")
		wild := strings.HasPrefix(name, "*.")
		name = endpoint.CanonicalName(strings.TrimPrefix(name, "*."))
		if err := endpoint.ValidateDNSName(name); err != nil || name == "" {
			errs = append(errs, fmt.Errorf("Shared.Names: %q is not a name or \"*.\" and a name", n))
			continue
		}
		if wild {
			m.suffixes = append(m.suffixes, "."+name)
			m.exact["*."+name] = true
			continue
		}
		m.exact[name] = true
	}
	if len(cfg.RecordTypes) == 0 {
		m.types = SharedRecordTypes()
	}
	for _, t := range cfg.RecordTypes {
		t = strings.ToUpper(strings.TrimSpace(t))
		if !slices.Contains(SharedRecordTypes(), t) {
			errs = append(errs, fmt.Errorf("Shared.RecordTypes: %q cannot be shared: want some of %s", t, strings.Join(SharedRecordTypes(), ", ")))
			continue
		}
		if !slices.Contains(m.types, t) {
			m.types = append(m.types, t)
		}
	}
	if m.heartbeat == 0 {
		m.heartbeat = DefaultSharedHeartbeat
	}
	if m.heartbeat < MinSharedHeartbeat {
		errs = append(errs, fmt.Errorf("Shared.Heartbeat %v is shorter than %v: every heartbeat rewrites each contribution", cfg.Heartbeat, MinSharedHeartbeat))
	}
	if m.expire != 0 && (m.expire < MinSharedExpireAfter || m.expire < 3*m.heartbeat) {
		errs = append(errs, fmt.Errorf("Shared.ExpireAfter %v is too short: at least %v and three heartbeats (%v), so that a live owner is never taken for dead",
			cfg.ExpireAfter, MinSharedExpireAfter, 3*m.heartbeat))
	}
	if m.expire < 0 {
		errs = append(errs, fmt.Errorf("Shared.ExpireAfter %v is negative", cfg.ExpireAfter))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

// covers reports whether the record set (name, type) is in shared mode.
// name is in the form names have in memory.
func (m *sharedMode) covers(name, recordType string) bool {
	if m == nil || !slices.Contains(m.types, strings.ToUpper(recordType)) {
		return false
	}
	if m.all || m.exact[name] {
		return true
	}
	for _, s := range m.suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// Label keys of the shared format (serialised as "external-dns/<key>").
const (
	sharedFormatKey   = "shared"         // format version, on the marker and every contribution
	sharedFormat      = "1"              //
	sharedOwnerKey    = "shared-owner"   // the contributor's owner id
	sharedRecordKey   = "shared-record"  // the record set's name
	sharedTypeKey     = "shared-type"    // and type
	sharedTargetsKey  = "shared-targets" // ";"-separated, each escaped
	sharedTTLKey      = "shared-ttl"     // seconds, 0: not set
	sharedPropsKey    = "shared-props"   // "name!value" pairs, ";"-separated, escaped
	sharedSeenKey     = "shared-seen"    // Unix seconds of the last write
	sharedRefreshKey  = "shared-refresh" // the contributor's heartbeat, seconds
	sharedOwnersLabel = "shared-owners"  // on this registry's view: live contributors
)

// markerLabels are the labels of a shared record set's ownership TXT.
func markerLabels() endpoint.Labels {
	return endpoint.LabelsFromMap(map[string]string{endpoint.OwnerLabelKey: SharedOwnerID, sharedFormatKey: sharedFormat})
}

// isMarker reports whether labels, parsed from an ownership TXT, mark a
// shared record set.
func isMarker(labels endpoint.Labels) bool {
	owner, _ := labels.Get(endpoint.OwnerLabelKey)
	_, contrib := labels.Get(sharedOwnerKey)
	return owner == SharedOwnerID && !contrib
}

// isContribution reports whether labels, parsed from a TXT value, are
// those of a contribution.
func isContribution(labels endpoint.Labels) bool {
	owner, _ := labels.Get(endpoint.OwnerLabelKey)
	_, ok := labels.Get(sharedOwnerKey)
	return ok && owner == SharedOwnerID
}

// contributionName returns the name of the TXT record holding owner's
// contribution to the record set key: a label "_zs-<hash>-<type>" (with
// "-w" for a wildcard record, whose "*" label it replaces) in front of the
// record's name, the hash standing for the owner id and set identifier.
// Every owner's contribution has a name of its own, so that owners never
// write each other's.
func contributionName(owner string, key endpoint.Key) string {
	sum := sha256.Sum256([]byte(owner + "\x00" + key.SetIdentifier))
	h := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))[:12]
	label := "_zs-" + h + "-" + strings.ToLower(key.RecordType)
	base := key.DNSName
	if rest, ok := strings.CutPrefix(base, "*."); ok {
		label += "-w"
		base = rest
	}
	return label + "." + base
}

// escapeField escapes s for a label value of the shared format: every byte
// but letters, digits and "-._:*/@" becomes %XX.
func escapeField(s string) string {
	safe := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._:*/@", c) >= 0
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !safe(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; safe(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// contributionLabels are the labels of c, owner's contribution to key.
func contributionLabels(key endpoint.Key, c registry.Contribution) endpoint.Labels {
	targets := make([]string, len(c.Targets))
	for i, t := range c.Targets {
		targets[i] = escapeField(t)
	}
	m := map[string]string{
		endpoint.OwnerLabelKey: SharedOwnerID,
		sharedFormatKey:        sharedFormat,
		sharedOwnerKey:         escapeField(c.Owner),
		sharedRecordKey:        escapeField(key.DNSName),
		sharedTypeKey:          escapeField(key.RecordType),
		sharedTargetsKey:       strings.Join(targets, ";"),
		sharedTTLKey:           strconv.FormatInt(int64(c.TTL), 10),
		sharedSeenKey:          strconv.FormatInt(c.Seen.Unix(), 10),
		sharedRefreshKey:       strconv.FormatInt(int64(c.Refresh/time.Second), 10),
	}
	if len(c.ProviderSpecific) > 0 {
		props := make([]string, len(c.ProviderSpecific))
		for i, p := range c.ProviderSpecific {
			props[i] = escapeField(p.Name) + "!" + escapeField(p.Value)
		}
		m[sharedPropsKey] = strings.Join(props, ";")
	}
	if c.Resource != "" {
		m[endpoint.ResourceLabelKey] = c.Resource
	}
	return endpoint.LabelsFromMap(m)
}

// maxSharedTargets bounds the targets (and properties) one contribution
// may carry when read, so that a hostile value cannot make a read
// allocate without bound.
const maxSharedTargets = 1000

// parseContribution reads a contribution from the labels of a TXT record
// named txtName with set identifier setID. It fails when a field is
// missing or malformed, or when txtName is not the name the contributor
// would have written (a value copied elsewhere is not a contribution).
func parseContribution(labels endpoint.Labels, txtName, setID string) (endpoint.Key, registry.Contribution, error) {
	var c registry.Contribution
	field := func(k string) (string, error) {
		v, ok := labels.Get(k)
		if !ok {
			return "", fmt.Errorf("no %q label", k)
		}
		u, err := url.PathUnescape(v)
		if err != nil {
			return "", fmt.Errorf("label %q: %w", k, err)
		}
		return u, nil
	}
	if v, _ := labels.Get(sharedFormatKey); v != sharedFormat {
		return endpoint.Key{}, c, fmt.Errorf("shared format %q: want %q", v, sharedFormat)
	}
	var err error
	var key endpoint.Key
	if c.Owner, err = field(sharedOwnerKey); err != nil {
		return key, c, err
	}
	if c.Owner == "" {
		return key, c, errors.New("empty owner")
	}
	name, err := field(sharedRecordKey)
	if err != nil {
		return key, c, err
	}
	rtype, err := field(sharedTypeKey)
	if err != nil {
		return key, c, err
	}
	key = endpoint.Key{DNSName: endpoint.CanonicalName(name), RecordType: strings.ToUpper(rtype), SetIdentifier: setID}
	if key.DNSName == "" || key.RecordType == "" {
		return key, c, errors.New("empty record name or type")
	}
	if want := contributionName(c.Owner, key); !strings.EqualFold(want, strings.TrimSuffix(txtName, ".")) {
		return key, c, fmt.Errorf("found at %q, but the contribution of %q to %s is named %q", txtName, c.Owner, key, want)
	}
	raw, _ := labels.Get(sharedTargetsKey)
	if raw == "" {
		return key, c, errors.New("no targets")
	}
	parts := strings.Split(raw, ";")
	if len(parts) > maxSharedTargets {
		return key, c, fmt.Errorf("%d targets: at most %d", len(parts), maxSharedTargets)
	}
	for _, p := range parts {
		t, err := url.PathUnescape(p)
		if err != nil || t == "" {
			return key, c, fmt.Errorf("target %q: malformed", p)
		}
		c.Targets = append(c.Targets, t)
	}
	num := func(k string) (int64, error) {
		v, ok := labels.Get(k)
		if !ok {
			return 0, fmt.Errorf("no %q label", k)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("label %q: %q is not a non-negative integer", k, v)
		}
		return n, nil
	}
	ttl, err := num(sharedTTLKey)
	if err != nil {
		return key, c, err
	}
	seen, err := num(sharedSeenKey)
	if err != nil {
		return key, c, err
	}
	refresh, err := num(sharedRefreshKey)
	if err != nil {
		return key, c, err
	}
	const maxSeconds = 1 << 40 // far beyond any real TTL, time or interval
	if ttl > maxSeconds || seen > maxSeconds || refresh > maxSeconds {
		return key, c, errors.New("a number is out of range")
	}
	c.TTL, c.Seen, c.Refresh = endpoint.TTL(ttl), time.Unix(seen, 0).UTC(), time.Duration(refresh)*time.Second
	if raw, ok := labels.Get(sharedPropsKey); ok && raw != "" {
		parts := strings.Split(raw, ";")
		if len(parts) > maxSharedTargets {
			return key, c, fmt.Errorf("%d properties: at most %d", len(parts), maxSharedTargets)
		}
		for _, p := range parts {
			n, v, ok := strings.Cut(p, "!")
			name, err1 := url.PathUnescape(n)
			value, err2 := url.PathUnescape(v)
			if !ok || err1 != nil || err2 != nil || name == "" {
				return key, c, fmt.Errorf("property %q: malformed", p)
			}
			c.ProviderSpecific = append(c.ProviderSpecific, endpoint.ProviderSpecificProperty{Name: name, Value: value})
		}
	}
	c.Resource, _ = labels.Get(endpoint.ResourceLabelKey)
	return key, c, nil
}

// mustAgree reports whether the contributions to a record set of this kind
// cannot be merged by union: CNAME records and alias records hold one
// target.
func mustAgree(recordType string, ps endpoint.ProviderSpecific) bool {
	if strings.EqualFold(recordType, endpoint.RecordTypeCNAME) {
		return true
	}
	return (&endpoint.Endpoint{RecordType: recordType, ProviderSpecific: ps}).IsAlias()
}

// mergeShared returns the record set that live, the live contributions to
// key sorted by owner, merge into, or nil when there is none. The rule is
// the same for every owner, whichever computes it, so that owners never
// undo each other's writes:
//
//   - targets: the union, each once (compared as [endpoint.Targets.Same]
//     compares them), sorted; for a CNAME or alias record the targets of
//     the first contribution by owner id (which every contribution has,
//     unless two owners joined with different targets at the same time);
//   - TTL: the lowest TTL set; 0 (not set) when none is;
//   - provider-specific properties: every property any contribution sets,
//     with the lowest value (byte order) among those setting it, sorted by
//     name.
func mergeShared(key endpoint.Key, live []registry.Contribution) *endpoint.Endpoint {
	if len(live) == 0 {
		return nil
	}
	out := &endpoint.Endpoint{DNSName: key.DNSName, RecordType: key.RecordType, SetIdentifier: key.SetIdentifier,
		Labels: endpoint.LabelsFromMap(map[string]string{endpoint.OwnerLabelKey: SharedOwnerID})}
	props := map[string]string{}
	for _, c := range live {
		if c.TTL.IsConfigured() && (out.RecordTTL == 0 || c.TTL < out.RecordTTL) {
			out.RecordTTL = c.TTL
		}
		for _, p := range c.ProviderSpecific {
			if p.Name == endpoint.ProviderSpecificForceUpdate {
				continue
			}
			if v, ok := props[p.Name]; !ok || p.Value < v {
				props[p.Name] = p.Value
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(props)) {
		out.ProviderSpecific = append(out.ProviderSpecific, endpoint.ProviderSpecificProperty{Name: n, Value: props[n]})
	}
	if mustAgree(key.RecordType, out.ProviderSpecific) {
		out.Targets = slices.Clone(live[0].Targets)
		return out
	}
	seen := map[string]bool{}
	type target struct{ canon, text string }
	var all []target
	for _, c := range live {
		for _, t := range c.Targets {
			k := endpoint.CanonicalTarget(t)
			if !seen[k] {
				seen[k] = true
				all = append(all, target{k, t})
			}
		}
	}
	slices.SortFunc(all, func(a, b target) int { return strings.Compare(a.canon, b.canon) })
	for _, t := range all {
		out.Targets = append(out.Targets, t.text)
	}
	return out
}

// sameShared reports whether have, a record set as read, holds what want
// asks: the same targets, want's TTL when it sets one, and want's
// provider-specific properties (others that the provider added are
// ignored).
func sameShared(have, want *endpoint.Endpoint) bool {
	if have == nil || want == nil {
		return have == want
	}
	if !have.Targets.Same(want.Targets) {
		return false
	}
	if want.RecordTTL.IsConfigured() && have.RecordTTL != want.RecordTTL {
		return false
	}
	for _, p := range want.ProviderSpecific {
		if v, ok := have.ProviderSpecific.Get(p.Name); !ok || v != p.Value {
			return false
		}
	}
	return true
}

// conflicts returns an error wrapping [ErrSharedConflict] when c cannot be
// merged with the other live contributions: a CNAME or alias record whose
// targets differ from theirs.
func conflicts(key endpoint.Key, c registry.Contribution, others []registry.Contribution) error {
	if !mustAgree(key.RecordType, c.ProviderSpecific) {
		for _, o := range others {
			if mustAgree(key.RecordType, o.ProviderSpecific) {
				return fmt.Errorf("%s: %w: %q contributes an alias record, which cannot be merged with targets", key, ErrSharedConflict, o.Owner)
			}
		}
		return nil
	}
	for _, o := range others {
		if !o.Targets.Same(c.Targets) {
			return fmt.Errorf("%s: %w: %q asks for %v, this owner for %v; a %s record holds one target",
				key, ErrSharedConflict, o.Owner, o.Targets, c.Targets, key.RecordType)
		}
	}
	return nil
}
