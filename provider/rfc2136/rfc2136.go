package rfc2136

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/dnstxt"
	"github.com/zonesync/zonesync/provider"
)

// Defaults of the [Config] fields.
const (
	// DefaultTimeout bounds each exchange with the server (one UPDATE
	// message and its response, or a whole zone transfer).
	DefaultTimeout = 10 * time.Second
	// DefaultMaxChangesPerUpdate is the number of changes (a create, an
	// update pair or a delete, with all their targets) sent in one UPDATE
	// message.
	DefaultMaxChangesPerUpdate = 200
	// DefaultTTL is the TTL written for endpoints without a configured TTL.
	DefaultTTL endpoint.TTL = 300
)

// Config configures a [Provider]. Server and Zones are required; zero
// values of the other fields mean the defaults, and negative numbers and
// durations are errors.
type Config struct {
	// Server is the primary name server, "host:port" or "host" (port 53).
	Server string
	// Zones are the zones the provider manages. Records are read by zone
	// transfer (AXFR) from each, and every change goes to the most
	// specific zone holding its name.
	Zones []string
	// TSIG signs every UPDATE and transfer; nil sends them unsigned.
	TSIG *TSIG
	// Timeout bounds each exchange with the server; zero means
	// DefaultTimeout. A context deadline that comes sooner wins.
	Timeout time.Duration
	// MaxChangesPerUpdate is the largest number of changes in one UPDATE
	// message; zero means DefaultMaxChangesPerUpdate. A message is also cut
	// before it would exceed 64 KiB.
	MaxChangesPerUpdate int
	// UDPUpdates sends UPDATE messages that fit in 512 bytes over UDP;
	// larger ones, and all of them when false (the default), go over one
	// TCP connection per zone and ApplyChanges call. Zone transfers always
	// use TCP.
	UDPUpdates bool
	// DefaultTTL is written for endpoints without a configured TTL; zero
	// means DefaultTTL.
	DefaultTTL endpoint.TTL
	// MinTTL raises lower TTLs: AdjustEndpoints sets it on desired
	// endpoints with a smaller configured TTL, so that plans converge.
	// Zero means no minimum.
	MinTTL endpoint.TTL
}

// TSIG is a transaction signature key (RFC 8945). GSS-TSIG is not
// supported.
type TSIG struct {
	// KeyName is the key's name as the server knows it.
	KeyName string
	// Algorithm is "hmac-sha256" or "hmac-sha512" (case and a trailing
	// dot do not matter).
	Algorithm string
	// Secret is the key in standard base64, as in BIND's key statement;
	// [New] refuses anything else.
	Secret string
}

// tsigAlgorithm returns the miekg/dns name of a supported TSIG algorithm
// given as in [TSIG.Algorithm] (any case, an optional trailing dot,
// surrounding blanks), and false for any other.
func tsigAlgorithm(name string) (string, bool) {
	switch strings.ToLower(strings.TrimSuffix(strings.TrimSpace(name), ".")) {
	case "hmac-sha256":
		return dns.HmacSHA256, true
	case "hmac-sha512":
		return dns.HmacSHA512, true
	}
	return "", false
}

// checkTSIGSecret checks that a non-empty, trimmed TSIG secret is standard
// base64, as [TSIG.Secret] must be. The error never holds the secret.
func checkTSIGSecret(secret string) error {
	_, err := base64.StdEncoding.DecodeString(secret)
	return err
}

// Provider reads zones by AXFR and changes them with RFC 2136 UPDATE
// messages. It is immutable after [New] and safe for concurrent use.
type Provider struct {
	server     string
	zones      *provider.ZoneMatcher
	zoneList   []string
	keyName    string
	algorithm  string
	secret     string
	timeout    time.Duration
	maxChanges int
	udp        bool
	defaultTTL endpoint.TTL
	minTTL     endpoint.TTL
}

var _ provider.Provider = (*Provider)(nil)

// New checks cfg and returns a provider. It does not contact the server.
// It fails, with an error wrapping [ErrInvalidConfig] that names the field
// at fault, when Server or Zones is empty, a zone is not a DNS name (or is
// the root), the TSIG key is incomplete or unsupported, or a number or
// duration is negative.
func New(cfg Config) (*Provider, error) {
	p := &Provider{
		timeout:    cfg.Timeout,
		maxChanges: cfg.MaxChangesPerUpdate,
		udp:        cfg.UDPUpdates,
		defaultTTL: cfg.DefaultTTL,
		minTTL:     cfg.MinTTL,
	}
	server := strings.TrimSpace(cfg.Server)
	if server == "" {
		return nil, badConfig("Config.Server is empty: set it to the primary name server of the zones, \"host\" or \"host:port\"")
	}
	if _, _, err := net.SplitHostPort(server); err != nil {
		server = net.JoinHostPort(strings.Trim(server, "[]"), "53")
	}
	p.server = server
	var zones []string
	for _, z := range cfg.Zones {
		if z = strings.TrimSpace(z); z != "" {
			zones = append(zones, z)
		}
	}
	if len(zones) == 0 {
		return nil, badConfig("Config.Zones is empty: list the zones the server lets this client update and transfer")
	}
	p.zones = provider.NewZoneMatcher(zones...)
	p.zoneList = p.zones.Zones()
	for _, z := range p.zoneList {
		if z == "." {
			return nil, badConfig("Config.Zones: the root zone is not supported")
		}
		if err := endpoint.ValidateDNSName(z); err != nil {
			return nil, badConfig("Config.Zones: zone %q: %w", z, err)
		}
	}
	if k := cfg.TSIG; k != nil {
		if strings.TrimSpace(k.KeyName) == "" {
			return nil, badConfig("Config.TSIG.KeyName is empty: set it to the name of the server's key statement, or set Config.TSIG to nil to send unsigned requests")
		}
		alg, ok := tsigAlgorithm(k.Algorithm)
		if !ok {
			return nil, badConfig("Config.TSIG.Algorithm %q is not supported: use hmac-sha256 or hmac-sha512, the algorithm of the server's key statement", k.Algorithm)
		}
		p.algorithm = alg
		secret := strings.TrimSpace(k.Secret)
		if secret == "" {
			return nil, badConfig("Config.TSIG.Secret is empty: set it to the secret of the server's key statement (standard base64)")
		}
		if err := checkTSIGSecret(secret); err != nil {
			// Not quoted: the secret must not land in logs.
			return nil, badConfig("Config.TSIG.Secret is not standard base64 (as in BIND's key statement): %w: "+
				"copy the secret of the server's key statement as it is (tsig-keygen prints one)", err)
		}
		p.keyName = dns.CanonicalName(strings.TrimSpace(k.KeyName))
		p.secret = secret
	}
	switch {
	case p.timeout < 0:
		return nil, badConfig("Config.Timeout is negative (%v): zero means %v", p.timeout, DefaultTimeout)
	case p.maxChanges < 0:
		return nil, badConfig("Config.MaxChangesPerUpdate is negative (%d): zero means %d", p.maxChanges, DefaultMaxChangesPerUpdate)
	case p.defaultTTL < 0:
		return nil, badConfig("Config.DefaultTTL is negative (%d): zero means %d", p.defaultTTL, DefaultTTL)
	case p.minTTL < 0:
		return nil, badConfig("Config.MinTTL is negative (%d): zero means no minimum", p.minTTL)
	}
	if p.timeout == 0 {
		p.timeout = DefaultTimeout
	}
	if p.maxChanges == 0 {
		p.maxChanges = DefaultMaxChangesPerUpdate
	}
	if p.defaultTTL == 0 {
		p.defaultTTL = DefaultTTL
	}
	return p, nil
}

// ErrInvalidConfig is wrapped by every error [New] returns: a [Config]
// field missing or out of range, named in the message.
var ErrInvalidConfig = errors.New("invalid configuration")

// badConfig returns an error of New: format and args describe the field at
// fault and what to set.
func badConfig(format string, args ...any) error {
	return fmt.Errorf("rfc2136: %w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}

// Zones returns the managed zones, lower case without a trailing dot,
// sorted.
func (p *Provider) Zones() []string { return append([]string(nil), p.zoneList...) }

var _ provider.ZoneLister = (*Provider)(nil)

var _ provider.GuaranteeDeclarer = (*Provider)(nil)

// Guarantees implements [provider.GuaranteeDeclarer]: a create carries the
// prerequisite that its RRset (and any CNAME at its name) does not exist,
// so creating an existing record set fails; set identifiers have no place
// in DNS and are not kept (the core never sends them); the record types
// are those the provider converts (A, AAAA, CNAME, TXT, MX, SRV, NS, PTR,
// NAPTR). Provider-specific properties are not declared: they are not
// stored, and the provider refuses nothing because of them.
func (p *Provider) Guarantees() provider.Guarantees {
	return provider.Guarantees{
		CreateFailsIfExists: true,
		RecordTypes: []string{
			endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
			endpoint.RecordTypeMX, endpoint.RecordTypeSRV, endpoint.RecordTypeNS, endpoint.RecordTypePTR, endpoint.RecordTypeNAPTR,
		},
	}
}

// ListZones implements [provider.ZoneLister]: it returns the configured
// zones ([Provider.Zones]) without asking the server, so that callers
// apply one zone per call.
func (p *Provider) ListZones(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rfc2136: listing zones: %w", err)
	}
	return p.Zones(), nil
}

// GetDomainFilter matches the configured zones and every name below them.
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface {
	return provider.DomainFilterFromZones(p.zoneList)
}

// AdjustEndpoints raises configured TTLs below MinTTL to MinTTL and
// rewrites each TXT target to the form [Provider.Records] returns it in
// (see the package documentation, "TXT data": "v=spf1 -all" becomes
// v=spf1 -all, an unquoted ownership text gets its quotes), so that a
// plan compares like with like and converges. It changes copies and
// returns the other endpoints as they are.
func (p *Provider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	var out []*endpoint.Endpoint // nil until an endpoint changes
	for i, ep := range eps {
		adjusted := p.adjust(ep)
		if adjusted == ep && out == nil {
			continue
		}
		if out == nil {
			out = make([]*endpoint.Endpoint, len(eps))
			copy(out, eps[:i])
		}
		out[i] = adjusted
	}
	if out == nil {
		return eps, nil
	}
	return out, nil
}

// adjust returns ep, or a copy of it with the changes AdjustEndpoints
// makes.
func (p *Provider) adjust(ep *endpoint.Endpoint) *endpoint.Endpoint {
	if ep == nil {
		return nil
	}
	raise := p.minTTL.IsConfigured() && ep.RecordTTL.IsConfigured() && ep.RecordTTL < p.minTTL
	txt := false
	if ep.RecordType == endpoint.RecordTypeTXT {
		for _, t := range ep.Targets {
			if dnstxt.Canonical(t) != t {
				txt = true
				break
			}
		}
	}
	if !raise && !txt {
		return ep
	}
	ep = ep.DeepCopy()
	if raise {
		ep.RecordTTL = p.minTTL
	}
	if txt {
		for i, t := range ep.Targets {
			ep.Targets[i] = dnstxt.Canonical(t)
		}
	}
	return ep
}

// ttl is the TTL written for ep.
func (p *Provider) ttl(ep *endpoint.Endpoint) uint32 {
	t := ep.RecordTTL
	if !t.IsConfigured() {
		t = p.defaultTTL
	}
	t = max(t, p.minTTL)
	return uint32(min(t, endpoint.TTL(^uint32(0)>>1)))
}

// client returns a client for one exchange network.
func (p *Provider) client(network string) *dns.Client {
	c := &dns.Client{Net: network, Timeout: p.timeout}
	if p.keyName != "" {
		c.TsigSecret = map[string]string{p.keyName: p.secret}
	}
	return c
}

// sign adds a TSIG record to m when a key is configured, replacing one
// added before.
func (p *Provider) sign(m *dns.Msg) {
	if p.keyName != "" {
		if m.IsTsig() != nil {
			m.Extra = m.Extra[:len(m.Extra)-1]
		}
		m.SetTsig(p.keyName, p.algorithm, 300, time.Now().Unix())
	}
}
