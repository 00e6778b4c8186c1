package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/provider"
)

// RcodeError is a server's refusal of an UPDATE or a zone transfer: the
// response code (RFC 1035, RFC 2136 §2.2) and what was asked. It is matched
// with errors.As; SERVFAIL is also a [provider.SoftError].
type RcodeError struct {
	// Zone is the zone the message was for.
	Zone string
	// Op is what was asked: "transfer", or "create", "update" or "delete"
	// followed by the record ("create a.example.org A"); for a batch of
	// several changes it names the first and counts the rest.
	Op string
	// Rcode is the response code, e.g. dns.RcodeRefused.
	Rcode int
}

// Error renders "rfc2136: zone example.org: update a.example.org A: NXRRSET".
func (e *RcodeError) Error() string {
	return fmt.Sprintf("rfc2136: zone %s: %s: %s", e.Zone, e.Op, rcodeName(e.Rcode))
}

func rcodeName(rcode int) string {
	if s, ok := dns.RcodeToString[rcode]; ok {
		return s
	}
	return fmt.Sprintf("RCODE%d", rcode)
}

// isPrerequisite reports whether rcode says a prerequisite of the UPDATE
// failed (RFC 2136 §3.2.5): one of the changes of a batch conflicts with
// the zone's current data.
func isPrerequisite(rcode int) bool {
	switch rcode {
	case dns.RcodeYXDomain, dns.RcodeYXRrset, dns.RcodeNXRrset, dns.RcodeNameError:
		return true
	}
	return false
}

// rcodeErr wraps a refusal: SERVFAIL is transient (soft), the rest are
// not.
func rcodeErr(zone, op string, rcode int) error {
	err := &RcodeError{Zone: zone, Op: op, Rcode: rcode}
	if rcode == dns.RcodeServerFailure {
		return provider.NewSoftError(err)
	}
	return err
}

// netErr wraps a failed exchange: the context's error when ctx is done,
// else a soft error for network failures and time-outs (the server may be
// back next cycle), and a plain error for the rest (bad TSIG signature, ...).
func netErr(ctx context.Context, zone, op string, err error) error {
	ctxErr := ctx.Err()
	if d, ok := ctx.Deadline(); ok && ctxErr == nil && !time.Now().Before(d) {
		// The connection's deadline (the context's) fired before the
		// context's own timer.
		ctxErr = context.DeadlineExceeded
	}
	if ctxErr != nil {
		return fmt.Errorf("rfc2136: zone %s: %s: %w (%v)", zone, op, ctxErr, err)
	}
	wrapped := fmt.Errorf("rfc2136: zone %s: %s: %w", zone, op, err)
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, context.DeadlineExceeded) || isEOF(err) {
		return provider.NewSoftError(wrapped)
	}
	return wrapped
}

// isEOF reports a connection the server closed or reset.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
