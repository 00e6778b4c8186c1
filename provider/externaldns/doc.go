// Package externaldns runs external-dns's own DNS providers in-process, as
// zonesync providers: Route 53, Cloud DNS, Azure DNS, Cloudflare, PowerDNS,
// RFC 2136, CoreDNS (etcd) and every other in-tree provider of
// sigs.k8s.io/external-dns v0.23, without a second binary or a webhook
// sidecar. The provider code is external-dns's; zonesync's plan, TXT
// registry, safety threshold and error isolation sit above it.
//
// It is a module of its own (github.com/zonesync/zonesync/provider/externaldns,
// Go 1.27, as external-dns asks): the zonesync module does not depend on it
// nor on anything it pulls in, and a program pays for the cloud SDKs of the
// provider packages it imports, not of the others.
//
// # Constructing a provider
//
// Every external-dns provider package has a constructor of the
// [Constructor] shape, configured by the fields of external-dns's Config
// that its command-line flags fill. [New] calls one and wraps the result:
//
//	cfg, err := externaldns.ParseFlags([]string{"--provider=aws", "--aws-zone-type=public"})
//	...
//	p, err := externaldns.New(ctx, aws.New, cfg, xendpoint.NewDomainFilter([]string{"example.com"}))
//
// [ParseFlags] fills every field with its flag's default, as external-dns's
// binary does; a Config built by hand starts from zero values, which some
// providers do not accept (a batch size of 0, say). Unlike external-dns's
// own parser it never prints nor ends the process: it refuses the flags
// that would. [Wrap] adapts a provider that is already constructed.
//
// # From external-dns's command line to a running program
//
// [NewProgram] turns a whole external-dns configuration, not only the
// provider's part, into zonesync's: the sources (source/kubernetes,
// source/gatewayapi) with their flags and wrappers, the domain filters,
// the policy, the registry (txt, noop or crd), the record types, the
// interval, --events, --dry-run and --once, over the provider --provider
// names:
//
//	cfg, err := externaldns.ParseFlags(os.Args[1:])
//	...
//	prog, err := externaldns.NewProgram(ctx, cfg, externaldns.ProgramOptions{
//		Kube: kube, Dynamic: dyn, Constructors: intree.Constructors(),
//	})
//	...
//	err = prog.Run(ctx)
//
// Flags it cannot carry out are never passed over in silence: those that
// would change what is written stop it with an [*UnsupportedFlagsError]
// naming each, the others are listed in [Program.Warnings]. Package
// provider/externaldns/intree has the constructor of every provider this
// module builds (it links all their SDKs); examples/dropin is a program
// that takes external-dns's command line unchanged.
//
// # What the adapter does
//
//   - Endpoints are converted both ways without loss: name, targets, type,
//     set identifier, TTL, labels and provider-specific properties
//     ([FromExternalDNS], [ToExternalDNS]). The provider works on copies;
//     nothing the caller passed is modified.
//   - Records returns names in zonesync's one form (lower-case A-labels
//     without a trailing dot) sorted by [endpoint.Compare]. When the
//     provider spelled a name differently, later changes to that record
//     reach the provider under its own spelling: the record is told apart
//     by name, type and set identifier and, when the provider holds two
//     spellings of those ("App.Example.com." and "app.example.com"), by
//     its targets.
//   - A change set in which a record is deleted and another created at
//     the same name (an A replaced by a CNAME) is applied in two calls, the
//     deletes first: external-dns's providers send creates before deletes,
//     and a DNS service refuses a CNAME beside the record it replaces.
//   - AdjustEndpoints is the provider's, followed by what external-dns's
//     binary adds to every provider: alias=A on an A record and alias=AAAA
//     on an AAAA record become alias=true.
//   - An error wrapping external-dns's provider.SoftError becomes a zonesync
//     [provider.SoftError], which the Reconciler retries at its next cycle;
//     other errors stay hard. Errors name the provider and the method, and
//     the provider's own error stays in the chain (errors.Is/As find it).
//   - A panic inside the provider is recovered and returned as a
//     [*PanicError] with its stack, so one provider bug fails a cycle, not
//     the program.
//   - Each call is logged through the logger in the context
//     (logr.FromContextOrDiscard): at V(1) on success with counts and
//     duration, as an error on failure. external-dns itself logs through
//     logrus's global logger, which this package leaves alone.
//   - GetDomainFilter passes the provider's domain filter through; the
//     Reconciler combines it with its own.
//   - The provider declares what the external-dns provider behind it
//     guarantees ([Provider.Guarantees], from [GuaranteeTable] by the
//     provider's name, or [Options.Guarantees]): whether a create of an
//     existing record set fails, whether set identifiers are kept, which
//     record types and provider-specific properties it reads back. The
//     core acts on them: no set identifier reaches a provider that drops
//     them, and creates are checked against a fresh read on providers whose
//     creates may overwrite.
//   - ListZones lists the provider's zones where the external-dns provider
//     can tell them ([Provider.ListZones]), so that the safety threshold
//     holds in each zone; elsewhere it fails with an error matching
//     provider.ErrZonesUnsupported, unless [Options.Zones] names them.
//   - Calls are made one at a time, as external-dns's controller makes
//     them. A call waits for its turn only as long as its context allows,
//     then fails with an error wrapping the context's error, so a provider
//     call that ignores its context delays the others but does not hold
//     them past their deadlines.
//
// # Several accounts in one process
//
// provider/router puts several providers under one Reconciler, one route
// per DNS service or account. Two instances of one external-dns provider
// reach two accounts only when the provider takes its credentials from
// the Config it is built with: [CredentialSourceOf] says which do. aws
// and aws-sd (--aws-profile or --aws-assume-role per instance), azure,
// azure-private-dns, alibabacloud, godaddy, oci, pdns, pihole, rfc2136,
// webhook and inmemory do ([CredentialsFromConfig]); google takes the
// project from the Config and the credentials from the process
// ([CredentialsFromConfigAndEnvironment]); cloudflare, coredns,
// dnsimple, linode, ns1, ovh, scaleway (and civo) read process-wide
// environment variables ([CredentialsFromEnvironment]), so every
// instance in a process reaches the same account: run each further
// account as external-dns with --webhook-server in a process (a sidecar)
// of its own, with its environment, and route to it through
// provider/webhook's client.
//
// # Package-level state in external-dns
//
// zonesync's own packages keep no package-level state, but external-dns's do,
// and importing a provider package brings it in:
//
//   - pkg/metrics keeps a global registry (metrics.RegisterMetric) that
//     registers with prometheus.DefaultRegisterer. Packages register into it
//     at init: pkg/metrics itself (external_dns_build_info), plan
//     (external_dns_registry_skipped_records_owner_mismatch_per_sync),
//     pkg/http (http_request_duration_seconds, used by the aws, google and
//     pihole providers), provider/webhook (six external_dns_webhook_provider
//     gauges) and provider's cached_provider.go (two cache counters). A
//     program that serves prometheus.DefaultRegisterer shows them; one that
//     registers the same names itself will collide.
//   - Logging goes to logrus's standard logger (github.com/sirupsen/logrus),
//     configured process-wide by whoever configures it.
//   - source/annotations remembers, for the life of the process, which
//     legacy Cloudflare property names it has warned about.
//   - Some providers keep their own caches (zone lists and the like) inside
//     the provider value; those live and die with the provider.
//
// [New] refuses Config.ProviderCacheTime: external-dns's records cache
// counts its calls in the global registry above. Put zonesync's
// provider/cache in front of the returned provider instead.
package externaldns
