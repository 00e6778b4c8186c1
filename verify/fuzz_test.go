package verify

import (
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/internal/dnstxt"
)

// FuzzTXTAnswer checks that any TXT data a server sends (split into
// character-strings anywhere) is read back as its bytes joined, as
// internal/dnstxt reads them (the form provider/rfc2136 reads), and
// compares equal to itself.
func FuzzTXTAnswer(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted"`, `back\slash`, "\x00\xff\t", strings.Repeat("x", 300)} {
		f.Add(s, uint8(255))
	}
	f.Fuzz(func(t *testing.T, v string, cut uint8) {
		if len(v) > 2000 || cut == 0 {
			return
		}
		var parts [][]byte
		for rest := []byte(v); len(rest) > 0; {
			n := min(len(rest), int(cut))
			parts = append(parts, rest[:n])
			rest = rest[n:]
		}
		// Build the wire form by hand: character-strings of the raw bytes.
		rdata := []byte{}
		for _, p := range parts {
			rdata = append(rdata, byte(len(p)))
			rdata = append(rdata, p...)
		}
		if len(parts) == 0 {
			rdata = []byte{0}
		}
		wire := []byte{0, 0, 0x81, 0x80, 0, 0, 0, 1, 0, 0, 0, 0, // header: one answer
			1, 't', 0, 0, 16, 0, 1, 0, 0, 0, 60, byte(len(rdata) >> 8), byte(len(rdata))}
		wire = append(wire, rdata...)
		var m dns.Msg
		if err := m.Unpack(wire); err != nil {
			t.Fatalf("unpacking %q: %v", v, err)
		}
		if got := seenValue(m.Answer[0]); got != dnstxt.FromData(v) {
			t.Fatalf("TXT %q read as %q", v, got)
		}
		if !sameAnswers(dns.TypeTXT, []string{v}, []string{seenValue(m.Answer[0])}) {
			t.Fatalf("TXT %q does not compare equal to itself", v)
		}
	})
}
