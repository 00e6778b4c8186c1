package conditions

import (
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/verify/result"
)

// target is what the writer wants on one object (or, in Writer.last, what
// it wrote or found there): the two conditions without their
// observedGeneration and lastTransitionTime, and the generation.
type target struct {
	// accepted is nil when the writer leaves Accepted alone (keepAccepted)
	// and never set it.
	accepted   *metav1.Condition
	programmed metav1.Condition
	// gen is the observedGeneration of both conditions; 0 means the
	// object's metadata.generation when written.
	gen int64
	// keepAccepted leaves Accepted as the object has it.
	keepAccepted bool
}

// equal reports whether t asks for what prev holds.
func (t target) equal(prev target) bool {
	if t.gen != prev.gen || !sameCondition(t.programmed, prev.programmed) {
		return false
	}
	if t.accepted == nil || prev.accepted == nil {
		return t.accepted == nil && prev.accepted == nil
	}
	return sameCondition(*t.accepted, *prev.accepted)
}

func sameCondition(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message
}

// condition returns a Programmed condition, its message bounded.
func condition(status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: Programmed, Status: status, Reason: reason, Message: boundMessage(message)}
}

// acceptedCondition returns an Accepted condition, its message bounded.
func acceptedCondition(status metav1.ConditionStatus, reason, message string) *metav1.Condition {
	c := condition(status, reason, message)
	c.Type = Accepted
	return &c
}

// fromStatus maps the outcome of one object to its conditions; see the
// table of the package documentation.
func fromStatus(st zonesync.ResourceStatus) target {
	if st.State == zonesync.RecordInvalid {
		reason := reasonOf(string(st.Reason), ReasonInvalid)
		return target{
			accepted:   acceptedCondition(metav1.ConditionFalse, reason, st.Message),
			programmed: condition(metav1.ConditionFalse, reason, st.Message),
		}
	}
	t := target{accepted: acceptedCondition(metav1.ConditionTrue, ReasonAccepted, "")}
	if st.Ready() {
		t.programmed = condition(metav1.ConditionTrue, ReasonProgrammed, "")
		return t
	}
	t.programmed = condition(metav1.ConditionFalse, programmedReason(st), programmedMessage(st))
	return t
}

// programmedReason is the reason of Programmed False for an object that is
// valid but not ready.
func programmedReason(st zonesync.ResourceStatus) string {
	switch st.State {
	case zonesync.RecordSkipped:
		return reasonOf(string(st.Reason), ReasonSkipped)
	case zonesync.RecordFailed:
		switch st.Reason {
		case zonesync.ReasonUnsafePlan, zonesync.ReasonZoneFailed:
			return reasonOf(string(st.Reason), ReasonFailed)
		}
		return ReasonFailed
	case zonesync.RecordRejected:
		return ReasonRejected
	case zonesync.RecordPending:
		return ReasonPending
	}
	// Applied or unchanged records that are not ready: their verification
	// found DNS out of sync, or could not tell.
	return ReasonNotVerified
}

// maxReasonBytes is the API server's limit on a condition's reason.
const maxReasonBytes = 1024

// validReason reports whether r is a condition reason the API server
// accepts: at most maxReasonBytes of ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$.
func validReason(r string) bool {
	if r == "" || len(r) > maxReasonBytes {
		return false
	}
	letter := func(c byte) bool { return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' }
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case letter(c):
		case i == 0:
			return false
		case '0' <= c && c <= '9', c == '_':
		case (c == ',' || c == ':') && i < len(r)-1:
		default:
			return false
		}
	}
	return true
}

// reasonOf returns the kebab-case reason in CamelCase ("foreign-owner":
// "ForeignOwner"), or fallback when that is no valid condition reason.
func reasonOf(kebab, fallback string) string {
	var b strings.Builder
	for word := range strings.SplitSeq(kebab, "-") {
		if word == "" {
			return fallback
		}
		b.WriteString(strings.ToUpper(word[:1]))
		b.WriteString(word[1:])
	}
	if r := b.String(); validReason(r) {
		return r
	}
	return fallback
}

// programmedMessage is the message of Programmed False: the object's
// message when it says all (at most one record is not ready), else a line
// per record that is not ready.
func programmedMessage(st zonesync.ResourceStatus) string {
	notReady := 0
	for _, r := range st.Records {
		if !r.Ready() {
			notReady++
		}
	}
	if notReady == 0 || (notReady == 1 && st.Message != "") {
		return st.Message
	}
	var b strings.Builder
	for _, r := range st.Records {
		if b.Len() > MaxMessageBytes {
			break // the rest would be cut anyway
		}
		if r.Ready() {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		writeRecord(&b, r)
	}
	return b.String()
}

// writeRecord writes r (see [zonesync.RecordStatus.String]), and what its
// verification found when that is why it is not ready.
func writeRecord(b *strings.Builder, r zonesync.RecordStatus) {
	b.WriteString(r.String())
	if v := r.Verification; v != nil && v.Status != result.Sync {
		b.WriteString(": verification: ")
		b.WriteString(string(v.Status))
		if v.Err != nil {
			b.WriteString(": ")
			b.WriteString(endpoint.Printable(v.Err.Error()))
		}
	}
}

// ellipsis ends a message that was cut.
const ellipsis = "…"

// boundMessage returns s as valid UTF-8 of at most MaxMessageBytes bytes,
// cut on a character boundary and ending with an ellipsis when it was
// longer.
func boundMessage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxMessageBytes {
		return s
	}
	cut := MaxMessageBytes - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
