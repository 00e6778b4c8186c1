// Command webhookserver serves a zonesync provider over the external-dns
// webhook protocol, so that external-dns itself can use it with
// --provider=webhook.
//
// The provider here is the in-memory one with the zones given by -zone;
// a real server puts its own provider.Provider in its place (see run). The
// protocol is served on -address (default 127.0.0.1:8888, where
// external-dns looks by default), with /healthz on the same address.
//
// Run it from the repository root:
//
//	go run ./examples/webhookserver -zone example.org
//
// and point external-dns at it:
//
//	external-dns --provider=webhook --webhook-provider-url=http://127.0.0.1:8888 ...
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/webhook"
)

// zones collects repeated -zone flags.
type zones []string

func (z *zones) String() string     { return strings.Join(*z, ",") }
func (z *zones) Set(v string) error { *z = append(*z, v); return nil }

// newProvider builds the provider to serve: replace it with your own.
func newProvider(zoneNames []string) provider.Provider {
	return inmemory.New(inmemory.Options{Zones: zoneNames})
}

// run serves until ctx ends. When ln is nil it listens on address.
func run(ctx context.Context, ln net.Listener, address string, zoneNames []string) error {
	if len(zoneNames) == 0 {
		return fmt.Errorf("give at least one -zone")
	}
	h := webhook.NewHandler(newProvider(zoneNames))
	return webhook.Serve(ctx, h, webhook.ServeConfig{Address: address, Listener: ln})
}

func main() {
	var zs zones
	address := flag.String("address", webhook.DefaultAddress, "address to serve the webhook protocol on")
	flag.Var(&zs, "zone", "a DNS zone to hold (repeatable)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil))
	ctx = logr.NewContext(ctx, log)

	if err := run(ctx, nil, *address, zs); err != nil {
		log.Error(err, "webhookserver")
		os.Exit(1)
	}
}
