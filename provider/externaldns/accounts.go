package externaldns

// CredentialSource says where an external-dns provider takes its
// credentials from, and so whether two instances of it in one process can
// reach two accounts (provider/router's routes, one per account).
type CredentialSource int

const (
	// CredentialsFromConfig: the credentials (or the file or profile
	// holding them) are fields of the Config the provider is built with.
	// Two instances built with two Configs reach two accounts.
	CredentialsFromConfig CredentialSource = iota + 1
	// CredentialsFromConfigAndEnvironment: the Config names the account
	// or project, the credentials are the process's (google: the
	// project flag per instance, Application Default Credentials from
	// GOOGLE_APPLICATION_CREDENTIALS for all). Two instances reach two
	// projects that one identity may write.
	CredentialsFromConfigAndEnvironment
	// CredentialsFromEnvironment: the provider reads process-wide
	// environment variables (or a process-wide SDK config file), which
	// every instance in the process shares. A second account needs a
	// process of its own: external-dns run as a webhook server
	// (--webhook-server) with that account's environment, reached with
	// zonesync's provider/webhook client.
	CredentialsFromEnvironment
)

// String returns "config", "config and environment" or "environment".
func (s CredentialSource) String() string {
	switch s {
	case CredentialsFromConfig:
		return "config"
	case CredentialsFromConfigAndEnvironment:
		return "config and environment"
	case CredentialsFromEnvironment:
		return "environment"
	}
	return "unknown"
}

// credentialSources is where each external-dns v0.23 provider (by its
// --provider name) takes its credentials from, read from its constructor.
var credentialSources = map[string]CredentialSource{
	// --aws-profile / --aws-assume-role per instance; keys, region and
	// endpoint_url per profile in the shared files.
	"aws":    CredentialsFromConfig,
	"aws-sd": CredentialsFromConfig,
	// --azure-config-file, --azure-subscription-id, ...
	"azure":             CredentialsFromConfig,
	"azure-dns":         CredentialsFromConfig,
	"azure-private-dns": CredentialsFromConfig,
	// --alibaba-cloud-config-file.
	"alibabacloud": CredentialsFromConfig,
	// --godaddy-api-key, --godaddy-api-secret.
	"godaddy": CredentialsFromConfig,
	// --oci-config-file.
	"oci": CredentialsFromConfig,
	// --pdns-server, --pdns-api-key.
	"pdns": CredentialsFromConfig,
	// --pihole-server, --pihole-password.
	"pihole": CredentialsFromConfig,
	// --rfc2136-host, --rfc2136-tsig-*.
	"rfc2136": CredentialsFromConfig,
	// --webhook-provider-url.
	"webhook": CredentialsFromConfig,
	// --inmemory-zone: nothing to authenticate.
	"inmemory": CredentialsFromConfig,
	// --exoscale-apikey, --exoscale-apisecret (not buildable here).
	"exoscale": CredentialsFromConfig,
	// --google-project; google.DefaultClient (ADC).
	"google": CredentialsFromConfigAndEnvironment,
	// CF_API_TOKEN, or CF_API_KEY and CF_API_EMAIL.
	"cloudflare": CredentialsFromEnvironment,
	// ETCD_URLS, ETCD_USERNAME, ETCD_PASSWORD, ETCD_CA_FILE, ...
	"coredns": CredentialsFromEnvironment,
	"skydns":  CredentialsFromEnvironment,
	// DNSIMPLE_OAUTH, DNSIMPLE_ACCOUNT_ID.
	"dnsimple": CredentialsFromEnvironment,
	// LINODE_TOKEN.
	"linode": CredentialsFromEnvironment,
	// NS1_APIKEY (the endpoint is --ns1-endpoint).
	"ns1": CredentialsFromEnvironment,
	// OVH_APPLICATION_KEY, OVH_APPLICATION_SECRET, OVH_CONSUMER_KEY or
	// ovh.conf, read by go-ovh.
	"ovh": CredentialsFromEnvironment,
	// SCW_ACCESS_KEY, SCW_SECRET_KEY or the Scaleway config file.
	"scaleway": CredentialsFromEnvironment,
	// CIVO_TOKEN (not buildable here).
	"civo": CredentialsFromEnvironment,
}

// CredentialSourceOf returns where the external-dns provider called name
// (a --provider value) takes its credentials from, and false for a name
// it does not know. See docs/providers.md, "Several accounts of one
// external-dns provider", for the way to run several accounts of each.
func CredentialSourceOf(name string) (CredentialSource, bool) {
	s, ok := credentialSources[name]
	return s, ok
}
