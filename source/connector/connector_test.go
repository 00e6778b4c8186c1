package connector_test

import (
	"context"
	"encoding/gob"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/connector"
)

// mustNew returns connector.New(addr, opts), failing the test on an error.
func mustNew(t testing.TB, addr string, opts connector.Options) *connector.Connector {
	t.Helper()
	c, err := connector.New(addr, opts)
	require.NoError(t, err)
	return c
}

// serve starts Serve on a loopback port with list and returns the
// address; the server stops when the test ends.
func serve(t testing.TB, list func(context.Context) ([]*endpoint.Endpoint, error)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { assert.NoError(t, connector.Serve(ctx, l, list, connector.ServeOptions{})) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return l.Addr().String()
}

// rawServer accepts one connection at a time and hands it to handle.
func rawServer(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			handle(c)
			c.Close()
		}
	})
	t.Cleanup(func() { l.Close(); wg.Wait() })
	return l.Addr().String()
}

func TestEndToEnd(t *testing.T) {
	sent := []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("web.example.com", endpoint.RecordTypeA, 300, "192.0.2.2").
			WithLabel(endpoint.ResourceLabelKey, "service/ns/web").WithProviderSpecific("alias", "false"),
		endpoint.NewEndpointWithTTL("web.example.com", endpoint.RecordTypeA, 300, "192.0.2.1", "192.0.2.2"),
		endpoint.NewEndpointWithTTL("web.example.com", endpoint.RecordTypeA, 60, "192.0.2.9"), // other TTL: not merged
		endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.3").WithSetIdentifier("eu"),
		endpoint.NewEndpoint("alias.example.com", endpoint.RecordTypeCNAME, "a.example.net"),
		endpoint.NewEndpoint("alias.example.com", endpoint.RecordTypeCNAME, "b.example.net"), // CNAME: never merged
		endpoint.NewEndpoint("bad name.example.com", endpoint.RecordTypeA, "192.0.2.4").WithLabel(endpoint.ResourceLabelKey, "service/ns/bad"),
		endpoint.NewEndpoint("badtarget.example.com", endpoint.RecordTypeA, "not-an-ip"),
		endpoint.NewEndpoint("notargets.example.com", endpoint.RecordTypeA),
		nil,
	}
	addr := serve(t, func(context.Context) ([]*endpoint.Endpoint, error) { return sent, nil })
	c := mustNew(t, addr, connector.Options{})
	assert.Equal(t, "connector "+addr, c.String())

	got, err := c.Endpoints(context.Background())
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.Len(t, pe.Failed, 2)
	assert.ErrorContains(t, pe.Failed["service/ns/bad"], "endpoint 6 (bad name.example.com/A)")
	assert.ErrorContains(t, pe.Failed["connector/"+addr+"/7"], "targets[0]")

	assert.Equal(t, []string{
		"web.example.com A 192.0.2.1;192.0.2.2",
		"web.example.com A 192.0.2.9",
		"web.example.com A 192.0.2.3",
		"alias.example.com CNAME a.example.net",
		"alias.example.com CNAME b.example.net",
		"notargets.example.com A ",
	}, names(got))
	assert.Equal(t, endpoint.TTL(300), got[0].RecordTTL)
	assert.Equal(t, "service/ns/web", label(got[0], endpoint.ResourceLabelKey), "the merged endpoint keeps the first one's labels")
	assert.Equal(t, endpoint.ProviderSpecific{{Name: "alias", Value: "false"}}, got[0].ProviderSpecific)
	assert.Equal(t, "eu", got[2].SetIdentifier)
	assert.Equal(t, endpoint.Labels{}, got[1].Labels)
}

// TestReadsExternalDNSEncoding decodes what external-dns's server
// writes: a gob-encoded []*Endpoint whose exported fields are those of
// endpoint.Endpoint (see docs/compatibility.md), from a server that keeps the
// connection open after writing.
func TestReadsExternalDNSEncoding(t *testing.T) {
	release := make(chan struct{})
	addr := rawServer(t, func(c net.Conn) {
		// The exported fields of external-dns's endpoint.Endpoint.
		type Endpoint struct {
			DNSName          string
			Targets          []string
			RecordType       string
			SetIdentifier    string
			RecordTTL        int64
			Labels           map[string]string
			ProviderSpecific []struct{ Name, Value string }
		}
		eps := []*Endpoint{{DNSName: "app.example.com", Targets: []string{"192.0.2.10"}, RecordType: endpoint.RecordTypeA,
			Labels: map[string]string{"owner": "default"}}}
		assert.NoError(t, gob.NewEncoder(c).Encode(eps))
		<-release // the connection stays open: the client must not wait for EOF
	})
	defer close(release)
	got, err := mustNew(t, addr, connector.Options{}).Endpoints(context.Background())
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "app.example.com A 192.0.2.10", names(got)[0])
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "default"}), got[0].Labels)
}

func TestEmptyList(t *testing.T) {
	addr := serve(t, func(context.Context) ([]*endpoint.Endpoint, error) { return nil, nil })
	got, err := mustNew(t, addr, connector.Options{}).Endpoints(context.Background())
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("size limit", func(t *testing.T) {
		many := make([]*endpoint.Endpoint, 100)
		for i := range many {
			many[i] = endpoint.NewEndpoint("host-"+strings.Repeat("x", 20)+".example.com", endpoint.RecordTypeA, "192.0.2.1")
		}
		addr := serve(t, func(context.Context) ([]*endpoint.Endpoint, error) { return many, nil })
		_, err := mustNew(t, addr, connector.Options{MaxBytes: 512}).Endpoints(ctx)
		require.ErrorIs(t, err, connector.ErrTooLarge)
		assert.ErrorContains(t, err, "connector "+addr)

		got, err := mustNew(t, addr, connector.Options{}).Endpoints(ctx)
		require.NoError(t, err, "the default limit is large enough")
		assert.Len(t, got, 1, "all merged into one endpoint")
	})
	t.Run("server fails", func(t *testing.T) {
		addr := serve(t, func(context.Context) ([]*endpoint.Endpoint, error) { return nil, errors.New("no data") })
		_, err := mustNew(t, addr, connector.Options{}).Endpoints(ctx)
		assert.ErrorContains(t, err, "connector "+addr+": decoding endpoints")
	})
	t.Run("garbage", func(t *testing.T) {
		addr := rawServer(t, func(c net.Conn) { _, _ = c.Write([]byte("HTTP/1.1 200 OK\r\n\r\n")) })
		_, err := mustNew(t, addr, connector.Options{}).Endpoints(ctx)
		assert.ErrorContains(t, err, "decoding endpoints")
	})
	t.Run("nobody listening", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		_, err = mustNew(t, addr, connector.Options{}).Endpoints(ctx)
		assert.ErrorContains(t, err, "connector "+addr)
	})
	t.Run("silent server: read timeout", func(t *testing.T) {
		release := make(chan struct{})
		addr := rawServer(t, func(net.Conn) { <-release })
		defer close(release)
		_, err := mustNew(t, addr, connector.Options{ReadTimeout: 50 * time.Millisecond}).Endpoints(ctx)
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		assert.True(t, ne.Timeout())
	})
	t.Run("silent server: context canceled", func(t *testing.T) {
		release := make(chan struct{})
		accepted := make(chan struct{})
		addr := rawServer(t, func(net.Conn) { close(accepted); <-release })
		defer close(release)
		cctx, cancel := context.WithCancel(ctx)
		go func() { <-accepted; cancel() }()
		_, err := mustNew(t, addr, connector.Options{}).Endpoints(cctx)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestDefaultAddress(t *testing.T) {
	assert.Equal(t, "connector localhost:8080", mustNew(t, "", connector.Options{}).String())
}

// TestRefusesOwnershipText: a TXT endpoint from the connector
// whose value reads as an ownership record is refused under its resource
// key, as the sources of this module refuse it
// (endpoint.Endpoint.ValidateDesired); the other endpoints, TXT ones with
// other text included, are returned.
func TestRefusesOwnershipText(t *testing.T) {
	sent := []*endpoint.Endpoint{
		endpoint.NewEndpoint("claim.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/ns/x"`).
			WithLabel(endpoint.ResourceLabelKey, "connector/forged"),
		endpoint.NewEndpoint("plain.example.com", endpoint.RecordTypeTXT, "v=spf1 -all"),
		endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.1"),
	}
	addr := serve(t, func(context.Context) ([]*endpoint.Endpoint, error) { return sent, nil })
	got, err := mustNew(t, addr, connector.Options{}).Endpoints(context.Background())
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	require.Len(t, pe.Failed, 1)
	assert.ErrorIs(t, pe.Failed["connector/forged"], endpoint.ErrOwnershipText)
	assert.Equal(t, []string{"plain.example.com TXT v=spf1 -all", "web.example.com A 192.0.2.1"}, names(got))
}

// names renders endpoints as "name type targets".
func names(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = ep.DNSName + " " + ep.RecordType + " " + ep.Targets.String()
	}
	return out
}

func TestNewRefusesMalformedAddress(t *testing.T) {
	for _, addr := range []string{"localhost", "localhost:", "a:b:c"} {
		_, err := connector.New(addr, connector.Options{})
		assert.ErrorContains(t, err, "is not host:port", addr)
	}
	for _, addr := range []string{"", "127.0.0.1:8080", "[::1]:8080", "dns-source.svc:80"} {
		_, err := connector.New(addr, connector.Options{})
		assert.NoError(t, err, addr)
	}
}

// label returns the value of key in ep's labels, "" when it is not set.
func label(ep *endpoint.Endpoint, key string) string {
	v, _ := ep.Labels.Get(key)
	return v
}
