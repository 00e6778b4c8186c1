package externaldns_test

// Whole cycles on Azure DNS: external-dns's azure provider, constructed
// through externaldns.New from --provider=azure and an azure.json, talks
// through the real Azure SDK (azcore, azidentity, armdns) to the stand-in
// of internal/standin/azuredns: record sets written with PUT (which
// replaces) and DELETE, lists paged through nextLink.
//
// How the SDK reaches the stand-in: external-dns builds its Resource
// Manager clients only from the azure.json, whose cloud "AzureStackCloud"
// takes the Resource Manager endpoint and audience from the file
// (resourceManagerEndpoint, resourceManagerAudience), and with
// useManagedIdentityExtension it authenticates with a managed identity,
// which azidentity asks for a token at IDENTITY_ENDPOINT (App Service's
// managed identity endpoint, served by the stand-in). But azcore sends a
// bearer token over HTTPS only, and its transport trusts the system's
// roots only: external-dns passes it no Transport and no
// InsecureAllowCredentialWithHTTP. The stand-in therefore serves TLS with
// a certificate of its own, and the test runs in a child process of the
// test binary started with SSL_CERT_FILE naming that certificate (and an
// empty SSL_CERT_DIR): Go reads the system roots once per process, so only
// a process that starts with those variables trusts it. The parent test
// passes or fails with the child and shows its output.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/provider/azure"

	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/internal/standin/azuredns"
)

// azureChildEnv names the environment variable that tells the test binary
// it is the child process of an Azure DNS test: its value is the directory
// holding the stand-in's certificate and key.
const azureChildEnv = "ZONESYNC_AZUREDNS_STANDIN_DIR"

// inAzureChild returns the directory of the stand-in's certificate when
// the test runs in the child process; otherwise it runs the test named
// name in a child process trusting a new certificate, reports the child's
// outcome, and returns "".
func inAzureChild(t *testing.T, name string) string {
	t.Helper()
	if dir := os.Getenv(azureChildEnv); dir != "" {
		return dir
	}
	dir := t.TempDir()
	cert, _, err := azuredns.WriteCertificate(dir)
	require.NoError(t, err)
	noDir := filepath.Join(dir, "no-certs")
	require.NoError(t, os.Mkdir(noDir, 0o700))

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), azureChildEnv+"="+dir, "SSL_CERT_FILE="+cert, "SSL_CERT_DIR="+noDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child process running %s failed (%v):\n%s", name, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("the child process did not run %s:\n%s", name, out)
	}
	if testing.Verbose() {
		t.Logf("child process:\n%s", out)
	}
	return ""
}

// startAzureStandin starts the stand-in with the certificate in dir.
func startAzureStandin(t *testing.T, dir string) *azuredns.Server {
	t.Helper()
	return azuredns.Start(t, azuredns.Config{
		PageSize: 3,
		CertFile: filepath.Join(dir, "standin-cert.pem"),
		KeyFile:  filepath.Join(dir, "standin-key.pem"),
	})
}

// newAzureProvider constructs external-dns's azure provider from the
// flags args (an azure.json pointing at the stand-in s is added) with a
// managed identity served by s.
func newAzureProvider(t *testing.T, s *azuredns.Server, args ...string) (*externaldns.Provider, *xconfig.Config) {
	t.Helper()
	isolateEnv(t)
	conf, err := json.Marshal(map[string]any{
		"cloud":                        "AzureStackCloud",
		"tenantId":                     "00000000-0000-0000-0000-000000000001",
		"subscriptionId":               s.SubscriptionID(),
		"resourceGroup":                s.ResourceGroup(),
		"useManagedIdentityExtension":  true,
		"activeDirectoryAuthorityHost": s.URL() + "/",
		"resourceManagerEndpoint":      s.URL(),
		"resourceManagerAudience":      "https://management.zonesync.test",
	})
	require.NoError(t, err)
	t.Setenv("IDENTITY_ENDPOINT", s.IdentityEndpoint())
	t.Setenv("IDENTITY_HEADER", s.IdentityHeader())
	cfg := parseFlags(t, append(args, "--azure-config-file="+writeFile(t, "azure.json", string(conf)))...)
	p, err := externaldns.New(context.Background(), azure.New, cfg, xendpoint.NewDomainFilter(cfg.DomainFilter))
	require.NoError(t, err)
	return p, cfg
}

// azureView returns the record sets of the stand-in's zone example.com
// but its apex SOA and NS.
func azureView(s *azuredns.Server) func() []string {
	return func() []string {
		var out []string
		for _, rs := range s.RecordSets("example.com") {
			if rs.Name == "@" && (rs.Type == "SOA" || rs.Type == "NS") {
				continue
			}
			out = append(out, rs.String())
		}
		return out
	}
}

// azureLine formats one record set as azureView does.
func azureLine(name, typ string, ttl int64, records ...string) string {
	return azuredns.RecordSet{Name: name, Type: typ, TTL: ttl, Records: records}.String()
}

func TestAzureDNSWholeCycles(t *testing.T) {
	dir := inAzureChild(t, "TestAzureDNSWholeCycles")
	if dir == "" {
		return
	}
	// Record sets without a TTL annotation get external-dns's default,
	// 300, as do the TXT records.
	created := []string{
		azureLine("a-app", "TXT", 300, cycleTXT("ingress/default/app")),
		azureLine("a-web", "TXT", 300, cycleTXT("service/default/web")),
		azureLine("app", "A", 300, "192.0.2.20"),
		azureLine("cdn", "CNAME", 120, "cdn-lb.example.net"),
		azureLine("cname-cdn", "TXT", 300, cycleTXT("ingress/default/cdn")),
		azureLine("cname-lb", "TXT", 300, cycleTXT("service/default/lb")),
		azureLine("foreign", "A", 60, "192.0.2.250"),
		azureLine("lb", "CNAME", 600, "lb-1234.elb.example.net"),
		azureLine("web", "A", 300, "192.0.2.10"),
	}
	upserted := replaceView(created, azureLine("web", "A", 300, "192.0.2.10"), azureLine("web", "A", 300, "192.0.2.11"))
	deleted := replaceView(upserted, azureLine("cdn", "CNAME", 120, "cdn-lb.example.net"), "")
	deleted = replaceView(deleted, azureLine("cname-cdn", "TXT", 300, cycleTXT("ingress/default/cdn")), "")
	views := cycleViews{
		created:  created,
		upserted: upserted,
		deleted:  deleted,
		xupdated: replaceView(deleted, azureLine("app", "A", 300, "192.0.2.20"), azureLine("app", "A", 300, "192.0.2.21")),
	}
	tests := []struct {
		name  string
		geo   bool
		steps []cycleStep
		// puts and deletes are the scenario's write requests: one per
		// record set written. A record and its TXT record are two, on an
		// update too: both registries send the TXT record in the update
		// beside its record, and the provider PUTs every record set of
		// an update.
		puts, deletes int
	}{
		// Creates 4×2, two updates ×2; one delete ×2.
		{name: "zonesync first", geo: true, steps: zonesyncFirstSteps(views, true), puts: 12, deletes: 2},
		// Creates 4×2, one update ×2; one delete ×2.
		{name: "external-dns first", steps: externalDNSFirstSteps(views), puts: 10, deletes: 2},
	}
	var tokens int
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startAzureStandin(t, dir)
			s.CreateZone("example.com")
			s.CreateZone("example.org")
			s.SetRecordSet("example.com", azuredns.RecordSet{Name: "foreign", Type: "A", TTL: 60, Records: []string{"192.0.2.250"}})
			p, cfg := newAzureProvider(t, s, cycleFlags("--provider=azure")...)
			kube := newKube(cycleObjects(tt.geo, nil)...)
			wc := newWholeCycle(t, kube, cfg, p)
			h := newCycleHarness(t, wc, kube, azureView(s), func() int {
				return s.Count(azuredns.OpCreateOrUpdate) + s.Count(azuredns.OpRecordSetDelete)
			})
			h.run(t, tt.steps)

			require.Equal(t, tt.puts, s.Count(azuredns.OpCreateOrUpdate), "PUTs: %v", s.Counts())
			require.Equal(t, tt.deletes, s.Count(azuredns.OpRecordSetDelete), "DELETEs: %v", s.Counts())
			require.Zero(t, s.Count(azuredns.OpUnknown), "requests the stand-in has no route for")
			require.Len(t, s.RecordSets("example.org"), 2, "the zone outside the domain filter keeps its SOA and NS only")
			tokens += s.Count(azuredns.OpToken)
		})
	}
	// MSAL caches managed identity tokens per process, so only the first
	// scenario asks the endpoint.
	require.Positive(t, tokens, "the managed identity endpoint issued the token")
}
