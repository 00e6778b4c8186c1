package conditions

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

func TestReasonOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{string(plan.SkipForeignOwner), "ForeignOwner"},
		{string(plan.SkipCNAMEConflict), "CnameConflict"},
		{string(plan.SkipPolicy), "Policy"},
		{string(zonesync.ReasonUnsafePlan), "UnsafePlan"},
		{string(zonesync.ReasonSourceError), "SourceError"},
		{"a-b-c", "ABC"},
		{"", "Fallback"},
		{"-x", "Fallback"},
		{"x-", "Fallback"},
		{"x--y", "Fallback"},
		{"9lives", "Fallback"},
		{"has space", "Fallback"},
		{"ends,", "Fallback"},
		{"a:b,c_d", "A:b,c_d"},
		{"é-x", "Fallback"},
		{strings.Repeat("a", 1025), "Fallback"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got := reasonOf(tc.in, "Fallback")
			assert.Equal(t, tc.want, got)
			assert.True(t, validReason(got))
		})
	}
}

func TestBoundMessage(t *testing.T) {
	tests := []struct {
		name string
		in   string
		// want is the length in bytes; cut reports whether it ends in
		// an ellipsis.
		want int
		cut  bool
	}{
		{"short", "hello", 5, false},
		{"at the limit", strings.Repeat("a", MaxMessageBytes), MaxMessageBytes, false},
		{"one byte over", strings.Repeat("a", MaxMessageBytes+1), MaxMessageBytes, true},
		// "é" is two bytes: the cut falls inside one and backs off.
		{"multi-byte", strings.Repeat("é", MaxMessageBytes), MaxMessageBytes - 1, true},
		{"invalid UTF-8", "a\xffb", len("a\uFFFDb"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := boundMessage(tc.in)
			assert.Len(t, got, tc.want)
			assert.True(t, utf8.ValidString(got))
			assert.Equal(t, tc.cut, strings.HasSuffix(got, ellipsis))
		})
	}
}

// TestProgrammedMessage: the object's message, and a line per record that
// is not ready when it does not say all; bounded however many records.
func TestProgrammedMessage(t *testing.T) {
	rec := func(name string, state zonesync.RecordState, reason, msg string) zonesync.RecordStatus {
		return zonesync.RecordStatus{Endpoint: endpoint.NewEndpoint(name, endpoint.RecordTypeA, "192.0.2.1"), State: state, Reason: zonesync.Reason(reason), Message: msg}
	}
	tests := []struct {
		name string
		st   zonesync.ResourceStatus
		want string
	}{
		{"one record, the message says it", zonesync.ResourceStatus{Message: "a.example.com/A: skipped (policy): held",
			Records: []zonesync.RecordStatus{rec("a.example.com", zonesync.RecordSkipped, "policy", "held"), rec("b.example.com", zonesync.RecordUnchanged, "", "")}},
			"a.example.com/A: skipped (policy): held"},
		{"two records not ready", zonesync.ResourceStatus{Message: "a.example.com/A: rejected: quota",
			Records: []zonesync.RecordStatus{rec("a.example.com", zonesync.RecordRejected, "", "quota"), rec("b.example.com", zonesync.RecordSkipped, "policy", "held\x00")}},
			"a.example.com/A: rejected: quota\nb.example.com/A: skipped (policy): \"held\\x00\""},
		{"no message", zonesync.ResourceStatus{Records: []zonesync.RecordStatus{rec("a.example.com", zonesync.RecordPending, "", "")}},
			"a.example.com/A: pending"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, programmedMessage(tc.st))
		})
	}

	var many zonesync.ResourceStatus
	for i := range 5000 {
		many.Records = append(many.Records, rec(fmt.Sprintf("r%04d.example.com", i), zonesync.RecordSkipped, "foreign-owner", "owned by someone else"))
	}
	msg := programmedMessage(many)
	assert.Less(t, len(msg), 2*MaxMessageBytes, "building stops once the limit is passed")
	c := condition("False", "ForeignOwner", msg)
	require.LessOrEqual(t, len(c.Message), MaxMessageBytes)
	assert.True(t, strings.HasPrefix(c.Message, "r0000.example.com/A: skipped (foreign-owner): owned by someone else\nr0001"))
	assert.True(t, strings.HasSuffix(c.Message, ellipsis))
}
