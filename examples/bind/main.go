// Command bind keeps the records of a BIND zone in step with a text file: a
// complete zonesync program to copy and adapt. Its pieces:
//
//   - a source of its own (filesource.go): the desired records are the
//     lines of a file ("name type ttl target..."), read again every cycle
//     and watched for changes;
//   - the RFC 2136 provider (provider/rfc2136): dynamic updates and zone
//     transfers signed with a TSIG key read from a BIND key file
//     (rfc2136.LoadTSIGKeyFile), the same file named.conf includes;
//   - the TXT registry (registry/txt): every record gets an ownership TXT
//     naming -owner-id, in external-dns's format, so records it did not
//     create are never touched;
//   - a Reconciler whose Preview is printed before each cycle applies
//     anything;
//   - Prometheus metrics (metrics/prometheus) served on -metrics-address,
//     under external-dns's metric names.
//
// run.sh starts named on 127.0.0.1 with the files of this directory
// (named.conf, zonesync.key, example.test.db), runs two cycles — records.txt,
// then records-changed.txt — and shows the zone with dig. README.md explains
// each piece and how to point the program at a real BIND.
//
// By hand, with named already serving example.test on 127.0.0.1:10053:
//
//	go run ./examples/bind -records examples/bind/records.txt -tsig-key examples/bind/zonesync.key
//
// It runs a cycle at once, then every -interval and whenever the file
// changes, until interrupted; -once runs one cycle and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zonesync/zonesync"
	zsprom "github.com/zonesync/zonesync/metrics/prometheus"
	"github.com/zonesync/zonesync/provider/rfc2136"
	"github.com/zonesync/zonesync/registry/txt"
)

// config is what the flags set.
type config struct {
	records     string        // the records file
	server      string        // the primary name server, host:port
	zones       []string      // the zones managed
	keyFile     string        // BIND key file with the TSIG key; "" sends unsigned
	ownerID     string        // the TXT registry's owner id
	txtPrefix   string        // the TXT registry's prefix
	interval    time.Duration // time between regular cycles
	poll        time.Duration // how often the file is checked for changes
	events      bool          // a change of the file runs a cycle at once
	once        bool          // run one cycle and exit
	dryRun      bool          // plan, apply nothing
	metricsAddr string        // where /metrics is served; "" serves nothing
}

// zoneList collects repeated -zone flags.
type zoneList []string

func (z *zoneList) String() string     { return strings.Join(*z, ",") }
func (z *zoneList) Set(v string) error { *z = append(*z, v); return nil }

// parseFlags parses the command line; usage and flag errors go to out.
func parseFlags(args []string, out io.Writer) (config, error) {
	var cfg config
	var zones zoneList
	fs := flag.NewFlagSet("bind", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.records, "records", "", `file of desired records, one per line: "name type ttl target..." (required)`)
	fs.StringVar(&cfg.server, "server", "127.0.0.1:10053", "primary name server of the zones, host:port")
	fs.Var(&zones, "zone", "zone to manage (repeatable; default example.test)")
	fs.StringVar(&cfg.keyFile, "tsig-key", "", "BIND key file (as tsig-keygen writes it) with the TSIG key; empty sends unsigned requests")
	fs.StringVar(&cfg.ownerID, "owner-id", "bind-example", "owner id written into the ownership TXT records (external-dns's --txt-owner-id)")
	fs.StringVar(&cfg.txtPrefix, "txt-prefix", "", `prefix of the ownership TXT names (external-dns's --txt-prefix); "txt-%{record_type}." also owns zone apex records`)
	fs.DurationVar(&cfg.interval, "interval", time.Minute, "time between regular cycles")
	fs.DurationVar(&cfg.poll, "poll", 2*time.Second, "how often the records file is checked for changes")
	fs.BoolVar(&cfg.events, "events", true, "run a cycle as soon as the records file changes, not only every -interval")
	fs.BoolVar(&cfg.once, "once", false, "run one cycle and exit (no metrics server)")
	fs.BoolVar(&cfg.dryRun, "dry-run", false, "print what each cycle would do, apply nothing")
	fs.StringVar(&cfg.metricsAddr, "metrics-address", "127.0.0.1:7979", "address to serve Prometheus metrics on, at /metrics; empty: none")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q: every setting is a flag (see -h)", fs.Args())
	}
	if cfg.records == "" {
		return cfg, errors.New("-records is required: give the file of desired records")
	}
	cfg.zones = zones
	if len(cfg.zones) == 0 {
		cfg.zones = []string{"example.test"}
	}
	return cfg, nil
}

// run is the program: main without the process around it, so that a test
// can call it. It returns when ctx ends (nil) or on an error that stops the
// program; with -once, after one cycle, with that cycle's error.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}

	// The provider: RFC 2136 updates and AXFR, signed with the TSIG key.
	var key *rfc2136.TSIG
	if cfg.keyFile != "" {
		if key, err = rfc2136.LoadTSIGKeyFile(cfg.keyFile); err != nil {
			return err
		}
	}
	dns, err := rfc2136.New(rfc2136.Config{Server: cfg.server, Zones: cfg.zones, TSIG: key})
	if err != nil {
		return err
	}

	// The registry: ownership in TXT records, as external-dns writes them.
	reg, err := txt.New(dns, txt.Config{OwnerID: cfg.ownerID, Prefix: cfg.txtPrefix})
	if err != nil {
		return err
	}

	// Metrics, on a registry of our own (never Prometheus's global one).
	// The wrappers count the source's and the registry's errors; the
	// Observer turns every cycle into the controller and record metrics.
	promReg := prometheus.NewRegistry()
	metrics, err := zsprom.New(promReg, zsprom.Options{})
	if err != nil {
		return err
	}

	src := &fileSource{path: cfg.records, poll: cfg.poll}
	rec := &zonesync.Reconciler{
		Source:   metrics.Source(src),
		Registry: metrics.Registry(reg),
		Observer: metrics,
		DryRun:   cfg.dryRun,
		// Logger unset: the Reconciler logs through the logger in ctx
		// (main puts one there).
	}

	if cfg.once {
		return cycle(ctx, rec, "", stdout)
	}
	if cfg.metricsAddr != "" {
		stop, err := serveMetrics(ctx, cfg.metricsAddr, promReg, stdout)
		if err != nil {
			return err
		}
		defer stop()
	}
	return loop(ctx, rec, src, cfg, stdout)
}

// loop runs a cycle at once, then whenever -interval has passed or, with
// -events, the records file changed, until ctx ends. A failed cycle is
// printed and tried again at the next occasion.
//
// A program that needs no preview can let the Reconciler schedule itself
// instead: rec.Run(ctx) runs a cycle every Interval, retries failures with
// backoff, and registers its own handler with the source unless
// IgnoreSourceEvents is set.
func loop(ctx context.Context, rec *zonesync.Reconciler, src *fileSource, cfg config, out io.Writer) error {
	changed := make(chan struct{}, 1)
	if cfg.events {
		src.AddEventHandler(ctx, func() {
			select {
			case changed <- struct{}{}:
			default: // a cycle is already due
			}
		})
	}
	for n := 1; ; n++ {
		label := fmt.Sprintf("cycle %d: ", n)
		if err := cycle(ctx, rec, label, out); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintf(out, "== %sfailed: %v\n", label, err)
		}
		timer := time.NewTimer(cfg.interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C:
		case <-changed:
			timer.Stop()
		}
	}
}

// cycle prints the preview of a cycle, then runs it and prints what was
// applied; label starts each heading ("cycle 2: "). The cycle reads the file
// and the zone again, so when either changed in between it applies the newer
// plan (and prints its counts).
func cycle(ctx context.Context, rec *zonesync.Reconciler, label string, out io.Writer) error {
	pv, err := rec.Preview(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "== %spreview\n%s\n", label, pv)
	c, err := rec.RunOnce(ctx)
	if changes := c.Changes; changes != nil {
		verb := "applied"
		if rec.DryRun {
			verb = "dry run, not applied"
		}
		fmt.Fprintf(out, "== %s%s: %d created, %d updated, %d deleted\n",
			label, verb, len(changes.Create), len(changes.UpdateNew), len(changes.Delete))
	}
	return err
}

// serveMetrics serves the Prometheus registry at /metrics on addr until
// stop is called. It prints the URL, with the port chosen when addr asks
// for port 0.
func serveMetrics(ctx context.Context, addr string, reg *prometheus.Registry, out io.Writer) (stop func(), err error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w (set -metrics-address to a free address, or to \"\" to serve none)", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // returns http.ErrServerClosed after Shutdown
	}()
	fmt.Fprintf(out, "metrics: http://%s/metrics\n", ln.Addr())
	return func() {
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		<-done
	}, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// zonesync logs through logr; here to slog's text format on stderr.
	log := logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil))
	ctx = logr.NewContext(ctx, log)

	err := run(ctx, os.Args[1:], os.Stdout)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	default:
		fmt.Fprintln(os.Stderr, "bind:", err)
		stop()
		os.Exit(1)
	}
}
