// Command dropin runs zonesync with external-dns's command line: the same
// flags (and EXTERNAL_DNS_* environment variables) as external-dns v0.23's
// binary, so a team can swap the container image and keep the Deployment's
// args, ServiceAccount and credentials:
//
//	dropin --source=service --source=ingress --provider=aws \
//	  --aws-zone-type=public --domain-filter=example.com --policy=upsert-only \
//	  --registry=txt --txt-owner-id=prod-cluster --txt-prefix=edns- \
//	  --interval=1m --annotation-filter=team=web
//
// The flags become zonesync settings through externaldns.NewProgram
// (provider/externaldns; docs/from-external-dns.md has the table), with
// every in-tree provider this module can build (provider/externaldns/intree:
// all but civo and exoscale). Flags that would change what is written and
// have no zonesync equivalent (--registry=dynamodb, --compatibility, …) stop
// the program with an error naming them; every other flag given (on the
// command line or in the environment, whatever its value) that has no effect
// — a flag of another provider, source or registry, a flag the other flags
// make void — is logged at start as a warning naming it, in flag order.
//
// What external-dns's binary does besides, this program does too:
//
//   - the Kubernetes clients from --kubeconfig and --server (else the
//     default kubeconfig, else the in-cluster configuration), with
//     --kube-api-qps, --kube-api-burst and --kube-api-request-timeout; the
//     namespace of that configuration is the crd registry's when
//     --crd-registry-namespace is not given;
//   - logs as --log-format (text or json) and --log-level say: debug shows
//     each change (V(1)), trace more, info and warning one line per cycle,
//     error and above only errors. external-dns's provider code logs through
//     logrus, which is set to the same level and format;
//   - /metrics (external-dns's metric names, docs/metrics.md) and /healthz
//     on --metrics-address.
//
// It stops on SIGTERM or SIGINT; with --once after one cycle, failing when
// the cycle fails. A failed cycle of the loop is logged and retried with
// backoff, where external-dns exits.
//
// Its test (main_test.go) runs the command line above against moto's Route 53
// emulator (the root module's internal/motoserver), offline: the AWS SDK
// reads AWS_ENDPOINT_URL_ROUTE_53, static keys and AWS_REGION from the
// environment, and AWS_EC2_METADATA_DISABLED=true keeps it from asking the
// instance metadata service. The module needs Go 1.27, as external-dns does:
// run the go command here with GOTOOLCHAIN=auto.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sirupsen/logrus"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/metrics/prometheus"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/intree"
)

// env is what run takes from its surroundings; tests replace parts of it.
type env struct {
	// stderr receives the logs.
	stderr io.Writer
	// kube and dynamic, when set, are the Kubernetes clients; otherwise
	// run builds them as external-dns does.
	kube    kubernetes.Interface
	dynamic dynamic.Interface
	// namespace is the crd registry's namespace when
	// --crd-registry-namespace is not given and kube is set.
	namespace string
	// listen opens the metrics listener; nil means net.Listen.
	listen func(network, addr string) (net.Listener, error)
	// observer, when set, also sees every cycle.
	observer zonesync.Observer
	// logrus configures logrus's standard logger (external-dns's provider
	// code logs there): process-wide, so only main sets it.
	logrus bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], env{stderr: os.Stderr, logrus: true}); err != nil {
		fmt.Fprintln(os.Stderr, "dropin:", err)
		os.Exit(1)
	}
}

// programFlags are the flags of external-dns's binary that run carries out
// itself rather than NewProgram.
func programFlags() []string {
	return []string{"kubeconfig", "server", "request-timeout", "kube-api-request-timeout", "kube-api-qps", "kube-api-burst", "log-format", "log-level", "metrics-address"}
}

// run parses external-dns's arguments and runs zonesync as they say, until
// ctx ends (or after one cycle with --once).
func run(ctx context.Context, args []string, e env) error {
	cfg, err := externaldns.ParseFlags(args)
	if err != nil {
		return err
	}
	// The flags given, whatever their values, so that one given with its
	// default value that nothing uses is reported too.
	given, err := externaldns.GivenFlags(args)
	if err != nil {
		return err
	}
	log, err := newLogger(cfg, &syncWriter{w: e.stderr})
	if err != nil {
		return err
	}
	if e.logrus {
		if err := configureLogrus(cfg, e.stderr); err != nil {
			return err
		}
	}
	ctx = logr.NewContext(ctx, log)

	opts := externaldns.ProgramOptions{
		Kube:         e.kube,
		Dynamic:      e.dynamic,
		Namespace:    e.namespace,
		Constructors: intree.Constructors(),
		Handled:      programFlags(),
		GivenFlags:   given,
	}
	// The flags first: an unsupported one is reported before anything is
	// built, whether or not a cluster can be reached.
	if _, err := externaldns.CheckFlags(cfg, opts); err != nil {
		return err
	}
	if opts.Kube == nil && needsKubernetes(cfg) {
		if opts.Kube, opts.Dynamic, opts.Namespace, err = kubeClients(cfg); err != nil {
			return err
		}
	}
	prog, err := externaldns.NewProgram(ctx, cfg, opts)
	if err != nil {
		return err
	}
	for _, w := range prog.Warnings {
		log.Info("external-dns flag not carried out", "flag", w.Flag, "reason", w.Reason)
	}

	reg := promclient.NewRegistry()
	m, err := prometheus.New(reg, prometheus.Options{})
	if err != nil {
		return err
	}
	prog.Reconciler.Observer = zonesync.Observers(m, prog.Reconciler.Observer, e.observer)
	stopServing, err := serveMetrics(ctx, cfg.MetricsAddress, reg, e.listen)
	if err != nil {
		return err
	}
	defer stopServing()

	log.Info("zonesync starting", "provider", cfg.Provider, "sources", cfg.Sources, "registry", cfg.Registry,
		"policy", cfg.Policy, "once", cfg.Once, "dryRun", cfg.DryRun)
	return prog.Run(ctx)
}

// needsKubernetes reports whether the configuration reads or writes
// Kubernetes objects: a source other than connector and empty (and fake,
// which NewProgram refuses with its own error), the crd registry, or
// Kubernetes Events.
func needsKubernetes(cfg *xconfig.Config) bool {
	for _, s := range cfg.Sources {
		if s != "connector" && s != "empty" && s != "fake" {
			return true
		}
	}
	return cfg.Registry == xconfig.RegistryCRD || len(cfg.EmitEvents) > 0
}

// kubeClients builds the clients as external-dns does: --kubeconfig (else
// the default loading rules, else the in-cluster configuration) and
// --server, with the client flags. It returns the configuration's
// namespace too.
func kubeClients(cfg *xconfig.Config) (kubernetes.Interface, dynamic.Interface, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = cfg.KubeConfig
	overrides := &clientcmd.ConfigOverrides{}
	overrides.ClusterInfo.Server = cfg.APIServerURL
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, nil, "", fmt.Errorf("kubernetes client (--kubeconfig, --server): %w", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, nil, "", fmt.Errorf("kubernetes client: namespace: %w", err)
	}
	rc.QPS = float32(cfg.KubeAPIQPS)
	rc.Burst = cfg.KubeAPIBurst
	rc.Timeout = cfg.KubeAPIRequestTimeout
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, "", fmt.Errorf("kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, nil, "", fmt.Errorf("kubernetes dynamic client: %w", err)
	}
	return kube, dyn, ns, nil
}

// newLogger returns the logger --log-format and --log-level ask for.
func newLogger(cfg *xconfig.Config, w io.Writer) (logr.Logger, error) {
	verbosity, errorsOnly := 0, false
	switch cfg.LogLevel {
	case "trace":
		verbosity = 2
	case "debug":
		verbosity = 1
	case "info", "warning":
	case "error", "fatal", "panic":
		errorsOnly = true
	default:
		return logr.Logger{}, fmt.Errorf("--log-level=%s: not a level external-dns has", cfg.LogLevel)
	}
	opts := funcr.Options{Verbosity: verbosity, LogTimestamp: true}
	var log logr.Logger
	switch cfg.LogFormat {
	case "json":
		log = funcr.NewJSON(func(obj string) { fmt.Fprintln(w, obj) }, opts)
	default:
		log = funcr.New(func(prefix, args string) { fmt.Fprintln(w, prefix, args) }, opts)
	}
	if errorsOnly {
		log = logr.New(errorSink{log.GetSink()})
	}
	return log, nil
}

// errorSink passes on error lines only.
type errorSink struct{ logr.LogSink }

// Enabled is false for every info line.
func (errorSink) Enabled(int) bool { return false }

// WithValues keeps the sink an errorSink.
func (s errorSink) WithValues(kv ...any) logr.LogSink { return errorSink{s.LogSink.WithValues(kv...)} }

// WithName keeps the sink an errorSink.
func (s errorSink) WithName(name string) logr.LogSink { return errorSink{s.LogSink.WithName(name)} }

// configureLogrus sets logrus's standard logger, which external-dns's
// provider code logs through, to the level and format of the flags.
func configureLogrus(cfg *xconfig.Config, w io.Writer) error {
	level, err := logrus.ParseLevel(cfg.LogLevel)
	if err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logrus.SetLevel(level)
	logrus.SetOutput(w)
	if cfg.LogFormat == "json" {
		logrus.SetFormatter(&logrus.JSONFormatter{})
	}
	return nil
}

// serveMetrics serves reg on /metrics and "OK" on /healthz at addr until
// ctx ends or the returned function is called.
func serveMetrics(ctx context.Context, addr string, reg *promclient.Registry, listen func(string, string) (net.Listener, error)) (func(), error) {
	if listen == nil {
		listen = net.Listen
	}
	ln, err := listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-address=%s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "OK") })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logr.FromContextOrDiscard(ctx).Error(err, "serving metrics", "address", addr)
		}
	}()
	var once sync.Once
	shutdown := func() {
		once.Do(func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
			<-done
		})
	}
	stopAfter := context.AfterFunc(ctx, shutdown)
	return func() { stopAfter(); shutdown() }, nil
}

// syncWriter serialises writes to w: log lines come from several
// goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p to the underlying writer, one call at a time.
func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
