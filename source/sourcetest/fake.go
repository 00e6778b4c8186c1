package sourcetest

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// Fake is a [source.Source] of random endpoints for testing providers and
// pipelines: n A records named "<random label>-<i>.<domain>" (i from 0), each
// with one random target in 10.0.0.0/8. The randomness comes from a PCG
// generator held in the Fake and seeded by [FakeOptions.Seed], so a given
// seed always yields the same endpoints, in any process.
//
// By default a Fake is stable: every Endpoints call returns (fresh copies
// of) the same endpoints. With [FakeOptions.Regenerate] every call draws new
// names and targets from the generator instead, like external-dns's fake
// source; the sequence of results is still reproducible from the seed.
// Handlers are never called. A Fake is safe for concurrent use.
//
//zonesync:source:name=fake
//zonesync:source:category=testing
//zonesync:source:description=Random A endpoints under a domain, reproducible from a seed; stable or new on each call.
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=false
type Fake struct {
	domain  string
	n       int
	seed    uint64
	varying bool

	mu     sync.Mutex
	rng    *rand.Rand
	stable []*endpoint.Endpoint
}

var _ source.Source = (*Fake)(nil)

// FakeOptions configures a [Fake]. The zero value gives stable endpoints
// drawn with seed 1.
type FakeOptions struct {
	// Seed seeds the generator; zero means 1.
	Seed uint64
	// Regenerate makes every Endpoints call draw new random endpoints
	// instead of returning the same ones.
	Regenerate bool
}

// NewFake returns a source of n random endpoints under domain (a trailing
// dot is ignored); n < 0 counts as 0.
func NewFake(domain string, n int, opts FakeOptions) *Fake {
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	f := &Fake{domain: strings.TrimSuffix(domain, "."), n: max(n, 0), seed: seed, varying: opts.Regenerate}
	f.rng = rand.New(rand.NewPCG(f.seed, f.seed^0x9e3779b97f4a7c15))
	if !f.varying {
		f.stable = f.generate()
	}
	return f
}

// Endpoints returns n random endpoints; see [Fake] for when they change.
func (f *Fake) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !f.varying {
		return endpoint.DeepCopyAll(f.stable), nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.generate(), nil
}

// AddEventHandler does nothing: a Fake never announces changes.
func (*Fake) AddEventHandler(context.Context, func()) {}

// String describes the source, e.g. "fake (10 under example.com)".
func (f *Fake) String() string {
	return "fake (" + strconv.Itoa(f.n) + " under " + f.domain + ")"
}

// generate draws n endpoints from f.rng; the caller holds f.mu or is the
// constructor.
func (f *Fake) generate() []*endpoint.Endpoint {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	eps := make([]*endpoint.Endpoint, f.n)
	var b strings.Builder
	for i := range eps {
		b.Reset()
		for range 8 {
			b.WriteByte(letters[f.rng.IntN(len(letters))])
		}
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(i))
		if f.domain != "" {
			b.WriteByte('.')
			b.WriteString(f.domain)
		}
		v := f.rng.Uint32()
		ip := netip.AddrFrom4([4]byte{10, byte(v >> 16), byte(v >> 8), byte(v)})
		eps[i] = endpoint.NewEndpoint(b.String(), endpoint.RecordTypeA, ip.String())
	}
	return eps
}
