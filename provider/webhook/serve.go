package webhook

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
)

// DefaultAddress is where [Serve] listens when ServeConfig.Address is empty:
// the loopback address and port external-dns uses for webhook providers.
const DefaultAddress = "127.0.0.1:8888"

// ServeConfig configures [Serve]. Zero values take the defaults external-dns
// uses for its own webhook server.
type ServeConfig struct {
	// Address to listen on; default DefaultAddress. Ignored when Listener
	// is set.
	Address string
	// Listener, when set, is used instead of listening on Address; Serve
	// closes it.
	Listener net.Listener
	// ReadHeaderTimeout defaults to 5 s, ReadTimeout to 5 s, WriteTimeout
	// to 10 s and IdleTimeout to 30 s.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownTimeout bounds the graceful shutdown after ctx ends (default
	// 10 s); requests still running after it are cut off.
	ShutdownTimeout time.Duration
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Serve serves h over HTTP until ctx ends, then shuts the server down
// gracefully: it stops accepting connections and waits (up to
// ShutdownTimeout) for running requests. The logger in ctx
// (logr.FromContextOrDiscard) becomes the logger of every request's
// context. Serve returns nil after a shutdown caused by ctx, or the error
// that stopped the server.
func Serve(ctx context.Context, h http.Handler, cfg ServeConfig) error {
	log := logr.FromContextOrDiscard(ctx)
	ln := cfg.Listener
	if ln == nil {
		addr := cfg.Address
		if addr == "" {
			addr = DefaultAddress
		}
		var err error
		ln, err = (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
		if err != nil {
			return fmt.Errorf("webhook server: listening on %s: %w", addr, err)
		}
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: orDefault(cfg.ReadHeaderTimeout, 5*time.Second),
		ReadTimeout:       orDefault(cfg.ReadTimeout, 5*time.Second),
		WriteTimeout:      orDefault(cfg.WriteTimeout, 10*time.Second),
		IdleTimeout:       orDefault(cfg.IdleTimeout, 30*time.Second),
		// Requests see the logger (and values) of ctx, but are not
		// cancelled by it: shutdown lets them finish.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		// net/http's own complaints (bad requests, handler panics) go to
		// the logger in ctx rather than to the standard library's log.
		ErrorLog: stdlog.New(logWriter{log.WithName("http")}, "", 0),
	}
	done := make(chan error, 1)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orDefault(cfg.ShutdownTimeout, 10*time.Second))
		defer cancel()
		err := srv.Shutdown(sctx)
		if err != nil {
			err = errors.Join(err, srv.Close())
		}
		done <- err
	}()
	log.Info("webhook server listening", "address", ln.Addr().String())
	err := srv.Serve(ln)
	if !errors.Is(err, http.ErrServerClosed) {
		// Serve failed on its own: stop the shutdown goroutine's wait by
		// closing; ctx may still be live, so do not wait for it.
		_ = srv.Close()
		return fmt.Errorf("webhook server on %s: %w", ln.Addr(), err)
	}
	if err := <-done; err != nil {
		return fmt.Errorf("webhook server on %s: shutting down: %w", ln.Addr(), err)
	}
	log.Info("webhook server stopped", "address", ln.Addr().String())
	return nil
}

// logWriter passes the lines net/http writes to its ErrorLog to a logr
// logger. They may quote what a client sent, so text holding control
// characters is escaped ([endpoint.Printable]): a handler panic's stack
// trace, too, becomes one line.
type logWriter struct{ log logr.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Info(endpoint.Printable(strings.TrimSpace(string(p))))
	return len(p), nil
}
