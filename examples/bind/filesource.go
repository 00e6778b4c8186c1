package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// fileSource is a source.Source of one's own: the desired records are the
// lines of a text file, one record set per line,
//
//	# name             type   ttl  target...
//	www.example.test   A      300  192.0.2.10 192.0.2.11
//	api.example.test   CNAME  0    www.example.test
//
// fields separated by blanks, "#" starting a comment. A TTL of 0 leaves the
// TTL to the provider (rfc2136 writes its DefaultTTL). The types are those
// the TXT registry manages by default (A, AAAA, CNAME); to publish others,
// add them here and to txt.Config.ManagedRecordTypes.
//
// Each record carries the resource label "file/<name>": the TXT registry
// writes it into the record's ownership TXT, and a Reconciler protects the
// records of a name whose lines fail (see Endpoints).
type fileSource struct {
	path string
	// poll is how often AddEventHandler's watcher reads the file.
	poll time.Duration
}

var _ source.Source = (*fileSource)(nil)

// resourceKind is the kind part of the resource label of every record.
const resourceKind = "file"

// allowedType reports whether a line may have record type typ.
func allowedType(typ string) bool {
	switch typ {
	case endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME:
		return true
	}
	return false
}

// Endpoints reads the file again and returns its records. A file that
// cannot be read is an error of the whole source: nothing is planned from
// it. A line that does not parse fails only its name: the error, a
// *source.PartialError, names the file and line, and the other names are
// returned; the Reconciler neither updates nor deletes the records of a
// failed name in that cycle, so a typo never deletes a record.
func (s *fileSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		return nil, fmt.Errorf("records file: %w", err)
	}
	return parseRecords(s.path, data)
}

// AddEventHandler starts a watcher that reads the file every poll interval
// and calls handler when its content changed, until ctx is done. The
// handler only schedules a cycle, so it is cheap, as the source.Source
// contract asks. A program whose Reconciler ignores source events never
// calls it.
func (s *fileSource) AddEventHandler(ctx context.Context, handler func()) {
	if handler == nil || ctx.Err() != nil {
		return
	}
	poll := s.poll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	last := s.fingerprint()
	go func() {
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if fp := s.fingerprint(); fp != last {
				last = fp
				if ctx.Err() == nil {
					handler()
				}
			}
		}
	}()
}

// fingerprint identifies the file's content (or why it cannot be read), so
// that the watcher sees every change, even within one second.
func (s *fileSource) fingerprint() string {
	data, err := os.ReadFile(s.path)
	if err != nil {
		return "error: " + err.Error()
	}
	sum := sha256.Sum256(data)
	return string(sum[:])
}

// parseRecords parses the content of a records file; path names the file in
// errors. See fileSource.
func parseRecords(path string, data []byte) ([]*endpoint.Endpoint, error) {
	var (
		eps     []*endpoint.Endpoint
		partial *source.PartialError
		seen    = map[string]int{} // "name type" -> line
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		name := strings.ToLower(strings.TrimSuffix(fields[0], "."))
		key := resourceKind + "/" + name
		ep, err := parseLine(name, fields)
		if err == nil {
			id := ep.DNSName + " " + ep.RecordType
			if first, dup := seen[id]; dup {
				err = fmt.Errorf("%s %s is already given on line %d: put every target on one line", ep.DNSName, ep.RecordType, first)
			} else {
				seen[id] = n
			}
		}
		if err != nil {
			partial = partial.Add(key, fmt.Errorf("%s:%d: %w", path, n, err))
			continue
		}
		eps = append(eps, ep.WithLabel(endpoint.ResourceLabelKey, key))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("records file %s: %w", path, err)
	}
	if partial == nil {
		return eps, nil
	}
	// The records of a name with a bad line are left out altogether: the
	// Reconciler keeps what DNS holds for that name until the line is fixed.
	kept := eps[:0]
	for _, ep := range eps {
		key, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
		if _, failed := partial.Failed[key]; !failed {
			kept = append(kept, ep)
		}
	}
	return kept, partial
}

// parseLine turns the fields of one line, whose name is name, into an
// endpoint, or says what is wrong with them.
func parseLine(name string, fields []string) (*endpoint.Endpoint, error) {
	if len(fields) < 4 {
		return nil, errors.New(`want "name type ttl target..." (at least 4 fields)`)
	}
	typ := strings.ToUpper(fields[1])
	if !allowedType(typ) {
		return nil, fmt.Errorf("type %q: want A, AAAA or CNAME", fields[1])
	}
	ttl, err := strconv.ParseInt(fields[2], 10, 32)
	if err != nil || ttl < 0 {
		return nil, fmt.Errorf("ttl %q: want a number of seconds (0: the server's default)", fields[2])
	}
	ep := endpoint.NewEndpointWithTTL(name, typ, endpoint.TTL(ttl), fields[3:]...)
	if err := ep.ValidateDesired(); err != nil {
		return nil, err
	}
	return ep, nil
}
