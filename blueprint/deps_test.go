package blueprint_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Production code imports blueprint, so blueprint must not link package
// testing (nor the test kit, which does).
func TestBlueprintDoesNotLinkTesting(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "list", "-deps", "github.com/zonesync/zonesync/blueprint")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/zonesync/zonesync/blueprint", "go list listed the package itself")
	tests := []struct {
		name      string
		forbidden string
	}{
		{name: "testing", forbidden: "testing"},
		{name: "test kit", forbidden: "github.com/zonesync/zonesync/provider/providertest"},
		{name: "fake clock", forbidden: "github.com/zonesync/zonesync/clock/clocktest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.False(t, slices.Contains(deps, tt.forbidden), "importing blueprint links %s", tt.forbidden)
		})
	}
}
