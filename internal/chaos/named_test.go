package chaos_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/internal/chaos"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/rfc2136"
)

// namedCycles is the number of faulty cycles against named: 10 to 30 s on
// a busy 2-core machine with -race.
const namedCycles = 300

// namedFillers long TXT records make a zone transfer of the test zone span
// several messages (BIND fills a message up to its transfer-message-size,
// 20 KiB by default), so that a transfer can be cut in the middle.
const namedFillers = 120

// TestChaosNamed runs the Reconciler with the TXT registry over the rfc2136
// provider against a real named, through a proxy that cuts TCP connections
// at message boundaries under a seeded schedule: before a request reaches
// the server, after the server answered but before the answer is relayed,
// and in the middle of a zone transfer. A second writer changes foreign
// records between cycles and, sometimes, between the Reconciler's read and
// its apply. Invariants 1 and 3 of issue 21 are checked after every cycle,
// invariant 2 after the faults stop.
func TestChaosNamed(t *testing.T) {
	seed := chaos.Seed(t)
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{chaos.Zone}})
	k := srv.Key()
	tsig := &rfc2136.TSIG{KeyName: k.Name, Algorithm: k.Algorithm, Secret: k.Secret}

	direct, err := rfc2136.New(rfc2136.Config{Server: srv.Addr(), Zones: []string{chaos.Zone}, TSIG: tsig, Timeout: 5 * time.Second})
	require.NoError(t, err)

	proxy, err := chaos.NewProxy(srv.Addr(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = proxy.Close() })
	// Small UPDATE messages, all over TCP (UDPUpdates is off), so that
	// one cycle's changes take several messages and the cuts fall
	// between them.
	viaProxy, err := rfc2136.New(rfc2136.Config{
		Server: proxy.Addr(), Zones: []string{chaos.Zone}, TSIG: tsig,
		Timeout: 5 * time.Second, MaxChangesPerUpdate: 4,
	})
	require.NoError(t, err)

	h := chaos.New(t, seed, chaos.Config{Direct: direct, ApplyRaceRate: 0.15, OwnershipNames: true})
	h.Fillers(namedFillers)
	h.Reconciler(providertest.Intercept(viaProxy, providertest.Funcs{ApplyChanges: h.RacingApply}))

	rng := rand.New(rand.NewPCG(seed, 4))
	decide := func(req chaos.Request) chaos.Fault {
		f := chaos.Fault{}
		switch {
		case req.QType == chaos.TypeAXFR:
			if rng.Float64() < 0.15 {
				switch rng.IntN(3) {
				case 0:
					f.Cut = chaos.CutBeforeRequest
				case 1:
					f.Cut = chaos.CutBeforeAnswer
				default:
					f.Cut, f.After = chaos.CutAfterMessages, 1+rng.IntN(2)
				}
			}
		case req.Opcode == chaos.OpcodeUpdate:
			if rng.Float64() < 0.12 {
				f.Cut = chaos.CutBeforeRequest
				if rng.IntN(2) == 0 {
					f.Cut = chaos.CutBeforeAnswer
				}
			}
		}
		if f.Cut != chaos.CutNone {
			h.Logf("proxy: cut %s (connection %d, request %d, opcode %d, qtype %d)", f.Cut, req.Conn, req.Seq, req.Opcode, req.QType)
		}
		return f
	}
	setFaults := func(on bool) {
		if on {
			proxy.SetDecider(decide)
		} else {
			proxy.SetDecider(nil)
		}
	}
	stats := func() string {
		s := proxy.Stats()
		return fmt.Sprintf("proxy: %d requests, cuts %v", s.Requests, s.Cuts)
	}
	h.Run(namedCycles, setFaults, stats)
}
