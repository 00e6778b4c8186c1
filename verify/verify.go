package verify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/sync/errgroup"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/dnstxt"
	"github.com/zonesync/zonesync/verify/result"
)

// Status, Result and the statuses are those of package result.
type (
	// Status is the outcome of verifying one endpoint.
	Status = result.Status
	// Result is the verification of one endpoint.
	Result = result.Result
)

// The statuses.
const (
	Sync         = result.Sync
	NotSync      = result.NotSync
	NotAvailable = result.NotAvailable
)

// Defaults of the [Options] fields.
const (
	DefaultWorkers = 10
	DefaultTimeout = 5 * time.Second
)

// ErrInvalidOptions is wrapped by every error [New] returns: an [Options]
// field missing or out of range, named in the message.
var ErrInvalidOptions = errors.New("invalid verify options")

// Options configures a [Verifier].
type Options struct {
	// Nameserver is the server asked, "host:port" or "host" (port 53).
	// Required.
	Nameserver string
	// Workers is the largest number of lookups at once; zero means
	// DefaultWorkers. Negative is an error.
	Workers int
	// Timeout bounds each lookup; zero means DefaultTimeout. Negative is
	// an error.
	Timeout time.Duration
	// TCP sends every query over TCP. By default queries go over UDP and
	// are repeated over TCP when the answer is truncated.
	TCP bool
}

// Verifier resolves endpoints at one name server.
type Verifier struct {
	server  string
	workers int
	timeout time.Duration
	tcp     bool
}

// New checks opts and returns a Verifier. It does not contact the server.
// It fails, with an error wrapping [ErrInvalidOptions], when
// [Options.Nameserver] is empty or another field is negative.
func New(opts Options) (*Verifier, error) {
	server := strings.TrimSpace(opts.Nameserver)
	switch {
	case server == "":
		return nil, fmt.Errorf("verify: %w: Options.Nameserver is empty", ErrInvalidOptions)
	case opts.Workers < 0:
		return nil, fmt.Errorf("verify: %w: Options.Workers is negative (%d): zero means %d", ErrInvalidOptions, opts.Workers, DefaultWorkers)
	case opts.Timeout < 0:
		return nil, fmt.Errorf("verify: %w: Options.Timeout is negative (%v): zero means %v", ErrInvalidOptions, opts.Timeout, DefaultTimeout)
	}
	if _, _, err := net.SplitHostPort(server); err != nil {
		server = net.JoinHostPort(strings.Trim(server, "[]"), "53")
	}
	v := &Verifier{server: server, workers: opts.Workers, timeout: opts.Timeout, tcp: opts.TCP}
	if v.workers == 0 {
		v.workers = DefaultWorkers
	}
	if v.timeout == 0 {
		v.timeout = DefaultTimeout
	}
	return v, nil
}

// Verify resolves every endpoint (nil entries are skipped) and returns one
// result per endpoint, sorted by (DNSName, SetIdentifier, RecordType) and
// then targets, whatever the order of eps. Failed lookups are results
// (NotAvailable), not errors: the error is non-nil only when ctx ends
// first, and then no results are returned.
func (v *Verifier) Verify(ctx context.Context, eps []*endpoint.Endpoint) ([]Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	out := make([]Result, 0, len(eps))
	for _, ep := range eps {
		if ep != nil {
			out = append(out, Result{Endpoint: ep})
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(v.workers)
	for i := range out {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			out[i] = v.verifyOne(gctx, out[i].Endpoint)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		if c := endpoint.Compare(a.Endpoint, b.Endpoint); c != 0 {
			return c
		}
		return slices.Compare(slices.Sorted(slices.Values(a.Endpoint.Targets)), slices.Sorted(slices.Values(b.Endpoint.Targets)))
	})
	return out, nil
}

// verifyOne resolves one endpoint.
func (v *Verifier) verifyOne(ctx context.Context, ep *endpoint.Endpoint) Result {
	res := Result{Endpoint: ep}
	qtype, ok := dns.StringToType[strings.ToUpper(ep.RecordType)]
	if !ok {
		res.Status, res.Err = NotAvailable, fmt.Errorf("verify: %s: record type %q is unknown", ep.Key(), ep.RecordType)
		return res
	}
	name := dns.Fqdn(endpoint.ToALabel(ep.DNSName))
	r, err := v.query(ctx, name, qtype)
	if err != nil {
		res.Status, res.Err = NotAvailable, fmt.Errorf("verify: %s: %w", ep.Key(), err)
		return res
	}
	if r.Rcode != dns.RcodeSuccess {
		res.Status, res.Err = NotAvailable, fmt.Errorf("verify: %s: %s", ep.Key(), dns.RcodeToString[r.Rcode])
		return res
	}
	var other []string
	for _, rr := range r.Answer {
		h := rr.Header()
		if !strings.EqualFold(h.Name, name) {
			continue
		}
		if h.Rrtype == qtype {
			res.Seen = append(res.Seen, seenValue(rr))
		} else if h.Rrtype == dns.TypeCNAME {
			other = append(other, "CNAME "+seenValue(rr))
		}
	}
	switch {
	case len(res.Seen) == 0 && len(other) > 0:
		res.Seen = other
		res.Status = NotSync
	case len(res.Seen) == 0:
		res.Status, res.Err = NotAvailable, fmt.Errorf("verify: %s: no %s records at the name", ep.Key(), endpoint.Printable(ep.RecordType))
	case sameAnswers(qtype, ep.Targets, res.Seen):
		res.Status = Sync
	default:
		res.Status = NotSync
	}
	slices.Sort(res.Seen)
	return res
}

// query asks for name/qtype, over TCP when configured or when the UDP
// answer is truncated, within the lookup timeout.
func (v *Verifier) query(ctx context.Context, name string, qtype uint16) (*dns.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	m.RecursionDesired = false
	m.SetEdns0(4096, false)
	network := "udp"
	if v.tcp {
		network = "tcp"
	}
	c := &dns.Client{Net: network, Timeout: v.timeout}
	r, _, err := c.ExchangeContext(ctx, m, v.server)
	if err == nil && r.Truncated && network == "udp" {
		c.Net = "tcp"
		r, _, err = c.ExchangeContext(ctx, m, v.server)
	}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return nil, err
	}
	return r, nil
}

// seenValue renders an answer in the form of endpoint targets.
func seenValue(rr dns.RR) string {
	switch r := rr.(type) {
	case *dns.A:
		return r.A.String()
	case *dns.AAAA:
		return r.AAAA.String()
	case *dns.CNAME:
		return trimDot(r.Target)
	case *dns.TXT:
		return dnstxt.Target(r.Txt...)
	case *dns.NS:
		return trimDot(r.Ns)
	case *dns.PTR:
		return trimDot(r.Ptr)
	case *dns.MX:
		return fmt.Sprintf("%d %s", r.Preference, trimDot(r.Mx))
	}
	return strings.TrimPrefix(rr.String(), rr.Header().String())
}

// sameAnswers compares targets and answers as sets: addresses as
// addresses, TXT in the form provider/rfc2136 reads and writes it
// (internal/dnstxt), the rest field by field ignoring case and
// trailing dots.
func sameAnswers(qtype uint16, targets, seen []string) bool {
	key := func(s string) string { return compareKey(qtype, s) }
	want := make([]string, len(targets))
	for i, t := range targets {
		want[i] = key(t)
	}
	got := make([]string, len(seen))
	for i, s := range seen {
		got[i] = key(s)
	}
	slices.Sort(want)
	slices.Sort(got)
	return slices.Equal(slices.Compact(want), slices.Compact(got))
}

// compareKey is the form in which a target and an answer are compared.
func compareKey(qtype uint16, s string) string {
	switch qtype {
	case dns.TypeA, dns.TypeAAAA:
		if a, err := netip.ParseAddr(strings.TrimSpace(s)); err == nil {
			return a.Unmap().String()
		}
		return s
	case dns.TypeTXT:
		return dnstxt.Canonical(s)
	}
	fields := strings.Fields(s)
	for i, f := range fields {
		fields[i] = strings.ToLower(trimDot(f))
	}
	return strings.Join(fields, " ")
}

func trimDot(name string) string {
	if name == "." {
		return name
	}
	return strings.TrimSuffix(name, ".")
}
