package rfc2136_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/rfc2136"
)

// ownedCreates returns the creates of records and their TXT, records first
// and TXT records after them, as the TXT registry sends them.
func ownedCreates(names ...string) []*endpoint.Endpoint {
	var recs, txts []*endpoint.Endpoint
	for i, n := range names {
		r, t := owned(n, endpoint.RecordTypeA, fmt.Sprintf("192.0.2.%d", i+1))
		recs = append(recs, r)
		txts = append(txts, t)
	}
	return append(recs, txts...)
}

// TestRecordAndItsTXTAreOneMessage: someone else creates a record between
// zonesync's read and its apply. The record's create fails; its ownership
// TXT must fail with it (same UPDATE message), else the next cycle takes
// the foreign record for ours. The other groups of the batch are applied.
func TestRecordAndItsTXTAreOneMessage(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	tests := []struct {
		name       string
		maxChanges int
	}{
		{"small batches", 2},  // the record and its TXT fall in different batches
		{"halved batch", 100}, // one batch, halved after the rejection
		{"one change per message", 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, srv, func(c *rfc2136.Config) { c.MaxChangesPerUpdate = tt.maxChanges })
			n := func(s string) string { return fmt.Sprintf("%s%d.example.org", s, i) }
			names := []string{n("g1-"), n("victim-"), n("g2-"), n("g3-")}
			creates := ownedCreates(names...)
			// Planned while the name was free; someone takes it now.
			srv.Update("example.org", []string{n("victim-") + ". 300 IN A 198.51.100.7"}, nil)

			err := p.ApplyChanges(t.Context(), &plan.Changes{Create: creates})
			require.Error(t, err)
			var rc *rfc2136.RcodeError
			require.ErrorAs(t, err, &rc)
			assert.Equal(t, dns.RcodeYXRrset, rc.Rcode)
			assert.Contains(t, err.Error(), fmt.Sprintf("create %s A, create a-%s TXT: YXRRSET", n("victim-"), n("victim-")),
				"the error names every change of the rejected group")

			assert.Empty(t, txtData(srv, "a-"+n("victim-")), "no ownership TXT of ours next to the foreign record")
			assert.Equal(t, []string{"198.51.100.7"}, aData(srv, n("victim-")))
			for _, name := range []string{n("g1-"), n("g2-"), n("g3-")} {
				assert.Len(t, aData(srv, name), 1, "%s applied", name)
				assert.Equal(t, []string{ownership}, txtData(srv, "a-"+name), "%s's TXT applied", name)
			}
		})
	}
}

// TestTypeChangeGroup: an A with its TXT replaced by a CNAME with its TXT
// is sent as two messages (deletes, then creates); when the deletes are
// rejected (someone deleted the A) the creates are not sent.
func TestTypeChangeGroup(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	for _, name := range []string{"switch.example.org", "raced.example.org"} {
		a, aTXT := owned(name, endpoint.RecordTypeA, "192.0.2.1")
		require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{a, aTXT}}))
	}
	// Someone deletes raced's A behind zonesync's back.
	srv.Update("example.org", nil, []string{"raced.example.org. 300 IN A 192.0.2.1"})

	var changes plan.Changes
	for _, name := range []string{"switch.example.org", "raced.example.org"} {
		a, aTXT := owned(name, endpoint.RecordTypeA, "192.0.2.1")
		c, cTXT := owned(name, endpoint.RecordTypeCNAME, "target.example.net")
		changes.Delete = append(changes.Delete, a, aTXT)
		changes.Create = append(changes.Create, c, cTXT)
	}
	err := p.ApplyChanges(t.Context(), &changes)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "delete raced.example.org A, delete a-raced.example.org TXT: NXRRSET")
	assert.Contains(t, err.Error(), "create raced.example.org CNAME, create cname-raced.example.org TXT: not sent")
	assert.NotContains(t, err.Error(), "switch")

	recs := records(t, p)
	assert.Nil(t, find(recs, "switch.example.org", "A"))
	assert.Nil(t, find(recs, "a-switch.example.org", "TXT"))
	assert.NotNil(t, find(recs, "switch.example.org", "CNAME"))
	assert.NotNil(t, find(recs, "cname-switch.example.org", "TXT"))

	assert.NotNil(t, find(recs, "a-raced.example.org", "TXT"), "the group's deletes were one message: nothing deleted")
	assert.Nil(t, find(recs, "raced.example.org", "CNAME"))
	assert.Nil(t, find(recs, "cname-raced.example.org", "TXT"))
}

// TestInvalidChangeRefusesItsGroup: a record that cannot be written takes
// its ownership TXT with it, so no TXT is left without its record.
func TestInvalidChangeRefusesItsGroup(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	bad, badTXT := owned("bad.example.org", endpoint.RecordTypeMX, "10 mx.example.org ; x")
	good, goodTXT := owned("good.example.org", endpoint.RecordTypeA, "192.0.2.1")
	err := p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{bad, good, badTXT, goodTXT}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "create bad.example.org MX: MX target")
	assert.Contains(t, err.Error(), "a-bad.example.org TXT", "the error names the group")
	recs := records(t, p)
	assert.Nil(t, find(recs, "a-bad.example.org", "TXT"))
	assert.NotNil(t, find(recs, "good.example.org", "A"))
	assert.NotNil(t, find(recs, "a-good.example.org", "TXT"))
}

// cutProxy forwards DNS over TCP to a server and cuts every connection
// once limit messages have been sent in total: before the next message
// reaches the server, and (afterSend) already after the limit-th reached
// it, before its answer is relayed.
type cutProxy struct {
	l         net.Listener
	server    string
	limit     int64
	afterSend bool
	sent      atomic.Int64
	wg        sync.WaitGroup
}

func startCutProxy(t *testing.T, server string, limit int, afterSend bool) *cutProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{l: l, server: server, limit: int64(limit), afterSend: afterSend}
	serveConns(t, l, &p.wg, p.serve)
	return p
}

func readFrame(r io.Reader) ([]byte, error) {
	var n [2]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	buf := make([]byte, 2+int(binary.BigEndian.Uint16(n[:])))
	copy(buf, n[:])
	_, err := io.ReadFull(r, buf[2:])
	return buf, err
}

func (p *cutProxy) serve(c net.Conn) {
	defer func() { _ = c.Close() }()
	up, err := net.Dial("tcp", p.server)
	if err != nil {
		return
	}
	defer func() { _ = up.Close() }()
	for {
		req, err := readFrame(c)
		if err != nil {
			return
		}
		if p.sent.Load() >= p.limit {
			return // cut before the server sees it
		}
		n := p.sent.Add(1)
		if _, err := up.Write(req); err != nil {
			return
		}
		resp, err := readFrame(up)
		if err != nil {
			return
		}
		if p.afterSend && n == p.limit {
			return // applied, but the answer is lost
		}
		if _, err := c.Write(resp); err != nil {
			return
		}
	}
}

// TestConnectionCutKeepsRecordsWithTheirTXT cuts the connection after
// every number of messages, before a message or after it was applied: no
// record is ever left without its ownership TXT, nor a TXT without its
// record.
func TestConnectionCutKeepsRecordsWithTheirTXT(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	direct := newProvider(t, srv)
	const groups = 5
	for _, afterSend := range []bool{false, true} {
		for cut := 0; cut <= groups+2; cut++ {
			t.Run(fmt.Sprintf("afterSend=%v/cut=%d", afterSend, cut), func(t *testing.T) {
				n := func(s string) string { return fmt.Sprintf("%s-%v-%d.example.org", s, afterSend, cut) }
				// A type change (two messages) among the creates.
				a, aTXT := owned(n("switch"), endpoint.RecordTypeA, "192.0.2.1")
				require.NoError(t, direct.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{a, aTXT}}))
				c, cTXT := owned(n("switch"), endpoint.RecordTypeCNAME, "target.example.net")
				var names []string
				for g := range groups {
					names = append(names, n(fmt.Sprintf("g%d", g)))
				}
				changes := &plan.Changes{
					Create: append(ownedCreates(names...), c, cTXT),
					Delete: []*endpoint.Endpoint{a, aTXT},
				}

				proxy := startCutProxy(t, srv.Addr(), cut, afterSend)
				p, err := rfc2136.New(rfc2136.Config{
					Server: proxy.l.Addr().String(), Zones: []string{"example.org"},
					TSIG:                &rfc2136.TSIG{KeyName: srv.Key().Name, Algorithm: srv.Key().Algorithm, Secret: srv.Key().Secret},
					MaxChangesPerUpdate: 3,
				})
				require.NoError(t, err)
				err = p.ApplyChanges(t.Context(), changes)
				if err != nil {
					assert.True(t, errors.Is(err, provider.SoftError), "a cut connection is soft: %v", err)
				}

				recs := records(t, direct)
				check := func(name, typ string) {
					rec := find(recs, name, typ) != nil
					txt := find(recs, txtPrefix(typ)+name, endpoint.RecordTypeTXT) != nil
					assert.Equal(t, rec, txt, "%s %s present: %v, its TXT present: %v", name, typ, rec, txt)
				}
				for _, name := range names {
					check(name, endpoint.RecordTypeA)
				}
				check(n("switch"), endpoint.RecordTypeA)
				check(n("switch"), endpoint.RecordTypeCNAME)
			})
		}
	}
}

// serveConns accepts connections on l until the test ends, serving each
// with serve in a goroutine counted in wg; the cleanup closes l and waits.
func serveConns(t *testing.T, l net.Listener, wg *sync.WaitGroup, serve func(net.Conn)) {
	t.Helper()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		wg.Wait()
	})
}
