package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/sourcetest"
)

func TestParseRecords(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		want   []string          // "name type ttl targets resource", in file order
		failed map[string]string // resource key -> part of its error
	}{
		{
			name: "comments, blank lines, case, trailing dots",
			file: "# header\n\nWWW.Example.Test.  a  300  192.0.2.1 192.0.2.2  # two targets\n" +
				"api.example.test CNAME 0 www.example.test.\n\tv6.example.test\tAAAA\t60\t2001:db8::1\n",
			want: []string{
				"www.example.test A 300 192.0.2.1;192.0.2.2 file/www.example.test",
				"api.example.test CNAME 0 www.example.test file/api.example.test",
				"v6.example.test AAAA 60 2001:db8::1 file/v6.example.test",
			},
		},
		{
			name: "empty file",
			file: "# nothing yet\n",
			want: []string{},
		},
		{
			name: "a bad line fails its name only, naming the file and line",
			file: "ok.example.test A 300 192.0.2.1\n" +
				"short.example.test A 300\n" +
				"mx.example.test MX 300 10 mail.example.test\n" +
				"ttl.example.test A soon 192.0.2.1\n" +
				"neg.example.test A -1 192.0.2.1\n" +
				"ip.example.test A 300 192.0.2.300\n" +
				"bad_name!.example.test A 300 192.0.2.1\n",
			want: []string{"ok.example.test A 300 192.0.2.1 file/ok.example.test"},
			failed: map[string]string{
				"file/short.example.test":     `records.txt:2: want "name type ttl target..."`,
				"file/mx.example.test":        `records.txt:3: type "MX": want A, AAAA or CNAME`,
				"file/ttl.example.test":       `records.txt:4: ttl "soon": want a number of seconds`,
				"file/neg.example.test":       `records.txt:5: ttl "-1"`,
				"file/ip.example.test":        "records.txt:6: invalid endpoint ip.example.test/A: targets[0]",
				"file/bad_name!.example.test": "records.txt:7: invalid endpoint",
			},
		},
		{
			name: "a name with a bad line loses its good lines too, so its records are kept as they are",
			file: "www.example.test A 300 192.0.2.1\nwww.example.test AAAA 300 not-an-address\nother.example.test A 300 192.0.2.2\n",
			want: []string{"other.example.test A 300 192.0.2.2 file/other.example.test"},
			failed: map[string]string{
				"file/www.example.test": "records.txt:2: invalid endpoint www.example.test/AAAA",
			},
		},
		{
			name: "one name and type on two lines",
			file: "www.example.test A 300 192.0.2.1\nwww.example.test. a 60 192.0.2.2\n",
			want: []string{},
			failed: map[string]string{
				"file/www.example.test": "records.txt:2: www.example.test A is already given on line 1: put every target on one line",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eps, err := parseRecords("records.txt", []byte(tt.file))
			got := []string{}
			for _, ep := range eps {
				res, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
				got = append(got, fmt.Sprintf("%s %s %d %s %s", ep.DNSName, ep.RecordType, ep.RecordTTL, strings.Join(ep.Targets, ";"), res))
			}
			assert.Equal(t, tt.want, got)
			if tt.failed == nil {
				require.NoError(t, err)
				return
			}
			var partial *source.PartialError
			require.ErrorAs(t, err, &partial)
			require.Len(t, partial.Failed, len(tt.failed), "%v", partial)
			for key, want := range tt.failed {
				require.Contains(t, partial.Failed, key)
				assert.ErrorContains(t, partial.Failed[key], want)
			}
		})
	}
}

func TestFileSourceUnreadable(t *testing.T) {
	src := &fileSource{path: filepath.Join(t.TempDir(), "missing.txt")}
	_, err := src.Endpoints(t.Context())
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorContains(t, err, "records file: open ")
	var partial *source.PartialError
	assert.False(t, errors.As(err, &partial), "an unreadable file is an error of the whole source: nothing is planned")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = src.Endpoints(ctx)
	require.ErrorIs(t, err, context.Canceled)
}

// TestFileSourceContract checks fileSource with the contract checker every
// source should pass: new endpoints on every call, context, partial errors
// for a bad line, and events when the file changes.
func TestFileSourceContract(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.txt")
	writeFile(t, path, "www.example.test A 300 192.0.2.1\napi.example.test CNAME 300 www.example.test\n")
	var n atomic.Int32
	sourcetest.TestSource(t, &fileSource{path: path, poll: 10 * time.Millisecond}, sourcetest.Options{
		ValidEndpoints: true, // beyond the contract: every line makes a valid endpoint
		Change: func(context.Context) error {
			i := n.Add(1)
			return os.WriteFile(path, fmt.Appendf(nil, "www.example.test A 300 192.0.2.%d\n", 10+i), 0o644)
		},
		Fail: func(context.Context) error { // one bad line added: the others still publish
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteString("bad.example.test A 300 nowhere\n")
			return errors.Join(err, f.Close())
		},
	})
}
