package connector_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source/connector"
)

// dialSlowReader connects with a tiny receive buffer and never reads, so
// that the server's write of a large answer blocks.
func dialSlowReader(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestServeCapsConnections connects clients that never read to a
// server with a large answer: only the capped number of connections is
// answered (list is called), the others are closed at once, the stuck ones
// are dropped after the write timeout, and then a real client is served.
func TestServeCapsConnections(t *testing.T) {
	const maxConns = 3
	big := make([]*endpoint.Endpoint, 40000)
	for i := range big {
		big[i] = endpoint.NewEndpoint(fmt.Sprintf("host-%06d.example.com", i), endpoint.RecordTypeTXT, fmt.Sprintf("%0200d", i))
	}
	var calls atomic.Int32
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		assert.NoError(t, connector.Serve(ctx, l, func(context.Context) ([]*endpoint.Endpoint, error) {
			calls.Add(1)
			return big, nil
		}, connector.ServeOptions{MaxConns: maxConns, WriteTimeout: time.Second}))
	})
	defer func() { cancel(); wg.Wait() }()
	addr := l.Addr().String()

	for range maxConns {
		dialSlowReader(t, addr)
	}
	require.Eventually(t, func() bool { return calls.Load() == maxConns }, 5*time.Second, 5*time.Millisecond)

	// Beyond the cap: closed unanswered, list is not called.
	for range 10 {
		c := dialSlowReader(t, addr)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		n, err := io.Copy(io.Discard, c)
		require.NoError(t, err, "closed by the server, not timed out")
		assert.Zero(t, n)
	}
	assert.Equal(t, int32(maxConns), calls.Load(), "only the capped connections are answered")

	// The stuck writes time out and free their slots.
	require.Eventually(t, func() bool {
		got, err := mustNew(t, addr, connector.Options{}).Endpoints(context.Background())
		return err == nil && len(got) == len(big)
	}, 30*time.Second, 100*time.Millisecond)
}
