package zonesync_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
	"./provider", "./provider/inmemory/...", "./blueprint/...", "./source",
}

// allowedCoreModules are the only modules core packages may import directly.
var allowedCoreModules = []string{
	"github.com/go-logr/logr",
	"golang.org/x/sync",
	"github.com/hashicorp/go-multierror",
	"k8s.io/apimachinery",
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
	"k8s.io/client-go":     {"informers", "source/kubernetes"},
	"k8s.io/api":           {"informers", "source/kubernetes"},
	"github.com/miekg/dns": {"provider/rfc2136", "verify"},
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

func TestEndpointDependsOnStandardLibraryOnly(t *testing.T) {
	for _, p := range goList(t, "-deps", "./endpoint") {
		if p.Standard || isOwn(p.ImportPath) {
			continue
		}
		t.Errorf("endpoint depends on %s; it may use the standard library only", p.ImportPath)
	}
}

func TestCoreDirectImportsAreAllowed(t *testing.T) {
	for _, p := range goList(t, corePatterns...) {
		for _, imp := range p.Imports {
			if isStd(imp) || isOwn(imp) {
				continue
			}
			allowed := false
			for _, m := range allowedCoreModules {
				if underModule(imp, m) {
					allowed = true
					break
				}
			}
			if !allowed {
				t.Errorf("core package %s imports %s; allowed besides the standard library: %v",
					p.ImportPath, imp, allowedCoreModules)
			}
		}
	}
}

func TestCoreDependencyGraphHasNoDeniedModules(t *testing.T) {
	for _, p := range goList(t, append([]string{"-deps"}, corePatterns...)...) {
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
