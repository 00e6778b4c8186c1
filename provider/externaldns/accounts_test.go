package externaldns_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/intree"
)

// TestAccountCredentialSources keeps externaldns.CredentialSourceOf true:
// every provider this module builds has an entry, and a provider package
// of external-dns v0.23 whose code reads a credential from the process
// environment (os.Getenv / os.LookupEnv of a token, key, password or
// server list) is CredentialsFromEnvironment, while no provider said to
// take its credentials from the Config does. (go-ovh and the Scaleway SDK
// read their environment inside the SDK, and are declared by hand.) That
// two Config-built instances reach two accounts is
// TestRouterTwoRoute53Accounts.
func TestAccountCredentialSources(t *testing.T) {
	for name := range intree.Constructors() {
		_, ok := externaldns.CredentialSourceOf(name)
		assert.True(t, ok, "no credential source for provider %q", name)
	}
	_, ok := externaldns.CredentialSourceOf("nonesuch")
	assert.False(t, ok)

	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/external-dns").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Skipf("external-dns's source is not at hand (go list -m: %v)", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "provider")
	// A variable's name, or the constant holding it (cfAPITokenEnvKey).
	getenv := regexp.MustCompile(`os\.(?:Getenv|LookupEnv)\(\s*"?([A-Za-z0-9_]+)"?`)
	credential := regexp.MustCompile(`(?i)token|key|oauth|password|username|urls|account`)
	// The packages behind more than one --provider name.
	names := map[string][]string{"coredns": {"coredns", "skydns"}, "azure": {"azure", "azure-dns", "azure-private-dns"}, "awssd": {"aws-sd"}}
	pkgs, err := os.ReadDir(dir)
	require.NoError(t, err)
	seen := 0
	for _, pkg := range pkgs {
		if !pkg.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, pkg.Name(), "*.go"))
		var vars []string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range getenv.FindAllStringSubmatch(string(src), -1) {
				if credential.MatchString(m[1]) {
					vars = append(vars, m[1])
				}
			}
		}
		provs := names[pkg.Name()]
		if provs == nil {
			provs = []string{pkg.Name()}
		}
		for _, p := range provs {
			src, ok := externaldns.CredentialSourceOf(p)
			if !ok {
				continue // not a provider (blueprint, fakes, ...)
			}
			seen++
			switch {
			case len(vars) > 0:
				assert.Equal(t, externaldns.CredentialsFromEnvironment, src, "%s reads %v from the environment", p, vars)
			case p == "ovh" || p == "scaleway":
				assert.Equal(t, externaldns.CredentialsFromEnvironment, src, "%s's SDK reads its environment", p)
			default:
				assert.NotEqual(t, externaldns.CredentialsFromEnvironment, src, "%s reads no credential variable itself", p)
			}
		}
	}
	assert.GreaterOrEqual(t, seen, 20, "provider packages checked")
}
