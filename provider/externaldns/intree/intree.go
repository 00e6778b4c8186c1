// Package intree lists the constructors of every in-tree provider of
// external-dns v0.23 that the provider/externaldns module can build, by
// the --provider value that selects it, for [externaldns.NewProgram] and
// any program that picks its provider at run time:
//
//	prog, err := externaldns.NewProgram(ctx, cfg, externaldns.ProgramOptions{
//		Constructors: intree.Constructors(),
//		...
//	})
//
// Importing it links every provider's SDK (AWS, Azure, Google Cloud,
// Cloudflare, OCI, Alibaba Cloud, …): a program that runs one provider
// gives NewProgram just that one ({"aws": aws.New}) and links only its SDK.
//
// Not listed: civo and exoscale, whose SDK modules the module proxy this
// module is built with refuses (see docs/providers.md); run external-dns
// with --webhook-server for them and use --provider=webhook.
package intree

import (
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/provider/alibabacloud"
	"sigs.k8s.io/external-dns/provider/aws"
	"sigs.k8s.io/external-dns/provider/awssd"
	"sigs.k8s.io/external-dns/provider/azure"
	"sigs.k8s.io/external-dns/provider/cloudflare"
	"sigs.k8s.io/external-dns/provider/coredns"
	"sigs.k8s.io/external-dns/provider/dnsimple"
	"sigs.k8s.io/external-dns/provider/godaddy"
	"sigs.k8s.io/external-dns/provider/google"
	"sigs.k8s.io/external-dns/provider/inmemory"
	"sigs.k8s.io/external-dns/provider/linode"
	"sigs.k8s.io/external-dns/provider/ns1"
	"sigs.k8s.io/external-dns/provider/oci"
	"sigs.k8s.io/external-dns/provider/ovh"
	"sigs.k8s.io/external-dns/provider/pdns"
	"sigs.k8s.io/external-dns/provider/pihole"
	"sigs.k8s.io/external-dns/provider/rfc2136"
	"sigs.k8s.io/external-dns/provider/scaleway"
	"sigs.k8s.io/external-dns/provider/webhook"

	"github.com/zonesync/zonesync/provider/externaldns"
)

// Constructors returns a new map from every --provider value of
// external-dns v0.23 but civo and exoscale to the provider package's
// constructor, as external-dns's binary pairs them (azure and azure-dns
// are both azure.New, coredns and skydns both coredns.New).
func Constructors() map[string]externaldns.Constructor {
	return map[string]externaldns.Constructor{
		xconfig.ProviderAlibabaCloud: alibabacloud.New,
		xconfig.ProviderAWS:          aws.New,
		xconfig.ProviderAWSSD:        awssd.New,
		xconfig.ProviderAzure:        azure.New,
		xconfig.ProviderAzureDNS:     azure.New,
		xconfig.ProviderAzurePrivate: azure.NewPrivate,
		xconfig.ProviderCloudflare:   cloudflare.New,
		xconfig.ProviderCoreDNS:      coredns.New,
		xconfig.ProviderSkyDNS:       coredns.New,
		xconfig.ProviderDNSimple:     dnsimple.New,
		xconfig.ProviderGoDaddy:      godaddy.New,
		xconfig.ProviderGoogle:       google.New,
		xconfig.ProviderInMemory:     inmemory.New,
		xconfig.ProviderLinode:       linode.New,
		xconfig.ProviderNS1:          ns1.New,
		xconfig.ProviderOCI:          oci.New,
		xconfig.ProviderOVH:          ovh.New,
		xconfig.ProviderPDNS:         pdns.New,
		xconfig.ProviderPihole:       pihole.New,
		xconfig.ProviderRFC2136:      rfc2136.New,
		xconfig.ProviderScaleway:     scaleway.New,
		xconfig.ProviderWebhook:      webhook.New,
	}
}
