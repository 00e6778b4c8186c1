package externaldns

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/pkg/apis/externaldns/validation"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/policy"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/crd"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/connector"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/gatewayapi"
	k8s "github.com/zonesync/zonesync/source/kubernetes"
	"github.com/zonesync/zonesync/source/kubernetes/events"
)

// DefaultSyncTimeout is how long [Program.Run] waits for the sources'
// informer caches before the first cycle when ProgramOptions.SyncTimeout is
// zero: external-dns's binary waits as long.
const DefaultSyncTimeout = 60 * time.Second

// ProgramOptions is what [NewProgram] needs besides external-dns's
// configuration. The zero value builds no source that reads Kubernetes
// and no provider: set the clients the sources need and Constructors.
type ProgramOptions struct {
	// Kube is the clientset the Kubernetes sources read through (service,
	// ingress, node, pod, the gateway sources, istio, ambassador, gloo,
	// unstructured) and that records the Events of --events-emit. A
	// source that needs it fails NewProgram when it is nil.
	Kube kubernetes.Interface
	// Dynamic is the dynamic client of the sources of custom resources and
	// of the gateway sources, and of --registry=crd.
	Dynamic dynamic.Interface
	// Constructors maps --provider values to external-dns provider
	// constructors. intree.Constructors (package
	// provider/externaldns/intree) has every in-tree provider this module
	// can build; a program that runs one provider links only its SDK by
	// giving just that one ({"aws": aws.New}).
	Constructors map[string]Constructor
	// Provider are the options [New] gets for the provider (name,
	// guarantees, zones).
	Provider Options
	// EventRecorder records the Kubernetes Events of --events-emit. Nil
	// makes NewProgram record them through Kube (core/v1 Events, component
	// "zonesync"), until the context given to NewProgram ends.
	EventRecorder record.EventRecorder
	// Namespace is the namespace the program runs in. As in external-dns,
	// --registry=crd keeps its DNSRecord objects there when
	// --crd-registry-namespace is not given; empty means "default".
	Namespace string
	// Handled lists the flags, without dashes ("kubeconfig",
	// "metrics-address", "log-level"), that configure external-dns's binary
	// rather than its loop and that the caller carries out itself:
	// NewProgram does not warn about them.
	Handled []string
	// GivenFlags are the flags given on the command line or in
	// EXTERNAL_DNS_* variables, as [GivenFlags] returns them for the
	// arguments the configuration was parsed from. NewProgram checks these
	// as well as every flag whose value differs from its default, so that
	// a flag given with its default value is reported when nothing uses it.
	// Nil: only the flags whose values differ from their defaults.
	GivenFlags []string
	// SyncTimeout bounds how long Run waits for the sources' informer
	// caches before the first cycle; zero means [DefaultSyncTimeout].
	SyncTimeout time.Duration
}

// Program is what external-dns's binary would run for a configuration,
// made of zonesync's packages: the Reconciler over the sources, the
// registry and the provider, and what to do with it (one cycle or a loop).
// Its fields may be changed before Run, for instance to add an Observer
// (zonesync.Observers) or a logger.
type Program struct {
	// Reconciler is set up as the flags say; see [NewProgram].
	Reconciler *zonesync.Reconciler
	// Provider is the provider the registry writes through: the adapter
	// around external-dns's provider, behind provider/cache when
	// --provider-cache-time or --txt-cache-interval is given.
	Provider provider.Provider
	// Once is --once: Run runs one cycle instead of a loop.
	Once bool
	// Warnings are the flags given that were not carried out but change
	// nothing that is written: flags of the binary (logging, metrics,
	// Kubernetes client) the caller did not list in ProgramOptions.Handled,
	// flags of a registry, provider or source other than the ones chosen,
	// flags that the other flags make void (--force-default-targets
	// without --default-targets, --domain-filter beside
	// --regex-domain-filter), flags external-dns itself ignores. Each names
	// its flag; sorted by flag.
	Warnings []FlagIssue

	// sources are the sources built, for Run to wait for their caches.
	sources     []source.Source
	syncTimeout time.Duration
}

// NewProgram turns external-dns's configuration into a zonesync
// [Program]. cfg is what [ParseFlags] returns for the arguments of an
// external-dns deployment; a Config built by hand lacks the flags'
// defaults. ctx bounds everything the program starts: the sources'
// informers, the crd registry's cache and the Event recorder stop when it
// ends, so give Run the same context or one derived from it.
//
// The configuration is first checked as external-dns's binary checks it
// (its validation package: --policy is required, --txt-prefix and
// --txt-suffix are exclusive, …). Then every flag given (whose value
// differs from its default, environment variables included, and every
// flag of ProgramOptions.GivenFlags) is
// classified; when any of them would change what is written and cannot
// be carried out — a registry, source or provider zonesync does not have,
// --compatibility, --webhook-server — NewProgram returns an
// *[UnsupportedFlagsError] naming each of them, before anything is built
// or started. Flags that change nothing written end up in
// [Program.Warnings]. [CheckFlags] makes these checks alone.
//
// What the flags become (docs/from-external-dns.md has the table):
//
//   - --source: one zonesync source per value (source/kubernetes,
//     source/gatewayapi, source/connector, source.Empty), with the shared
//     options (--namespace, --annotation-filter, --label-filter, the
//     templates, --combine-fqdn-annotation, --ignore-hostname-annotation)
//     and each source's own flags. Annotations are read under
//     --annotation-prefix, and also under external-dns.alpha.kubernetes.io/
//     with --enable-legacy-annotation-prefix, as external-dns v0.23 reads
//     them. --source=unstructured gives one source per
//     --unstructured-resource, checked with the API server's discovery.
//   - the wrappers in external-dns's order: --default-targets inside the
//     multi-source, dedup, --nat64-networks, --target-net-filter and
//     --exclude-target-net (on the targets of every record type, as
//     external-dns filters them), PTR records when PTR is in
//     --managed-record-types (for every A/AAAA with --create-ptr, else
//     for the annotated ones), and the post-processor (--min-ttl as the
//     default TTL, --prefer-alias, --provider's properties). An invalid
//     network is an error; external-dns logs and skips it.
//   - --domain-filter, --exclude-domains, --regex-domain-filter,
//     --regex-domain-exclusion: the Reconciler's DomainFilter, and the
//     provider's filter (its zones), as external-dns builds both.
//   - --provider: the constructor ProgramOptions.Constructors has for it,
//     through [New] with cfg (the provider reads its own flags there).
//     --provider-cache-time and --txt-cache-interval put provider/cache in
//     front of it (the shorter time when both are given).
//   - --registry: txt (--txt-owner-id, --txt-prefix, --txt-suffix,
//     --txt-wildcard-replacement, --txt-encrypt-enabled and
//     --txt-encrypt-aes-key, --migrate-from-txt-owner,
//     --managed-record-types, --exclude-record-types), noop (the record
//     types on the Reconciler) or crd (started here, in
//     --crd-registry-namespace or ProgramOptions.Namespace).
//   - --policy, --interval, --min-event-sync-interval, --dry-run
//     (Reconciler.DryRun), --events (IgnoreSourceEvents is its negation),
//     --once ([Program.Once]), --events-emit (the Observer of
//     source/kubernetes/events).
//
// The Reconciler keeps zonesync's defaults where external-dns has no flag:
// the safety threshold is on, and conflicts are resolved per resource.
//
// On an error after the sources were built, their informers run until ctx
// ends.
func NewProgram(ctx context.Context, cfg *xconfig.Config, opts ProgramOptions) (*Program, error) {
	warnings, err := CheckFlags(cfg, opts)
	if err != nil {
		return nil, err
	}

	// Everything that can be checked without starting anything.
	pol, err := policy.ByName(cfg.Policy)
	if err != nil {
		return nil, fmt.Errorf("--policy: %w", err)
	}
	filter, xfilter := domainFilters(cfg)
	shared, err := sharedOptions(cfg)
	if err != nil {
		return nil, err
	}
	wrap, err := wrapperOptions(cfg)
	if err != nil {
		return nil, err
	}
	unstructured, err := unstructuredResources(cfg, opts.Kube)
	if err != nil {
		return nil, err
	}

	p, err := newProgramProvider(ctx, cfg, xfilter, opts)
	if err != nil {
		return nil, err
	}
	r := &zonesync.Reconciler{
		Policy:               pol,
		DomainFilter:         filter,
		Interval:             cfg.Interval,
		MinEventSyncInterval: cfg.MinEventSyncInterval,
		IgnoreSourceEvents:   !cfg.UpdateEvents,
		DryRun:               cfg.DryRun,
	}
	reg, crdReg, err := newProgramRegistry(cfg, p, r, opts)
	if err != nil {
		return nil, err
	}
	r.Registry = reg

	sources := make([]source.Source, 0, len(cfg.Sources))
	for _, name := range cfg.Sources {
		built, err := newSources(ctx, name, cfg, shared, unstructured, opts)
		if err != nil {
			return nil, err
		}
		sources = append(sources, built...)
	}
	if r.Source, err = wrapSources(sources, wrap); err != nil {
		return nil, err
	}

	if len(cfg.EmitEvents) > 0 {
		rec := opts.EventRecorder
		if rec == nil {
			if opts.Kube == nil {
				return nil, errors.New("--events-emit: ProgramOptions.Kube is nil, and so is ProgramOptions.EventRecorder")
			}
			rec = newEventRecorder(ctx, opts.Kube)
		}
		obs, err := events.New(rec, events.Options{})
		if err != nil {
			return nil, fmt.Errorf("--events-emit: %w", err)
		}
		r.Observer = obs
	}
	if crdReg != nil {
		if err := crdReg.Start(ctx); err != nil {
			return nil, fmt.Errorf("--registry=crd: %w", err)
		}
	}

	timeout := opts.SyncTimeout
	if timeout <= 0 {
		timeout = DefaultSyncTimeout
	}
	return &Program{
		Reconciler:  r,
		Provider:    p,
		Once:        cfg.Once,
		Warnings:    warnings,
		sources:     sources,
		syncTimeout: timeout,
	}, nil
}

// CheckFlags makes the checks [NewProgram] makes before it builds
// anything, and nothing else: the configuration as external-dns's binary
// checks it, then the flags given, classified. It returns the warnings
// NewProgram would put in [Program.Warnings], or the error NewProgram
// would return (an *[UnsupportedFlagsError] for flags that cannot be
// carried out). Of opts it reads Handled and Constructors only, so a
// program can call it before it sets up the Kubernetes clients the flags
// may not even need.
func CheckFlags(cfg *xconfig.Config, opts ProgramOptions) ([]FlagIssue, error) {
	if cfg == nil {
		return nil, errors.New("externaldns: nil configuration")
	}
	if err := validation.ValidateConfig(cfg); err != nil {
		return nil, fmt.Errorf("external-dns flags: %w", err)
	}
	given, err := givenFlags(cfg)
	if err != nil {
		return nil, err
	}
	given = append(given, opts.GivenFlags...)
	slices.Sort(given)
	given = slices.Compact(given)
	report := checkFlags(cfg, given, opts.Handled, opts.Constructors)
	if len(report.unsupported) > 0 {
		return nil, &UnsupportedFlagsError{Flags: report.unsupported}
	}
	return report.warnings, nil
}

// Run runs the program: it waits for the sources' informer caches
// ([Program.WaitForSync]), then runs one cycle with [Program.Once]
// (returning its error) or [zonesync.Reconciler.Run] until ctx ends.
func (p *Program) Run(ctx context.Context) error {
	if err := p.WaitForSync(ctx); err != nil {
		return err
	}
	if p.Once {
		_, err := p.Reconciler.RunOnce(ctx)
		return err
	}
	return p.Reconciler.Run(ctx)
}

// WaitForSync waits until the informer caches of the sources have synced,
// at most ProgramOptions.SyncTimeout (or until ctx ends), and returns an
// error naming the first source whose caches did not sync in time. Run
// calls it; a program that calls the Reconciler's RunOnce or Preview
// itself calls it first, or its first cycles fail with
// zonesync.ErrSourceNotReady.
func (p *Program) WaitForSync(ctx context.Context) error {
	type waiter interface {
		WaitForSync(ctx context.Context) error
	}
	ctx, cancel := context.WithTimeout(ctx, p.syncTimeout)
	defer cancel()
	for _, s := range p.sources {
		if w, ok := s.(waiter); ok {
			if err := w.WaitForSync(ctx); err != nil {
				return fmt.Errorf("source %s: waiting for its caches: %w", s, err)
			}
		}
	}
	return nil
}

// domainFilters returns the Reconciler's domain filter (nil when the flags
// filter nothing) and the provider's, built from the same flags as
// external-dns builds its one filter: the regular expressions replace the
// lists when either is given.
func domainFilters(cfg *xconfig.Config) (endpoint.DomainFilterInterface, *xendpoint.DomainFilter) {
	xfilter := xendpoint.NewDomainFilterWithOptions(
		xendpoint.WithDomainFilter(cfg.DomainFilter),
		xendpoint.WithDomainExclude(cfg.DomainExclude),
		xendpoint.WithRegexDomainFilter(cfg.RegexDomainFilter),
		xendpoint.WithRegexDomainExclude(cfg.RegexDomainExclude),
	)
	if regexDomainFilter(cfg) {
		return endpoint.NewRegexDomainFilter(cfg.RegexDomainFilter, cfg.RegexDomainExclude), xfilter
	}
	include, exclude := nonBlank(cfg.DomainFilter), nonBlank(cfg.DomainExclude)
	if len(include) == 0 && len(exclude) == 0 {
		return nil, xfilter
	}
	return endpoint.NewDomainFilterWithExclusions(include, exclude), xfilter
}

// regexDomainFilter reports whether the domain filter is made of the
// regular expressions of --regex-domain-filter and
// --regex-domain-exclusion, which then replace --domain-filter and
// --exclude-domains, as in external-dns.
func regexDomainFilter(cfg *xconfig.Config) bool {
	return regexpText(cfg.RegexDomainFilter) != "" || regexpText(cfg.RegexDomainExclude) != ""
}

// regexpText returns the text of re, "" for nil.
func regexpText(re *regexp.Regexp) string {
	if re == nil {
		return ""
	}
	return re.String()
}

// nonBlank returns the entries of list that are not blank.
func nonBlank(list []string) []string {
	var out []string
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// sharedOptions returns the options every Kubernetes source gets.
func sharedOptions(cfg *xconfig.Config) (k8s.Options, error) {
	o := k8s.Options{
		Namespace:                cfg.Namespace,
		AnnotationFilter:         cfg.AnnotationFilter,
		LabelSelector:            cfg.LabelFilter,
		CombineFQDN:              cfg.CombineFQDNAndAnnotation,
		IgnoreHostnameAnnotation: cfg.IgnoreHostnameAnnotation,
		Annotations:              annotations.Config{Prefixes: []string{cfg.AnnotationPrefix}},
	}
	if cfg.EnableLegacyAnnotationPrefix {
		o.Annotations.Prefixes = append(o.Annotations.Prefixes, annotations.AlphaPrefix)
	}
	if err := o.Annotations.Validate(); err != nil {
		return o, fmt.Errorf("--annotation-prefix: %w", err)
	}
	var err error
	if o.FQDNTemplate, err = template("--fqdn-template", cfg.FQDNTemplate); err != nil {
		return o, err
	}
	if o.TargetTemplate, err = template("--target-template", cfg.TargetTemplate); err != nil {
		return o, err
	}
	if o.FQDNTargetTemplate, err = template("--fqdn-target-template", cfg.FQDNTargetTemplate); err != nil {
		return o, err
	}
	return o, nil
}

// template parses the texts of a template flag given several times as one
// template, their texts joined by commas as external-dns joins them; nil
// when they are all blank.
func template(flag string, texts []string) (*fqdn.Template, error) {
	joined := strings.Join(texts, ",")
	if strings.TrimSpace(joined) == "" {
		return nil, nil
	}
	t, err := fqdn.NewTemplate(joined)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return t, nil
}

// wrappers holds the settings of the source wrappers.
type wrappers struct {
	defaults source.DefaultTargetsOptions
	nat64    source.NAT64Options
	targets  source.TargetFilterOptions
	ptr      *source.PTROptions // nil: no PTR wrapper
	post     source.PostProcessorOptions
}

// wrapperOptions returns the settings of the source wrappers.
func wrapperOptions(cfg *xconfig.Config) (wrappers, error) {
	w := wrappers{
		defaults: source.DefaultTargetsOptions{Targets: nonBlank(cfg.DefaultTargets), ReplaceExisting: cfg.ForceDefaultTargets},
		targets:  source.TargetFilterOptions{AllRecordTypes: true},
		post: source.PostProcessorOptions{
			DefaultTTL:  endpoint.TTL(cfg.MinTTL / time.Second),
			Provider:    cfg.Provider,
			PreferAlias: cfg.PreferAlias,
		},
	}
	var err error
	if w.nat64.Prefixes, err = prefixes("--nat64-networks", cfg.NAT64Networks); err != nil {
		return w, err
	}
	if w.targets.Include, err = prefixes("--target-net-filter", cfg.TargetNetFilter); err != nil {
		return w, err
	}
	if w.targets.Exclude, err = prefixes("--exclude-target-net", cfg.ExcludeTargetNets); err != nil {
		return w, err
	}
	if slices.ContainsFunc(cfg.ManagedDNSRecordTypes, func(t string) bool { return strings.EqualFold(strings.TrimSpace(t), endpoint.RecordTypePTR) }) {
		w.ptr = &source.PTROptions{OnlyAnnotated: !cfg.CreatePTR}
	}
	return w, nil
}

// prefixes parses the networks of a flag; a blank entry is skipped.
func prefixes(flag string, nets []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, n := range nonBlank(nets) {
		p, err := netip.ParsePrefix(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// wrapSources wraps the sources as external-dns's binary does.
func wrapSources(sources []source.Source, w wrappers) (source.Source, error) {
	var s source.Source = source.NewDedup(source.NewDefaultTargets(source.NewMulti(sources, source.MultiOptions{}), w.defaults))
	if len(w.nat64.Prefixes) > 0 {
		var err error
		if s, err = source.NewNAT64(s, w.nat64); err != nil {
			return nil, fmt.Errorf("--nat64-networks: %w", err)
		}
	}
	if len(w.targets.Include) > 0 || len(w.targets.Exclude) > 0 {
		s = source.NewTargetFilter(s, w.targets)
	}
	if w.ptr != nil {
		s = source.NewPTR(s, *w.ptr)
	}
	return source.NewPostProcessor(s, w.post), nil
}

// newProgramProvider constructs the provider --provider names and puts the
// records cache in front of it when a cache flag asks for one.
func newProgramProvider(ctx context.Context, cfg *xconfig.Config, filter *xendpoint.DomainFilter, opts ProgramOptions) (provider.Provider, error) {
	ctor := opts.Constructors[cfg.Provider] // checkFlags made sure it is there
	// New refuses external-dns's own records cache; zonesync's takes its
	// place below. The provider gets a copy without it.
	pcfg := *cfg
	pcfg.ProviderCacheTime = 0
	p, err := New(ctx, ctor, &pcfg, filter, opts.Provider)
	if err != nil {
		return nil, fmt.Errorf("--provider=%s: %w", cfg.Provider, err)
	}
	ttl := cfg.ProviderCacheTime
	if t := cfg.TXTCacheInterval; cfg.Registry == xconfig.RegistryTXT && t > 0 && (ttl <= 0 || t < ttl) {
		ttl = t
	}
	if ttl > 0 {
		c, err := cache.New(p, cache.Options{TTL: ttl})
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	return p, nil
}

// newProgramRegistry returns the registry --registry names over p, and
// the crd registry to start when it is that one. Record types go to the
// TXT registry, or else to r.
func newProgramRegistry(cfg *xconfig.Config, p provider.Provider, r *zonesync.Reconciler, opts ProgramOptions) (registry.Registry, *crd.Registry, error) {
	switch cfg.Registry {
	case xconfig.RegistryTXT:
		c := txt.Config{
			OwnerID:             cfg.TXTOwnerID,
			Prefix:              cfg.TXTPrefix,
			Suffix:              cfg.TXTSuffix,
			WildcardReplacement: cfg.TXTWildcardReplacement,
			ManagedRecordTypes:  cfg.ManagedDNSRecordTypes,
			ExcludeRecordTypes:  cfg.ExcludeDNSRecordTypes,
			OldOwnerID:          cfg.TXTOwnerOld,
		}
		switch {
		case cfg.TXTEncryptAESKey != "":
			c.EncryptionKey = []byte(cfg.TXTEncryptAESKey)
			if !cfg.TXTEncryptEnabled {
				c.EncryptionMode = txt.EncryptionDecryptOnly
			}
		case cfg.TXTEncryptEnabled:
			return nil, nil, errors.New("--txt-encrypt-enabled: --txt-encrypt-aes-key is required with it")
		}
		reg, err := txt.New(p, c)
		if err != nil {
			return nil, nil, fmt.Errorf("--registry=txt: %w", err)
		}
		return reg, nil, nil
	case xconfig.RegistryNoop:
		r.ManagedRecordTypes, r.ExcludeRecordTypes = cfg.ManagedDNSRecordTypes, cfg.ExcludeDNSRecordTypes
		return noop.New(p), nil, nil
	case xconfig.RegistryCRD:
		if opts.Dynamic == nil {
			return nil, nil, errors.New("--registry=crd: ProgramOptions.Dynamic is nil")
		}
		ns := cfg.CRDRegistryNamespace
		if ns == "" {
			ns = opts.Namespace
		}
		reg, err := crd.New(p, opts.Dynamic, crd.Config{OwnerID: cfg.TXTOwnerID, Namespace: ns})
		if err != nil {
			return nil, nil, fmt.Errorf("--registry=crd: %w", err)
		}
		r.ManagedRecordTypes, r.ExcludeRecordTypes = cfg.ManagedDNSRecordTypes, cfg.ExcludeDNSRecordTypes
		return reg, reg, nil
	}
	return nil, nil, fmt.Errorf("--registry=%s: not supported", cfg.Registry) // checkFlags refused it already
}

// unstructuredResources parses --unstructured-resource (resource.version.group,
// or resource.version for the core group) when --source=unstructured is
// given, and checks with the API server's discovery that each is served,
// as external-dns does. It returns the UnstructuredConfig of each, without
// the shared options.
func unstructuredResources(cfg *xconfig.Config, kube kubernetes.Interface) ([]k8s.UnstructuredConfig, error) {
	if !slices.Contains(cfg.Sources, "unstructured") {
		return nil, nil
	}
	resources := nonBlank(cfg.UnstructuredResources)
	if len(resources) == 0 {
		return nil, errors.New("--source=unstructured: no --unstructured-resource given")
	}
	if kube == nil {
		return nil, errors.New("--source=unstructured: ProgramOptions.Kube is nil (its discovery checks the resources)")
	}
	var out []k8s.UnstructuredConfig
	for _, res := range resources {
		arg := strings.TrimSpace(res)
		if strings.Count(arg, ".") == 1 {
			arg += "." // a resource of the core group: "configmaps.v1"
		}
		gvr, _ := schema.ParseResourceArg(arg)
		if gvr == nil || gvr.Resource == "" || gvr.Version == "" {
			return nil, fmt.Errorf("--unstructured-resource=%s: expected resource.version.group (certificates.v1.cert-manager.io) or resource.version (configmaps.v1)", res)
		}
		list, err := kube.Discovery().ServerResourcesForGroupVersion(gvr.GroupVersion().String())
		if err != nil {
			return nil, fmt.Errorf("--unstructured-resource=%s: discovering %s: %w", res, gvr.GroupVersion(), err)
		}
		i := slices.IndexFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == gvr.Resource })
		if i < 0 {
			return nil, fmt.Errorf("--unstructured-resource=%s: the API server serves no resource %q in %s", res, gvr.Resource, gvr.GroupVersion())
		}
		out = append(out, k8s.UnstructuredConfig{GVR: *gvr, Kind: list.APIResources[i].Kind})
	}
	return out, nil
}

// newSources builds the zonesync sources of one --source value: one
// source, or one per resource for unstructured.
func newSources(ctx context.Context, name string, cfg *xconfig.Config, o k8s.Options, unstructured []k8s.UnstructuredConfig, opts ProgramOptions) ([]source.Source, error) {
	needs := func(kube, dyn bool) error {
		switch {
		case kube && opts.Kube == nil:
			return fmt.Errorf("--source=%s: ProgramOptions.Kube is nil", name)
		case dyn && opts.Dynamic == nil:
			return fmt.Errorf("--source=%s: ProgramOptions.Dynamic is nil", name)
		}
		return nil
	}
	one := func(s source.Source, err error) ([]source.Source, error) {
		if err != nil {
			return nil, fmt.Errorf("--source=%s: %w", name, err)
		}
		return []source.Source{s}, nil
	}
	kube, dyn := opts.Kube, opts.Dynamic
	gw := gatewayapi.Config{
		Options:              o,
		GatewayName:          cfg.GatewayName,
		GatewayNamespace:     cfg.GatewayNamespace,
		GatewayLabelSelector: cfg.GatewayLabelFilter,
		GatewayListenerSets:  cfg.GatewayListenerSets,
	}
	var err error
	switch name {
	case "empty":
		return []source.Source{source.Empty{}}, nil
	case "connector":
		c, err := connector.New(cfg.ConnectorSourceServer, connector.Options{})
		if err != nil {
			return nil, err
		}
		return []source.Source{c}, nil
	case "service", "ingress", "node", "pod":
		err = needs(true, false)
	case "gateway-httproute", "gateway-grpcroute", "gateway-tlsroute", "gateway-tcproute", "gateway-udproute",
		"istio-gateway", "istio-virtualservice", "ambassador-host", "gloo-proxy":
		err = needs(true, true)
	default:
		err = needs(false, true)
	}
	if err != nil {
		return nil, err
	}
	switch name {
	case "service":
		types := make([]corev1.ServiceType, 0, len(cfg.ServiceTypeFilter))
		for _, t := range nonBlank(cfg.ServiceTypeFilter) {
			types = append(types, corev1.ServiceType(t))
		}
		return one(k8s.NewServiceSource(ctx, kube, k8s.ServiceConfig{
			Options:                        o,
			PublishInternal:                cfg.PublishInternal,
			PublishHostIP:                  cfg.PublishHostIP,
			ServiceTypeFilter:              types,
			AlwaysPublishNotReadyAddresses: cfg.AlwaysPublishNotReadyAddresses,
			ResolveLoadBalancerHostname:    cfg.ResolveServiceLoadBalancerHostname,
			ExposeInternalIPv6:             cfg.ExposeInternalIPV6,
			IncludeUnschedulable:           !cfg.ExcludeUnschedulable,
		}))
	case "ingress":
		return one(k8s.NewIngressSource(ctx, kube, k8s.IngressConfig{
			Options:                o,
			IngressClassNames:      nonBlank(cfg.IngressClassNames),
			IgnoreIngressRulesSpec: cfg.IgnoreIngressRulesSpec,
			IgnoreIngressTLSSpec:   cfg.IgnoreIngressTLSSpec,
		}))
	case "node":
		return one(k8s.NewNodeSource(ctx, kube, k8s.NodeConfig{Options: o, IncludeUnschedulable: !cfg.ExcludeUnschedulable, ExposeInternalIPv6: cfg.ExposeInternalIPV6}))
	case "pod":
		return one(k8s.NewPodSource(ctx, kube, k8s.PodConfig{Options: o, PodSourceDomain: cfg.PodSourceDomain, IgnoreNonHostNetworkPods: cfg.IgnoreNonHostNetworkPods}))
	case "gateway-httproute":
		return one(gatewayapi.NewHTTPRouteSource(ctx, kube, dyn, gw))
	case "gateway-grpcroute":
		return one(gatewayapi.NewGRPCRouteSource(ctx, kube, dyn, gw))
	case "gateway-tlsroute":
		return one(gatewayapi.NewTLSRouteSource(ctx, kube, dyn, gw))
	case "gateway-tcproute":
		return one(gatewayapi.NewTCPRouteSource(ctx, kube, dyn, gw))
	case "gateway-udproute":
		return one(gatewayapi.NewUDPRouteSource(ctx, kube, dyn, gw))
	case "istio-gateway":
		return one(k8s.NewIstioGatewaySource(ctx, kube, dyn, k8s.IstioGatewayConfig{Options: o}))
	case "istio-virtualservice":
		return one(k8s.NewIstioVirtualServiceSource(ctx, kube, dyn, k8s.IstioVirtualServiceConfig{Options: o}))
	case "ambassador-host":
		return one(k8s.NewAmbassadorHostSource(ctx, kube, dyn, k8s.AmbassadorHostConfig{Options: o}))
	case "gloo-proxy":
		return one(k8s.NewGlooProxySource(ctx, kube, dyn, k8s.GlooProxyConfig{Options: o, GlooNamespaces: nonBlank(cfg.GlooNamespaces)}))
	case "contour-httpproxy":
		return one(k8s.NewHTTPProxySource(ctx, dyn, k8s.HTTPProxyConfig{Options: o}))
	case "traefik-proxy":
		return one(k8s.NewTraefikProxySource(ctx, dyn, k8s.TraefikProxyConfig{Options: o, EnableLegacy: cfg.TraefikEnableLegacy, DisableNew: cfg.TraefikDisableNew}))
	case "openshift-route":
		return one(k8s.NewOpenShiftRouteSource(ctx, dyn, k8s.OpenShiftRouteConfig{Options: o, RouterName: cfg.OCPRouterName}))
	case "crd":
		return one(k8s.NewDNSEndpointSource(ctx, dyn, k8s.DNSEndpointConfig{Options: o}))
	case "skipper-routegroup":
		gvr := k8s.SkipperRouteGroupGVR
		if v := strings.TrimSpace(cfg.SkipperRouteGroupVersion); v != "" {
			gv, err := schema.ParseGroupVersion(v)
			if err != nil {
				return nil, fmt.Errorf("--skipper-routegroup-groupversion: %w", err)
			}
			gvr.Group, gvr.Version = gv.Group, gv.Version
		}
		return one(k8s.NewSkipperRouteGroupSource(ctx, dyn, k8s.SkipperRouteGroupConfig{Options: o, GVR: gvr}))
	case "kong-tcpingress":
		return one(k8s.NewKongTCPIngressSource(ctx, dyn, k8s.KongTCPIngressConfig{Options: o}))
	case "f5-virtualserver":
		return one(k8s.NewF5VirtualServerSource(ctx, dyn, k8s.F5VirtualServerConfig{Options: o}))
	case "f5-transportserver":
		return one(k8s.NewF5TransportServerSource(ctx, dyn, k8s.F5TransportServerConfig{Options: o}))
	case "unstructured":
		out := make([]source.Source, 0, len(unstructured))
		for _, u := range unstructured {
			u.Options = o
			s, err := k8s.NewUnstructuredSource(ctx, dyn, u)
			if err != nil {
				return nil, fmt.Errorf("--source=unstructured, --unstructured-resource=%s: %w", u.GVR, err)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("--source=%s: not a source external-dns v0.23 has", name)
}

// newEventRecorder returns a recorder writing core/v1 Events through kube
// until ctx ends.
func newEventRecorder(ctx context.Context, kube kubernetes.Interface) record.EventRecorder {
	b := record.NewBroadcaster(record.WithContext(ctx))
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	context.AfterFunc(ctx, b.Shutdown)
	return b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "zonesync"})
}
