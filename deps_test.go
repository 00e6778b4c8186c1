package zonesync_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The dependency gate: users who import a core package must not pay for
// Kubernetes clients, DNS libraries, metrics or logging frameworks. These
// tests read the real import graph with `go list` (without -test, so a test
// helper such as testify leaking into non-test code fails them too).

const modulePath = "github.com/zonesync/zonesync"

// corePatterns are the packages that may import only the standard library and
// the modules of allowedCoreModules.
var corePatterns = []string{
	".", "./endpoint/...", "./plan/...", "./policy/...", "./registry/...",
	"./provider", "./provider/inmemory/...", "./provider/webhook/...",
	"./provider/batch/...", "./provider/ratelimit/...", "./provider/cache/...", "./provider/router/...", "./blueprint/...", "./source",
	"./source/annotations", "./source/connector", "./source/fqdn", "./source/kubernetes/kubeopts", "./source/sourcetest",
	"./inventory",
}

// notCore are the package trees under corePatterns that are not core:
// registry/crd keeps ownership in Kubernetes objects through client-go
// (see restricted), and no core package imports it.
var notCore = []string{"registry/crd"}

// corePackages lists the import paths of the core packages: those of
// corePatterns outside notCore.
func corePackages(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, p := range goList(t, corePatterns...) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, modulePath), "/")
		if !underAny(rel, notCore) {
			out = append(out, p.ImportPath)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// allowedCoreModules are the only modules core packages may import
// directly. The list is what the core uses today: SPEC.md would also allow
// github.com/hashicorp/go-multierror and k8s.io/apimachinery, but errors.Join
// and the standard library's maps and slices do their jobs here, so adding
// either needs a reason (and a line here).
var allowedCoreModules = []string{
	"github.com/go-logr/logr",
	"golang.org/x/sync",
	"golang.org/x/net/idna",
	"golang.org/x/time/rate",
}

// coreImportsOnlyIn maps a package outside the standard library, which no
// core package may import in general, to the core package trees (relative
// to the module root) that alone may import it: the webhook codec is built
// on the jsontext tokenizer (the package that becomes encoding/json/jsontext
// in Go 1.27), and nothing else of its module is allowed.
var coreImportsOnlyIn = map[string][]string{
	"github.com/go-json-experiment/json/jsontext": {"provider/webhook"},
}

// deniedCoreModules must not appear anywhere in the dependency graph of the
// core packages, not even indirectly.
var deniedCoreModules = []string{
	"k8s.io/client-go", "k8s.io/api", "github.com/miekg/dns",
	"github.com/prometheus/", "github.com/sirupsen/logrus", "github.com/alecthomas/kingpin",
	"gopkg.in/alecthomas/kingpin", "sigs.k8s.io/controller-runtime", "sigs.k8s.io/external-dns",
	"github.com/stretchr/testify", "github.com/aws/", "cloud.google.com/", "google.golang.org/api",
	"github.com/Azure/",
}

// restricted maps a module to the package trees (relative to the module
// root) that alone may import it.
var restricted = map[string][]string{
	// registry/crd: DNSRecord objects through a dynamic client and informer.
	"k8s.io/client-go":        {"informers", "source/kubernetes", "source/gatewayapi", "internal/kubetest", "registry/crd"},
	"k8s.io/api":              {"informers", "source/kubernetes", "source/gatewayapi"},
	"sigs.k8s.io/gateway-api": {"source/gatewayapi"},
	// examples/bind is a program: it makes the registry metrics/prometheus
	// registers on and serves it, as every program using that package does.
	"github.com/prometheus/": {"metrics/prometheus", "examples/bind"},
	"github.com/miekg/dns":   {"provider/rfc2136", "verify", "internal/bindtest"},
	// Only its jsontext package, and in core packages only there (see
	// coreImportsOnlyIn).
	"github.com/go-json-experiment/json": {"provider/webhook"},
}

type listedPackage struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Module     *struct{ Path string }
}

func goList(t *testing.T, args ...string) []listedPackage {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, append([]string{"list", "-e", "-json=ImportPath,Standard,Imports,Module"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list %v: %s", args, stderr.String())
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs, "go list %v listed nothing", args)
	return pkgs
}

func isOwn(path string) bool {
	return path == modulePath || strings.HasPrefix(path, modulePath+"/")
}

func underModule(path, module string) bool {
	if strings.HasSuffix(module, "/") {
		return strings.HasPrefix(path, module)
	}
	return path == module || strings.HasPrefix(path, module+"/")
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// endpointDirectImports are the only packages outside the standard library
// that endpoint may import: UTS #46 name mapping.
var endpointDirectImports = []string{"golang.org/x/net/idna"}

// endpointDependencies are the package trees outside the standard library
// that may appear in endpoint's dependency graph: idna and what it imports
// from golang.org/x/text.
var endpointDependencies = []string{"golang.org/x/net/idna", "golang.org/x/text"}

// endpointDependencyViolations checks the `go list -deps` output of endpoint
// against endpointDirectImports and endpointDependencies.
func endpointDependencyViolations(pkgs []listedPackage) []string {
	var out []string
	for _, p := range pkgs {
		if p.Standard {
			continue
		}
		if !isOwn(p.ImportPath) {
			if !underAny(p.ImportPath, endpointDependencies) {
				out = append(out, "endpoint depends on "+p.ImportPath+"; allowed besides the standard library: "+
					strings.Join(endpointDependencies, ", "))
			}
			continue
		}
		for _, imp := range p.Imports {
			if isStd(imp) || isOwn(imp) || slices.Contains(endpointDirectImports, imp) {
				continue
			}
			out = append(out, p.ImportPath+" imports "+imp+"; allowed besides the standard library: "+
				strings.Join(endpointDirectImports, ", "))
		}
	}
	return out
}

func underAny(path string, trees []string) bool {
	for _, tree := range trees {
		if underModule(path, tree) {
			return true
		}
	}
	return false
}

func TestEndpointDependsOnStandardLibraryAndIDNAOnly(t *testing.T) {
	for _, v := range endpointDependencyViolations(goList(t, "-deps", "./endpoint/...")) {
		t.Error(v)
	}
}

// TestEndpointDependencyGateRejects checks that the gate above fails for a
// forbidden import, direct or indirect.
func TestEndpointDependencyGateRejects(t *testing.T) {
	const ep = modulePath + "/endpoint"
	allowed := []listedPackage{
		{ImportPath: "strings", Standard: true},
		{ImportPath: "golang.org/x/text/unicode/norm", Imports: []string{"golang.org/x/text/transform"}},
		{ImportPath: "golang.org/x/net/idna", Imports: []string{"golang.org/x/text/unicode/norm"}},
		{ImportPath: ep, Imports: []string{"strings", "golang.org/x/net/idna"}},
	}
	require.Empty(t, endpointDependencyViolations(allowed))

	tests := []struct {
		name string
		pkgs []listedPackage
		want string
	}{
		{"direct import of another module", []listedPackage{
			{ImportPath: ep, Imports: []string{"github.com/go-logr/logr"}},
			{ImportPath: "github.com/go-logr/logr"},
		}, ep + " imports github.com/go-logr/logr"},
		{"direct import of x/text", []listedPackage{
			{ImportPath: ep, Imports: []string{"golang.org/x/text/unicode/norm"}},
			{ImportPath: "golang.org/x/text/unicode/norm"},
		}, ep + " imports golang.org/x/text/unicode/norm"},
		{"another x/net package", []listedPackage{
			{ImportPath: ep, Imports: []string{"golang.org/x/net/idna"}},
			{ImportPath: "golang.org/x/net/idna", Imports: []string{"golang.org/x/net/http2"}},
			{ImportPath: "golang.org/x/net/http2"},
		}, "endpoint depends on golang.org/x/net/http2"},
		{"indirect dependency", []listedPackage{
			{ImportPath: ep, Imports: []string{"golang.org/x/net/idna"}},
			{ImportPath: "golang.org/x/net/idna", Imports: []string{"github.com/miekg/dns"}},
			{ImportPath: "github.com/miekg/dns"},
		}, "endpoint depends on github.com/miekg/dns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := endpointDependencyViolations(tt.pkgs)
			require.NotEmpty(t, got)
			assert.True(t, slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, tt.want) }),
				"violations %q do not mention %q", got, tt.want)
		})
	}
}

// coreImportViolations checks the direct imports of core packages against
// allowedCoreModules and coreImportsOnlyIn.
func coreImportViolations(pkgs []listedPackage) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, modulePath), "/")
		for _, imp := range p.Imports {
			if isStd(imp) || isOwn(imp) || underAny(imp, allowedCoreModules) {
				continue
			}
			if trees, ok := coreImportsOnlyIn[imp]; ok {
				if underAny(rel, trees) {
					continue
				}
				out = append(out, fmt.Sprintf("core package %s imports %s; only %v may", p.ImportPath, imp, trees))
				continue
			}
			out = append(out, fmt.Sprintf("core package %s imports %s; allowed besides the standard library: %v",
				p.ImportPath, imp, allowedCoreModules))
		}
	}
	return out
}

func TestCoreDirectImportsAreAllowed(t *testing.T) {
	for _, v := range coreImportViolations(goList(t, corePackages(t)...)) {
		t.Error(v)
	}
}

// TestCoreImportGateRejects checks that the gate above fails for an import
// allowed only elsewhere and for the rest of that import's module.
func TestCoreImportGateRejects(t *testing.T) {
	const jsontext = "github.com/go-json-experiment/json/jsontext"
	allowed := []listedPackage{
		{ImportPath: modulePath + "/provider/webhook", Imports: []string{"io", jsontext, "github.com/go-logr/logr"}},
		{ImportPath: modulePath + "/provider", Imports: []string{"golang.org/x/sync/errgroup"}},
	}
	require.Empty(t, coreImportViolations(allowed))

	tests := []struct {
		name string
		pkg  listedPackage
		want string
	}{
		{"jsontext outside the webhook package", listedPackage{
			ImportPath: modulePath + "/provider/inmemory", Imports: []string{jsontext},
		}, "provider/inmemory imports " + jsontext + "; only [provider/webhook] may"},
		{"jsontext in a package whose name only starts like the webhook's", listedPackage{
			ImportPath: modulePath + "/provider/webhookish", Imports: []string{jsontext},
		}, "provider/webhookish imports " + jsontext},
		{"the rest of the jsontext module", listedPackage{
			ImportPath: modulePath + "/provider/webhook", Imports: []string{"github.com/go-json-experiment/json"},
		}, "provider/webhook imports github.com/go-json-experiment/json; allowed"},
		{"another module", listedPackage{
			ImportPath: modulePath + "/plan", Imports: []string{"github.com/miekg/dns"},
		}, "plan imports github.com/miekg/dns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := coreImportViolations([]listedPackage{tt.pkg})
			require.Len(t, got, 1)
			assert.Contains(t, got[0], tt.want)
		})
	}
}

func TestCoreDependencyGraphHasNoDeniedModules(t *testing.T) {
	for _, p := range goList(t, append([]string{"-deps"}, corePackages(t)...)...) {
		if p.Module == nil {
			continue
		}
		for _, denied := range deniedCoreModules {
			if underModule(p.Module.Path, denied) {
				t.Errorf("core dependency graph contains %s (module %s)", p.ImportPath, p.Module.Path)
			}
		}
	}
}

func TestRestrictedModulesOnlyWhereAllowed(t *testing.T) {
	for _, p := range goList(t, "./...") {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, modulePath), "/")
		for _, imp := range p.Imports {
			if underModule(imp, "github.com/stretchr/testify") {
				t.Errorf("%s imports %s outside _test.go files", p.ImportPath, imp)
			}
			for module, trees := range restricted {
				if !underModule(imp, module) {
					continue
				}
				ok := false
				for _, tree := range trees {
					if rel == tree || strings.HasPrefix(rel, tree+"/") {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s imports %s; only %v may", p.ImportPath, imp, trees)
				}
			}
		}
	}
}

// TestGatewayAPIDoesNotImportKubernetesSources: the Gateway API sources
// share the options of the Kubernetes sources through source/kubernetes/kubeopts,
// not by importing source/kubernetes and everything its sources link.
func TestGatewayAPIDoesNotImportKubernetesSources(t *testing.T) {
	for _, p := range goList(t, "-deps", "./source/gatewayapi") {
		if p.ImportPath == modulePath+"/source/kubernetes" {
			t.Errorf("source/gatewayapi depends on %s; share what it needs through source/kubernetes/kubeopts", p.ImportPath)
		}
	}
}
