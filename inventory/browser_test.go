package inventory_test

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/inventory"
)

// RequireChromiumEnv, set to "1", makes a missing Chromium fail the
// browser test instead of skipping it, as CI (.ci/run) does.
const RequireChromiumEnv = "ZONESYNC_REQUIRE_CHROMIUM"

// chromiumPath returns Debian's chromium, or skips (fails when
// ZONESYNC_REQUIRE_CHROMIUM=1) without it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv(RequireChromiumEnv) == "1" {
		t.Fatalf("chromium not found and %s=1: install it (apt-get install chromium)", RequireChromiumEnv)
	}
	t.Skipf("chromium not found (apt-get install chromium); set %s=1 to make this a failure", RequireChromiumEnv)
	return ""
}

// chromium runs headless Chromium with a fresh profile and args, and
// returns its standard output.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

var rowRE = regexp.MustCompile(`<tr data-name="([^"]+)" data-type="([^"]+)">`)

// renderedRows returns the names of the table's rows in a DOM.
func renderedRows(dom []byte) []string {
	var out []string
	for _, m := range rowRE.FindAllSubmatch(dom, -1) {
		out = append(out, string(m[1])+" "+string(m[2]))
	}
	return out
}

// TestPageInBrowser loads the page of a real cycle in headless Chromium:
// the table shows the cycle's records with their statuses, a filter (a GET
// parameter, as the form submits it) narrows it, and a screenshot is saved
// in the test's temporary directory.
func TestPageInBrowser(t *testing.T) {
	bin := chromiumPath(t)
	h := newHarness(t, inventory.Options{Groups: inventory.GroupMapping{ByNamespace: map[string]string{"shop": "commerce"}, Default: "other"}})
	h.rec.Verifier = &fakeVerifier{notSync: map[string]bool{"api.example.com": true}}
	h.src.set(nil,
		ep("www.example.com", "service/default/web", "192.0.2.1"),
		ep("api.example.com", "service/shop/api", "192.0.2.2"),
		ep("bücher.example.com", "ingress/shop/books", "192.0.2.3"),
	)
	h.cycle(t)
	// The second cycle cannot read one object: it keeps its record, shown
	// invalid.
	h.src.set(map[string]error{"ingress/shop/books": errors.New("annotation ttl: not a number")},
		ep("www.example.com", "service/default/web", "192.0.2.1"),
		ep("api.example.com", "service/shop/api", "192.0.2.2"),
	)
	h.cycle(t)

	handler, err := inventory.NewHandler(h.inv, inventory.HandlerOptions{Title: "zonesync test inventory"})
	require.NoError(t, err)
	srv := httptest.NewServer(handler)
	defer srv.Close()

	dom := chromium(t, bin, "--dump-dom", srv.URL+"/")
	require.Equal(t, []string{"api.example.com A", "www.example.com A", "xn--bcher-kva.example.com A"}, renderedRows(dom), "%s", dom)
	page := string(dom)
	assert.Contains(t, page, "zonesync test inventory")
	// A cycle that left out only objects the source could not read
	// succeeded; it says which.
	assert.Contains(t, page, "Last cycle: <strong>succeeded</strong>")
	assert.Contains(t, page, `data-status="unchanged"`)
	assert.Contains(t, page, `data-status="invalid"`)
	assert.Contains(t, page, "annotation ttl: not a number")
	assert.Contains(t, page, `data-verification="notsync"`)
	assert.Contains(t, page, `data-verification="sync"`)
	assert.Contains(t, page, "bücher.example.com")

	// The filters narrow the table, as the form's GET submits them.
	dom = chromium(t, bin, "--dump-dom", srv.URL+"/?group=commerce&status=")
	assert.Equal(t, []string{"api.example.com A", "xn--bcher-kva.example.com A"}, renderedRows(dom))
	dom = chromium(t, bin, "--dump-dom", srv.URL+"/?status=notsync")
	assert.Equal(t, []string{"api.example.com A"}, renderedRows(dom))
	assert.Contains(t, string(dom), `<option selected="">notsync</option>`, "the form shows the filter applied")

	shot := filepath.Join(t.TempDir(), "page.png")
	chromium(t, bin, "--screenshot="+shot, "--window-size=1280,800", srv.URL+"/")
	png, err := os.ReadFile(shot)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "a PNG screenshot")
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}
