package txt_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/registry/txt"
)

// logSink collects the lines of a funcr logger.
type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (s *logSink) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.lines = append(s.lines, args)
	}, funcr.Options{Verbosity: 1})
}

func (s *logSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

// TestLogsGoToTheContextLogger: with only the caller's logger in the
// context (logr.NewContext), the messages of Records and ApplyChanges reach
// it.
func TestLogsGoToTheContextLogger(t *testing.T) {
	tests := []struct {
		name string
		// run exercises the registry with ctx.
		run  func(t *testing.T, ctx context.Context)
		want []string
	}{
		{
			name: "Records: TXT without targets, obsolete alias TXT, read summary",
			run: func(t *testing.T, ctx context.Context) {
				p := staticRecords(
					&endpoint.Endpoint{DNSName: "a-empty.example.com", RecordType: "TXT"},
					a("app.example.com", "192.0.2.1").WithProviderSpecific("alias", "true"),
					txtRecord("a-app.example.com", v1), txtRecord("cname-app.example.com", v1),
				)
				_, err := newRegistry(t, p, txt.Config{}).Records(ctx)
				require.NoError(t, err)
			},
			want: []string{
				`"msg"="skipping TXT record without targets" "error"=null "record"="a-empty.example.com/TXT"`,
				`"msg"="obsolete ownership TXT record of an A ALIAS record can be removed" "txt"="cname-app.example.com"`,
				`"msg"="read records" "records"=1 "ownershipTXT"=2`,
			},
		},
		{
			name: "ApplyChanges: create without usable TXT name, applied summary",
			run: func(t *testing.T, ctx context.Context) {
				reg := newRegistry(t, newZone(), txt.Config{})
				_, err := reg.Records(ctx)
				require.NoError(t, err)
				err = reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
					a("example.com", "192.0.2.1"), a("ok.example.com", "192.0.2.2"),
				}})
				require.Error(t, err)
			},
			want: []string{
				`"msg"="not creating a record whose ownership cannot be recorded"`,
				`"record"="example.com/A"`,
				`"msg"="applied changes" "create"=2`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := &logSink{}
			tt.run(t, logr.NewContext(context.Background(), sink.logger()))
			got := sink.text()
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
		})
	}
}
