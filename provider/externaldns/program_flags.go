package externaldns

import (
	"fmt"
	"slices"
	"strings"

	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
)

// FlagIssue is an external-dns flag that [NewProgram] did not carry out as
// external-dns's binary would: one with no zonesync equivalent, one that
// belongs to the program rather than to the reconcile loop, or one that
// has no effect with the other flags given.
type FlagIssue struct {
	// Flag is the flag as given: "--log-level", or with its value when the
	// value is what cannot be carried out ("--registry=dynamodb",
	// "--source=fake"). Values of other flags are never included, so an
	// issue can be logged whatever the flag holds.
	Flag string
	// Reason says why, and what to do instead when there is something.
	Reason string
}

// String returns the flag and the reason, "--flag: reason".
func (f FlagIssue) String() string { return f.Flag + ": " + f.Reason }

// UnsupportedFlagsError is the error [NewProgram] returns when flags that
// change what would be written to DNS cannot be carried out: running
// without them would publish or delete other records than external-dns
// does. It lists every such flag, sorted.
type UnsupportedFlagsError struct {
	Flags []FlagIssue
}

// Error lists the flags and their reasons.
func (e *UnsupportedFlagsError) Error() string {
	parts := make([]string, 0, len(e.Flags))
	for _, f := range e.Flags {
		parts = append(parts, f.String())
	}
	return "external-dns flags not supported: " + strings.Join(parts, "; ")
}

// flagKind says what [NewProgram] does with a flag of external-dns's
// parser.
type flagKind int

const (
	// flagMapped: NewProgram turns it into zonesync settings.
	flagMapped flagKind = iota + 1
	// flagProvider: read by external-dns's provider constructor, which
	// gets the configuration as it is.
	flagProvider
	// flagProgram: configures the binary (Kubernetes client, logging,
	// metrics endpoint), which the program embedding zonesync does its
	// own way; a warning unless ProgramOptions.Handled names it.
	flagProgram
	// flagUnread: external-dns v0.23 itself does not read it.
	flagUnread
	// flagUnsupported: changes what external-dns does and has no
	// equivalent here.
	flagUnsupported
	// flagParser: the parser's own flags (help, version, completion),
	// which ParseFlags refuses.
	flagParser
	// flagRegistry: read only by one registry of external-dns (the
	// registry and its reason are in registryFlags).
	flagRegistry
)

// mappedFlags are the flags NewProgram carries out itself.
func mappedFlags() []string {
	return []string{
		// Sources and their options.
		"source", "namespace", "annotation-filter", "label-filter", "fqdn-template", "target-template",
		"fqdn-target-template", "combine-fqdn-annotation", "ignore-hostname-annotation", "annotation-prefix",
		"enable-legacy-annotation-prefix", "ingress-class", "ignore-ingress-rules-spec", "ignore-ingress-tls-spec",
		"publish-internal-services", "publish-host-ip", "service-type-filter", "always-publish-not-ready-addresses",
		"resolve-service-load-balancer-hostname", "expose-internal-ipv6", "exclude-unschedulable", "pod-source-domain",
		"ignore-non-host-network-pods", "gloo-namespace", "skipper-routegroup-groupversion", "openshift-router-name",
		"traefik-enable-legacy", "traefik-disable-new", "gateway-name", "gateway-namespace", "gateway-label-filter",
		"gateway-listener-sets", "unstructured-resource", "connector-source-server", "listen-endpoint-events",
		// Source wrappers.
		"default-targets", "force-default-targets", "nat64-networks", "target-net-filter", "exclude-target-net",
		"create-ptr", "min-ttl", "prefer-alias",
		// Filters, policy, ownership, record types.
		"domain-filter", "exclude-domains", "regex-domain-filter", "regex-domain-exclusion", "policy",
		"registry", "txt-owner-id", "managed-record-types", "exclude-record-types",
		// The provider and the caches in front of it.
		"provider", "provider-cache-time",
		// The loop.
		"interval", "min-event-sync-interval", "events", "once", "dry-run", "events-emit",
	}
}

// providerFlagPrefixes start the names of the flags read by one
// external-dns provider or another, each with the --provider values whose
// provider reads the flags it starts (providerFlags has the exceptions).
// A longer prefix comes before a shorter one it extends ("aws-sd-" before
// "aws-").
func providerFlagPrefixes() []flagReaders {
	return []flagReaders{
		{"alibaba-cloud-", []string{xconfig.ProviderAlibabaCloud}},
		{"aws-sd-", []string{xconfig.ProviderAWSSD}},
		{"aws-", []string{xconfig.ProviderAWS}},
		{"azure-", azureProviders()},
		{"cloudflare-", []string{xconfig.ProviderCloudflare}},
		{"coredns-", []string{xconfig.ProviderCoreDNS, xconfig.ProviderSkyDNS}},
		{"exoscale-", []string{xconfig.ProviderExoscale}},
		{"godaddy-", []string{xconfig.ProviderGoDaddy}},
		{"google-", []string{xconfig.ProviderGoogle}},
		{"inmemory-", []string{xconfig.ProviderInMemory}},
		{"ns1-", []string{xconfig.ProviderNS1}},
		{"oci-", []string{xconfig.ProviderOCI}},
		{"ovh-", []string{xconfig.ProviderOVH}},
		{"pdns-", []string{xconfig.ProviderPDNS}},
		{"pihole-", []string{xconfig.ProviderPihole}},
		{"rfc2136-", []string{xconfig.ProviderRFC2136}},
		{"webhook-provider-", []string{xconfig.ProviderWebhook}},
	}
}

// flagReaders names a flag, or the prefix of a group of flags, and the
// values of the choosing flag (--provider, --source) under which
// something reads it.
type flagReaders struct {
	name    string
	readers []string
}

// azureProviders are the --provider values of external-dns's Azure
// providers.
func azureProviders() []string {
	return []string{xconfig.ProviderAzure, xconfig.ProviderAzureDNS, xconfig.ProviderAzurePrivate}
}

// providerFlags are the provider flags whose readers are not those of
// their prefix (or that have none), by name, with the --provider values
// whose external-dns provider reads them, as external-dns v0.23's provider
// constructors read them. The webhook server's own flags have none: only
// --webhook-server reads them.
func providerFlags() map[string][]string {
	awsAndSD := []string{xconfig.ProviderAWS, xconfig.ProviderAWSSD}
	tls := []string{xconfig.ProviderPDNS, xconfig.ProviderRFC2136}
	return map[string][]string{
		"aws-zone-type":               awsAndSD,
		"aws-assume-role":             awsAndSD,
		"aws-assume-role-external-id": awsAndSD,
		"aws-api-retries":             awsAndSD,
		"zone-id-filter": {
			xconfig.ProviderAlibabaCloud, xconfig.ProviderAWS, xconfig.ProviderAzure, xconfig.ProviderAzureDNS, xconfig.ProviderAzurePrivate,
			xconfig.ProviderCloudflare, xconfig.ProviderDNSimple, xconfig.ProviderGoogle, xconfig.ProviderNS1, xconfig.ProviderOCI,
		},
		"zone-name-filter":                     azureProviders(),
		"batch-change-size":                    {xconfig.ProviderCloudflare},
		"batch-change-interval":                {xconfig.ProviderCloudflare},
		"tls-ca":                               tls,
		"tls-client-cert":                      tls,
		"tls-client-cert-key":                  tls,
		"webhook-provider-read-header-timeout": nil,
		"webhook-provider-idle-timeout":        nil,
	}
}

// isProviderFlag reports whether the flag called name is one of external-dns's
// provider flags: in providerFlags, or named with a prefix of
// providerFlagPrefixes.
func isProviderFlag(name string) bool {
	if _, ok := providerFlags()[name]; ok {
		return true
	}
	return slices.ContainsFunc(providerFlagPrefixes(), func(p flagReaders) bool { return strings.HasPrefix(name, p.name) })
}

// providerReaders returns the --provider values whose external-dns
// provider reads the provider flag called name (classified flagProvider),
// none for the webhook server's own flags.
func providerReaders(name string) []string {
	if readers, ok := providerFlags()[name]; ok {
		return readers
	}
	for _, p := range providerFlagPrefixes() {
		if strings.HasPrefix(name, p.name) {
			return p.readers
		}
	}
	return nil
}

// kubernetesSources are the --source values whose zonesync sources read
// Kubernetes objects and take the options all of them share: every source
// external-dns has but connector, empty and fake.
func kubernetesSources() []string {
	var out []string
	for _, s := range xconfig.AllowedSources {
		if s != "connector" && s != "empty" && s != "fake" {
			out = append(out, s)
		}
	}
	return out
}

// sourceFlags are the mapped flags that only some sources read, by name,
// with the --source values whose zonesync source reads them (see
// newSources): each source's own flags, and the options every source of
// Kubernetes objects shares.
func sourceFlags() map[string][]string {
	const service, ingress, node, pod = "service", "ingress", "node", "pod"
	gateways := []string{"gateway-grpcroute", "gateway-httproute", "gateway-tcproute", "gateway-tlsroute", "gateway-udproute"}
	m := map[string][]string{
		"ingress-class":                          {ingress},
		"ignore-ingress-rules-spec":              {ingress},
		"ignore-ingress-tls-spec":                {ingress},
		"publish-internal-services":              {service},
		"publish-host-ip":                        {service},
		"service-type-filter":                    {service},
		"always-publish-not-ready-addresses":     {service},
		"resolve-service-load-balancer-hostname": {service},
		"listen-endpoint-events":                 {service},
		"expose-internal-ipv6":                   {node, service},
		"exclude-unschedulable":                  {node, service},
		"pod-source-domain":                      {pod},
		"ignore-non-host-network-pods":           {pod},
		"gloo-namespace":                         {"gloo-proxy"},
		"skipper-routegroup-groupversion":        {"skipper-routegroup"},
		"openshift-router-name":                  {"openshift-route"},
		"traefik-enable-legacy":                  {"traefik-proxy"},
		"traefik-disable-new":                    {"traefik-proxy"},
		"gateway-name":                           gateways,
		"gateway-namespace":                      gateways,
		"gateway-label-filter":                   gateways,
		"gateway-listener-sets":                  gateways,
		"unstructured-resource":                  {"unstructured"},
		"connector-source-server":                {"connector"},
	}
	for _, name := range []string{"namespace", "annotation-filter", "label-filter", "fqdn-template", "target-template",
		"fqdn-target-template", "combine-fqdn-annotation", "ignore-hostname-annotation", "annotation-prefix", "enable-legacy-annotation-prefix"} {
		m[name] = kubernetesSources()
	}
	return m
}

// programFlags configure external-dns's binary: its Kubernetes client, its
// logs and its metrics endpoint.
func programFlags() []string {
	return []string{"server", "kubeconfig", "request-timeout", "kube-api-request-timeout", "kube-api-qps", "kube-api-burst", "log-format", "log-level", "metrics-address"}
}

// registryFlag is a flag read only by one external-dns registry.
type registryFlag struct {
	registry string
}

// registryFlags are the flags read by only one of external-dns's
// registries, by flag name.
func registryFlags() map[string]registryFlag {
	return map[string]registryFlag{
		"txt-prefix":               {xconfig.RegistryTXT},
		"txt-suffix":               {xconfig.RegistryTXT},
		"txt-wildcard-replacement": {xconfig.RegistryTXT},
		"txt-encrypt-enabled":      {xconfig.RegistryTXT},
		"txt-encrypt-aes-key":      {xconfig.RegistryTXT},
		"txt-cache-interval":       {xconfig.RegistryTXT},
		"migrate-from-txt-owner":   {xconfig.RegistryTXT},
		"crd-registry-namespace":   {xconfig.RegistryCRD},
		"dynamodb-region":          {xconfig.RegistryDynamoDB},
		"dynamodb-table":           {xconfig.RegistryDynamoDB},
	}
}

// classifyFlag returns what NewProgram does with the external-dns flag
// called name, and false for a flag it does not know.
func classifyFlag(name string) (flagKind, bool) {
	switch {
	case slices.Contains(mappedFlags(), name):
		return flagMapped, true
	case isProviderFlag(name):
		return flagProvider, true
	case slices.Contains(programFlags(), name):
		return flagProgram, true
	case name == "crd-source-apiversion" || name == "crd-source-kind":
		return flagUnread, true
	case name == "compatibility" || name == "webhook-server":
		return flagUnsupported, true
	case slices.Contains(exitingFlags(), name):
		return flagParser, true
	}
	if _, ok := registryFlags()[name]; ok {
		return flagRegistry, true
	}
	return 0, false
}

// flagValues returns the value of every flag of external-dns's parser as
// cfg holds it, by flag name, in the parser's text form. Building the
// parser over cfg reads cfg and changes nothing in it.
func flagValues(cfg *xconfig.Config) map[string]string {
	values := map[string]string{}
	for _, f := range xconfig.App(cfg).Model().Flags {
		values[f.Name] = f.String()
	}
	return values
}

// defaultFlagValues returns the value of every flag of external-dns's
// parser when none is given, by flag name: what ParseFlags fills in,
// without reading the environment.
func defaultFlagValues() (map[string]string, error) {
	cfg := xconfig.NewConfig()
	app := xconfig.App(cfg)
	for _, f := range app.Model().Flags {
		app.GetFlag(f.Name).NoEnvar()
	}
	if _, err := app.Parse([]string{"--provider=" + xconfig.ProviderInMemory, "--source=empty"}); err != nil {
		return nil, fmt.Errorf("external-dns's defaults: %w", err)
	}
	return flagValues(cfg), nil
}

// givenFlags returns the names of the flags whose value in cfg differs
// from their default, sorted: the flags given on the command line or in
// EXTERNAL_DNS_* variables (a flag given with its default value does not
// count). --provider and --source, which external-dns requires, are always
// included.
func givenFlags(cfg *xconfig.Config) ([]string, error) {
	defaults, err := defaultFlagValues()
	if err != nil {
		return nil, err
	}
	var given []string
	for name, v := range flagValues(cfg) {
		if name == "provider" || name == "source" || v != defaults[name] {
			given = append(given, name)
		}
	}
	slices.Sort(given)
	return given, nil
}

// flagReport is what NewProgram found about the flags given: the ones
// that stop it, and the warnings.
type flagReport struct {
	unsupported, warnings []FlagIssue
}

// checkFlags classifies every flag given in cfg (see givenFlags) and
// the values of --source, --registry and --provider. handled are the
// program flags the caller carries out; ctors the providers it can build.
func checkFlags(cfg *xconfig.Config, given []string, handled []string, ctors map[string]Constructor) flagReport {
	var r flagReport
	unsupported := func(flag, reason string) {
		r.unsupported = append(r.unsupported, FlagIssue{Flag: flag, Reason: reason})
	}
	warn := func(flag, reason string) { r.warnings = append(r.warnings, FlagIssue{Flag: flag, Reason: reason}) }
	registries := registryFlags()
	for _, name := range given {
		kind, known := classifyFlag(name)
		switch {
		case !known:
			unsupported("--"+name, "a flag this version of NewProgram does not know; it was written for external-dns v0.23")
		case kind == flagProgram && !slices.Contains(handled, name):
			warn("--"+name, "configures external-dns's binary (Kubernetes client, logs, metrics endpoint), not the reconcile loop; the program embedding zonesync sets it up its own way")
		case kind == flagUnread:
			warn("--"+name, "external-dns v0.23 does not read it either: the crd source reads DNSEndpoint objects of externaldns.k8s.io/v1alpha1")
		case kind == flagUnsupported && name == "compatibility":
			unsupported("--compatibility="+cfg.Compatibility, "the annotations of older controllers (mate, molecule, kops-dns-controller) are not read by zonesync's sources")
		case kind == flagUnsupported && name == "webhook-server":
			unsupported("--webhook-server", "serves the provider to an external-dns instead of running a reconcile loop; serve a provider with zonesync's provider/webhook (webhook.Serve) instead")
		case kind == flagRegistry && cfg.Registry != registries[name].registry:
			warn("--"+name, "read only by --registry="+registries[name].registry+"; the registry is "+cfg.Registry)
		case kind == flagProvider:
			if readers := providerReaders(name); len(readers) == 0 {
				warn("--"+name, "read only by external-dns's webhook server (--webhook-server), not by a provider")
			} else if !slices.Contains(readers, cfg.Provider) {
				warn("--"+name, "read only by "+oneOf("--provider", readers)+"; the provider is "+cfg.Provider)
			}
		case kind == flagMapped:
			if readers, ok := sourceFlags()[name]; ok && !slices.ContainsFunc(cfg.Sources, func(s string) bool { return slices.Contains(readers, s) }) {
				warn("--"+name, "read only by "+sourcesText(readers)+"; the sources are "+strings.Join(cfg.Sources, ", "))
			}
		}
	}
	if slices.Contains(given, "events-emit") && !sameReasons(cfg.EmitEvents) {
		warn("--events-emit", "zonesync's events observer records all three reasons (RecordReady, RecordDeleted, RecordError), not a selection")
	}
	if slices.Contains(given, "force-default-targets") && len(nonBlank(cfg.DefaultTargets)) == 0 {
		warn("--force-default-targets", "replaces targets with those of --default-targets, and none is given")
	}
	if regexDomainFilter(cfg) {
		for _, name := range []string{"domain-filter", "exclude-domains"} {
			if slices.Contains(given, name) {
				warn("--"+name, "the regular expressions of --regex-domain-filter and --regex-domain-exclusion replace the domain lists when either is given, as in external-dns")
			}
		}
	}
	ownerReaders := []string{xconfig.ProviderAWSSD, xconfig.ProviderCoreDNS, xconfig.ProviderSkyDNS}
	if slices.Contains(given, "txt-owner-id") && cfg.Registry == xconfig.RegistryNoop && !slices.Contains(ownerReaders, cfg.Provider) {
		warn("--txt-owner-id", "read only by --registry=txt or crd, and by "+oneOf("--provider", ownerReaders)+"; the registry is noop and the provider is "+cfg.Provider)
	}
	for _, s := range cfg.Sources {
		if strings.EqualFold(s, "fake") {
			unsupported("--source=fake", "external-dns's test source (and what ParseFlags fills in when no --source is given) is not run: give the sources to publish")
		}
	}
	switch cfg.Registry {
	case xconfig.RegistryTXT, xconfig.RegistryNoop, xconfig.RegistryCRD:
	case xconfig.RegistryDynamoDB:
		unsupported("--registry="+cfg.Registry, "zonesync has no DynamoDB registry: move ownership to --registry=txt (the TXT records) or --registry=crd")
	case xconfig.RegistryAWSSD:
		unsupported("--registry="+cfg.Registry, "zonesync has no registry that reads the ownership Cloud Map keeps in its service descriptions")
	default:
		unsupported("--registry="+cfg.Registry, "not a registry external-dns v0.23 has")
	}
	if _, ok := ctors[cfg.Provider]; !ok {
		switch cfg.Provider {
		case xconfig.ProviderCivo, xconfig.ProviderExoscale:
			unsupported("--provider="+cfg.Provider, "its SDK module cannot be built into provider/externaldns; run external-dns --webhook-server --provider="+cfg.Provider+" beside the program and use --provider=webhook")
		default:
			unsupported("--provider="+cfg.Provider, "ProgramOptions.Constructors has no constructor for it (intree.Constructors has every provider this module can build)")
		}
	}
	sortIssues(r.unsupported)
	sortIssues(r.warnings)
	return r
}

// oneOf returns "flag=a", "flag=a or b" or "flag=a, b or c" for values.
func oneOf(flag string, values []string) string {
	text := values[len(values)-1]
	if len(values) > 1 {
		text = strings.Join(values[:len(values)-1], ", ") + " or " + text
	}
	return flag + "=" + text
}

// sourcesText names the sources of readers for a warning: every source of
// Kubernetes objects, or some --source values.
func sourcesText(readers []string) string {
	if slices.Equal(readers, kubernetesSources()) {
		return "the sources of Kubernetes objects (every --source but connector and empty)"
	}
	return oneOf("--source", readers)
}

// sameReasons reports whether the --events-emit values name exactly the
// three reasons zonesync's events observer records.
func sameReasons(reasons []string) bool {
	want := []string{"RecordDeleted", "RecordError", "RecordReady"}
	got := slices.Clone(reasons)
	slices.Sort(got)
	return slices.Equal(slices.Compact(got), want)
}

// sortIssues sorts issues by flag, then reason.
func sortIssues(issues []FlagIssue) {
	slices.SortFunc(issues, func(a, b FlagIssue) int {
		if c := strings.Compare(a.Flag, b.Flag); c != 0 {
			return c
		}
		return strings.Compare(a.Reason, b.Reason)
	})
}
