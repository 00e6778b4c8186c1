package zonesync_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// forged starts every hostile text after its control character: output in
// which a line starts with it has let a hostile value begin a line of its
// own.
const forged = "FORGED"

// hostileControls are the control characters the hostile values hold:
// line breaks (log forging), NUL (text cut short by C readers) and the
// escape that starts an ANSI terminal sequence (text recoloured or hidden
// on a terminal).
var hostileControls = []string{"\n", "\r", "\x00", "\x1b[31m"}

// captureLog returns a logger that keeps every line it writes (all
// verbosities) and a function returning them.
func captureLog() (logr.Logger, func() []string) {
	var mu sync.Mutex
	var lines []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 10})
	return log, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

// cycles keeps the Cycles an Observer is given.
type cycles struct {
	mu   sync.Mutex
	seen []zonesync.Cycle
}

func (c *cycles) CycleStarted(context.Context, time.Time) {}

func (c *cycles) CycleFinished(_ context.Context, cy zonesync.Cycle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = append(c.seen, cy)
}

func (c *cycles) all() []zonesync.Cycle {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]zonesync.Cycle(nil), c.seen...)
}

// checkPrintable fails when s, text a caller shows or logs, holds a
// control character, another character that is not printable or invalid
// UTF-8. With lines, s is text of several lines: a line feed (and a tab)
// may separate them, but no line may start with the hostile text.
func checkPrintable(t *testing.T, what, s string, lines bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s: invalid UTF-8: %q", what, s)
	}
	for i, r := range s {
		if lines && (r == '\n' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' {
			t.Errorf("%s: raw %q at offset %d: %q", what, r, i, s)
			return
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(line)), forged) { // names are lower-cased
			t.Errorf("%s: a hostile value starts a line: %q", what, s)
			return
		}
	}
}

// TestRegression_ControlCharactersNeverReachOutput (issue 33, finding 6):
// desired endpoints whose names, set identifiers, resource labels and
// targets hold line breaks, NUL and terminal escapes, next to valid ones.
// The error RunOnce returns, every error and message of the Cycle the
// Observer gets, Preview's text and every line logged (at every verbosity)
// show them escaped: no raw control character, no line a hostile value
// starts. The valid endpoints are applied, the invalid ones are not.
func TestRegression_ControlCharactersNeverReachOutput(t *testing.T) {
	ctx := context.Background()
	withResource := func(ep *endpoint.Endpoint, res string) *endpoint.Endpoint {
		return ep.WithLabel(endpoint.ResourceLabelKey, res)
	}
	desired := []*endpoint.Endpoint{
		withResource(a("ok.example.com", "192.0.2.1"), "service/ns/ok"),
		withResource(endpoint.NewEndpoint("ok-txt.example.com", endpoint.RecordTypeTXT, "v=spf1 -all"), "service/ns/ok-txt"),
	}
	for i, c := range hostileControls {
		res := func(what string) string { return "service/ns/" + what + "-" + string(rune('a'+i)) }
		desired = append(desired,
			// A name holding the character.
			withResource(a("name"+c+forged+".example.com", "192.0.2.2"), res("name")),
			// A name holding it, without a resource label: reported under
			// a key of its own.
			a("bare"+c+forged+".example.com", "192.0.2.3"),
			// A set identifier holding it.
			withResource(a("setid-"+string(rune('a'+i))+".example.com", "192.0.2.4").WithSetIdentifier("eu"+c+forged), res("setid")),
			// A resource label holding it.
			withResource(a("label-"+string(rune('a'+i))+".example.com", "192.0.2.5"), "service/ns/x"+c+forged),
			// A host name target holding it.
			withResource(endpoint.NewEndpoint("cname-"+string(rune('a'+i))+".example.com", endpoint.RecordTypeCNAME, "t"+c+forged+".example.net"), res("cname")),
			// A TXT value holding it: any text is a valid TXT value, so it
			// is created; it must still be shown escaped.
			withResource(endpoint.NewEndpoint("txt-"+string(rune('a'+i))+".example.com", endpoint.RecordTypeTXT, "text"+c+forged), res("txt")),
			// A record type holding it: not a managed type.
			withResource(endpoint.NewEndpoint("type-"+string(rune('a'+i))+".example.com", "X"+c+forged, "192.0.2.7"), res("type")),
			// A provider-specific property holding it.
			withResource(a("prop-"+string(rune('a'+i))+".example.com", "192.0.2.8").WithProviderSpecific("p"+c+forged, "v"+c+forged), res("prop")),
		)
	}
	// Names of a label text ("a\nb") and of a label key are refused by
	// ValidateLabels; a key holding a control character too.
	desired = append(desired, withResource(a("labelkey.example.com", "192.0.2.6"), "service/ns/labelkey").WithLabel("k\n"+forged, "v"))

	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"A", "AAAA", "CNAME", "TXT"}})
	require.NoError(t, err)
	log, logged := captureLog()
	obs := &cycles{}
	rec := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg, Logger: log, Observer: obs}

	pv, err := rec.Preview(ctx)
	require.NoError(t, err)
	checkPrintable(t, "Preview.String", pv.String(), true)
	require.Error(t, pv.SourceErr, "the invalid endpoints are reported")
	checkPrintable(t, "Preview.SourceErr", pv.SourceErr.Error(), true)

	for cycle := range 2 {
		_, err := rec.RunOnce(ctx)
		var pe *source.PartialError
		require.ErrorAs(t, err, &pe, "cycle %d: the invalid endpoints are reported per object", cycle)
		checkPrintable(t, "RunOnce error", err.Error(), true)
		for _, cause := range pe.Failed {
			checkPrintable(t, "PartialError cause", cause.Error(), true)
		}
	}

	seen := obs.all()
	require.Len(t, seen, 2)
	for _, c := range seen {
		if c.Err != nil {
			checkPrintable(t, "Cycle.Err", c.Err.Error(), true)
		}
		if c.VerifyErr != nil {
			checkPrintable(t, "Cycle.VerifyErr", c.VerifyErr.Error(), true)
		}
		for _, w := range c.Warnings {
			checkPrintable(t, "Cycle.Warnings", w, true)
		}
		for _, r := range c.Rejected {
			checkPrintable(t, "Cycle.Rejected", r.String(), true)
		}
		for _, s := range append(c.RecordStatuses(), c.DeleteStatuses()...) {
			checkPrintable(t, "RecordStatus.Message", s.Message, true)
			checkPrintable(t, "RecordStatus.Reason", string(s.Reason), false)
		}
		if c.Plan != nil {
			checkPrintable(t, "Cycle.Plan.String", c.Plan.String(), true)
		}
	}

	lines := logged()
	hostile := 0
	for _, l := range lines {
		checkPrintable(t, "log line", l, false)
		if strings.Contains(strings.ToUpper(l), forged) {
			hostile++
		}
	}
	assert.NotZero(t, hostile, "the hostile values are logged, escaped: %q", lines)

	got := zoneLines(t, zone)
	assert.Contains(t, got, "ok.example.com A 192.0.2.1", "a valid endpoint next to the hostile ones is applied")
	assert.Contains(t, got, "ok-txt.example.com TXT v=spf1 -all")
	for _, l := range got {
		for _, bad := range []string{"name", "bare", "label-", "cname-", "labelkey"} {
			assert.False(t, strings.HasPrefix(l, bad), "an invalid endpoint was applied: %q", l)
		}
	}
}
