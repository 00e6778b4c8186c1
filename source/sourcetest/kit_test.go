package sourcetest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLibraryDoesNotImportKit keeps the test kit out of library code: only
// other test kits and internal tools may import it (tests may, of course).
func TestLibraryDoesNotImportKit(t *testing.T) {
	const kit = "github.com/zonesync/zonesync/source/sourcetest"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "github.com/zonesync/zonesync/...").Output()
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		if strings.HasSuffix(p.ImportPath, "test") || strings.Contains(p.ImportPath, "/internal/") {
			continue
		}
		require.NotContains(t, p.Imports, kit, "%s imports the source test kit", p.ImportPath)
	}
}
