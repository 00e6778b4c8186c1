package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/provider"
)

// The classes of refusal an [RcodeError] wraps, matched with errors.Is.
var (
	// ErrTSIG: the server did not accept the request's TSIG signature
	// (NOTAUTH with the TSIG error BADKEY, BADSIG or BADTIME, or an
	// unsigned answer to a signed request).
	ErrTSIG = errors.New("the server did not accept the TSIG signature: check the key name, secret and algorithm in Config.TSIG " +
		"(KeyName, Secret, Algorithm) against the server's key statement, and this host's clock for BADTIME; " +
		"the server changed nothing, so the records stay as they are until the key is fixed")
	// ErrNotAuthoritative: the server is not authoritative for the zone
	// (NOTAUTH without a TSIG error).
	ErrNotAuthoritative = errors.New("the server is not authoritative for the zone: check that the zone is in Config.Zones spelled as the server's zone list has it, and that the server serves it as a primary")
	// ErrNotZone: the server holds a name of the update outside the zone
	// (NOTZONE).
	ErrNotZone = errors.New("the server holds a name of the update outside the zone: check Config.Zones against the server's zone list")
	// ErrRefused: the server refused the request (REFUSED).
	ErrRefused = errors.New("the server refused the request")
)

// RcodeError is a server's refusal of an UPDATE or a zone transfer: the
// response code (RFC 1035, RFC 2136 §2.2) and what was asked. It is matched
// with errors.As; SERVFAIL is also a [provider.SoftError]. NOTAUTH, NOTZONE
// and REFUSED wrap [ErrTSIG], [ErrNotAuthoritative], [ErrNotZone] or
// [ErrRefused], and their Error says what to check.
type RcodeError struct {
	// Zone is the zone the message was for.
	Zone string
	// Op is what was asked: "transfer", or "create", "update" or "delete"
	// followed by the record ("create a.example.org A"); for one group of
	// changes applied together it names each ("create a.example.org A,
	// create a-a.example.org TXT"), for a batch of several groups the
	// first change and the number of the rest.
	Op string
	// Rcode is the response code, e.g. dns.RcodeRefused.
	Rcode int
	// TSIGError is the TSIG error of a NOTAUTH response to a signed
	// request (dns.RcodeBadSig, dns.RcodeBadKey or dns.RcodeBadTime), or
	// 0.
	TSIGError int
	// Unsigned reports a NOTAUTH response without TSIG to a signed
	// request: the server did not accept the key.
	Unsigned bool
	// ZoneRefused reports, for REFUSED to an UPDATE, that the server
	// refuses every update of the zone from this client (an empty UPDATE
	// too), not only these changes.
	ZoneRefused bool
}

// Error renders "rfc2136: zone example.org: update a.example.org A:
// NXRRSET", followed for NOTAUTH, NOTZONE and REFUSED by what to check.
func (e *RcodeError) Error() string {
	msg := fmt.Sprintf("rfc2136: zone %s: %s: %s", e.Zone, e.Op, rcodeName(e.Rcode))
	switch {
	case e.TSIGError != 0:
		msg += fmt.Sprintf(" (TSIG error %s)", rcodeName(e.TSIGError))
	case e.Unsigned:
		msg += " (unsigned answer to a signed request)"
	}
	switch class := e.Unwrap(); {
	case class == nil:
		return msg
	case class == ErrRefused && e.Op == "transfer":
		return msg + ": the server refuses to transfer zone " + e.Zone + ": check its allow-transfer (for the TSIG key) and that it serves the zone"
	case class == ErrRefused && e.ZoneRefused:
		return msg + ": the server refuses every update of zone " + e.Zone + " from this client: check its allow-update or update-policy for the TSIG key, and the TSIG settings"
	case class == ErrRefused:
		return msg + ": the server refused these changes but accepts updates of zone " + e.Zone + ": its update-policy or its checks of the data (e.g. an MX or SRV target in the zone without an address) forbid them; see its log"
	default:
		return msg + ": " + strings.Replace(class.Error(), "the zone", "zone "+e.Zone, 1)
	}
}

// Unwrap returns the class of the refusal ([ErrTSIG],
// [ErrNotAuthoritative], [ErrNotZone], [ErrRefused]) or nil.
func (e *RcodeError) Unwrap() error {
	switch {
	case e.Rcode == dns.RcodeNotAuth && (e.TSIGError != 0 || e.Unsigned):
		return ErrTSIG
	case e.Rcode == dns.RcodeNotAuth:
		return ErrNotAuthoritative
	case e.Rcode == dns.RcodeNotZone:
		return ErrNotZone
	case e.Rcode == dns.RcodeRefused:
		return ErrRefused
	}
	return nil
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

// responseErr describes the refusal r (its Rcode is not NOERROR) of a
// request, signed or not.
func responseErr(zone, op string, r *dns.Msg, signed bool) *RcodeError {
	e := &RcodeError{Zone: zone, Op: op, Rcode: r.Rcode}
	if signed && r.Rcode == dns.RcodeNotAuth {
		if ts := r.IsTsig(); ts == nil {
			e.Unsigned = true
		} else if ts.Error != 0 {
			e.TSIGError = int(ts.Error)
		}
	}
	return e
}

// wrapRcodeErr returns e as an error: SERVFAIL is transient (soft), the
// rest are not.
func wrapRcodeErr(e *RcodeError) error {
	if e.Rcode == dns.RcodeServerFailure {
		return provider.NewSoftError(e)
	}
	return e
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
