package motoserver

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// XMLNamespace is the namespace of Route 53's API documents.
const XMLNamespace = "https://route53.amazonaws.com/doc/2013-04-01/"

// Route 53's change actions.
const (
	ActionCreate = "CREATE"
	ActionDelete = "DELETE"
	ActionUpsert = "UPSERT"
)

// RecordSet is one Route 53 resource record set in the shape the API's XML
// carries it (ListResourceRecordSets answers and ChangeResourceRecordSets
// requests use the same elements). Optional elements are nil or empty when
// absent.
type RecordSet struct {
	Name             string           `xml:"Name"`
	Type             string           `xml:"Type"`
	SetIdentifier    string           `xml:"SetIdentifier,omitempty"`
	Weight           *int64           `xml:"Weight,omitempty"`
	Region           string           `xml:"Region,omitempty"`
	GeoLocation      *GeoLocation     `xml:"GeoLocation,omitempty"`
	Failover         string           `xml:"Failover,omitempty"`
	MultiValueAnswer *bool            `xml:"MultiValueAnswer,omitempty"`
	TTL              *int64           `xml:"TTL,omitempty"`
	ResourceRecords  []ResourceRecord `xml:"ResourceRecords>ResourceRecord,omitempty"`
	AliasTarget      *AliasTarget     `xml:"AliasTarget,omitempty"`
	HealthCheckID    string           `xml:"HealthCheckId,omitempty"`
}

// ResourceRecord is one value of a record set, in presentation format
// (TXT values carry their quotes).
type ResourceRecord struct {
	Value string `xml:"Value"`
}

// GeoLocation is the location of a geolocation record set.
type GeoLocation struct {
	ContinentCode   string `xml:"ContinentCode,omitempty"`
	CountryCode     string `xml:"CountryCode,omitempty"`
	SubdivisionCode string `xml:"SubdivisionCode,omitempty"`
}

// AliasTarget is where an alias record set points.
type AliasTarget struct {
	HostedZoneID         string `xml:"HostedZoneId"`
	DNSName              string `xml:"DNSName"`
	EvaluateTargetHealth bool   `xml:"EvaluateTargetHealth"`
}

// Change is one change of a ChangeResourceRecordSets batch.
type Change struct {
	Action            string    `xml:"Action"`
	ResourceRecordSet RecordSet `xml:"ResourceRecordSet"`
}

// Values returns the record set's values in their order.
func (r RecordSet) Values() []string {
	out := make([]string, len(r.ResourceRecords))
	for i, v := range r.ResourceRecords {
		out[i] = v.Value
	}
	return out
}

// String renders the record set on one line, deterministically: name,
// type, set identifier and routing policy, TTL, values or alias target.
// Tests compare zones with it.
func (r RecordSet) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", normalizeName(r.Name)+".", r.Type)
	if r.SetIdentifier != "" {
		fmt.Fprintf(&b, " set=%s", r.SetIdentifier)
	}
	if r.Weight != nil {
		fmt.Fprintf(&b, " weight=%d", *r.Weight)
	}
	if r.Region != "" {
		fmt.Fprintf(&b, " region=%s", r.Region)
	}
	if g := r.GeoLocation; g != nil {
		fmt.Fprintf(&b, " geo=%s/%s/%s", g.ContinentCode, g.CountryCode, g.SubdivisionCode)
	}
	if r.Failover != "" {
		fmt.Fprintf(&b, " failover=%s", r.Failover)
	}
	if r.MultiValueAnswer != nil {
		fmt.Fprintf(&b, " multivalue=%t", *r.MultiValueAnswer)
	}
	if r.HealthCheckID != "" {
		fmt.Fprintf(&b, " healthcheck=%s", r.HealthCheckID)
	}
	if r.TTL != nil {
		fmt.Fprintf(&b, " ttl=%d", *r.TTL)
	}
	if a := r.AliasTarget; a != nil {
		fmt.Fprintf(&b, " alias=%s zone=%s evaluate-target-health=%t",
			normalizeName(a.DNSName)+".", a.HostedZoneID, a.EvaluateTargetHealth)
	}
	for _, v := range sortedValues(r) {
		b.WriteString(" ")
		b.WriteString(v)
	}
	return b.String()
}

// changeRequest is the body of a ChangeResourceRecordSets request.
type changeRequest struct {
	XMLName     xml.Name `xml:"ChangeResourceRecordSetsRequest"`
	Namespace   string   `xml:"xmlns,attr,omitempty"`
	ChangeBatch struct {
		Comment string   `xml:"Comment,omitempty"`
		Changes []Change `xml:"Changes>Change"`
	} `xml:"ChangeBatch"`
}

// marshalChanges renders a ChangeResourceRecordSets request body.
func marshalChanges(changes []Change) ([]byte, error) {
	req := changeRequest{Namespace: XMLNamespace}
	req.ChangeBatch.Changes = changes
	body, err := xml.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("rendering a change batch of %d changes: %w", len(changes), err)
	}
	return append([]byte(xml.Header), body...), nil
}

// rrKey identifies a record set in a zone, as Route 53 does: name, type
// and set identifier.
type rrKey struct {
	name, typ, setID string
}

func keyOf(r RecordSet) rrKey {
	return rrKey{name: normalizeName(r.Name), typ: strings.ToUpper(r.Type), setID: r.SetIdentifier}
}

// describe renders the key the way Route 53's error messages do.
func (k rrKey) describe() string {
	if k.setID == "" {
		return fmt.Sprintf("[name='%s.', type='%s']", k.name, k.typ)
	}
	return fmt.Sprintf("[name='%s.', type='%s', set-identifier='%s']", k.name, k.typ, k.setID)
}

// normalizeName lowers a DNS name, removes its trailing dot and turns
// Route 53's escaped wildcard label back into "*".
func normalizeName(name string) string {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	return strings.ReplaceAll(name, `\052`, "*")
}

// inZone reports whether the (normalized) name is the zone's apex or
// below it.
func inZone(name, zone string) bool {
	zone = normalizeName(zone)
	return name == zone || strings.HasSuffix(name, "."+zone)
}

func sortedValues(r RecordSet) []string {
	v := r.Values()
	slices.Sort(v)
	return v
}

// canonical returns the record set in the form the proxy sends to moto:
// name normalized and values sorted. moto's DELETE check looks for an
// earlier CREATE or UPSERT in its change journal with the same name, TTL
// and values in the same order, so every write the proxy makes uses this
// one form.
func canonical(r RecordSet) RecordSet {
	r.Name = normalizeName(r.Name)
	r.Type = strings.ToUpper(r.Type)
	if len(r.ResourceRecords) > 0 {
		vals := sortedValues(r)
		r.ResourceRecords = make([]ResourceRecord, len(vals))
		for i, v := range vals {
			r.ResourceRecords[i] = ResourceRecord{Value: v}
		}
	}
	if r.AliasTarget != nil {
		a := *r.AliasTarget
		r.AliasTarget = &a
	}
	return r
}

// sameValues reports whether a DELETE's record set matches the current
// one in everything Route 53 compares: TTL, values (as a set), alias
// target, routing policy and health check.
func sameValues(a, b RecordSet) bool {
	if !eqPtr(a.TTL, b.TTL) || !eqPtr(a.Weight, b.Weight) || !eqPtr(a.MultiValueAnswer, b.MultiValueAnswer) {
		return false
	}
	if a.Region != b.Region || a.Failover != b.Failover || a.HealthCheckID != b.HealthCheckID {
		return false
	}
	if (a.GeoLocation == nil) != (b.GeoLocation == nil) || (a.GeoLocation != nil && *a.GeoLocation != *b.GeoLocation) {
		return false
	}
	if (a.AliasTarget == nil) != (b.AliasTarget == nil) {
		return false
	}
	if x, y := a.AliasTarget, b.AliasTarget; x != nil {
		if normalizeName(x.DNSName) != normalizeName(y.DNSName) || x.HostedZoneID != y.HostedZoneID ||
			x.EvaluateTargetHealth != y.EvaluateTargetHealth {
			return false
		}
	}
	return slices.Equal(sortedValues(a), sortedValues(b))
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// planBatch checks a change batch against the zone's record sets the way
// real Route 53 does, change after change as if applied in order, and
// returns either the messages of every refused change (the whole batch is
// then refused) or the batch to send to moto instead.
//
// Refused, with Route 53's messages: a CREATE of a record set that exists
// (same name, type and set identifier); a DELETE of one that does not
// exist or whose values differ from the current ones. Refused too, with
// messages modelled on Route 53's: a record set outside the zone; a CNAME
// beside other types at a name, or another type beside a CNAME; a record
// set with a set identifier beside one without at the same name and type,
// and the reverse.
//
// The batch for moto replaces CREATE by UPSERT (moto accepts a CREATE of an
// existing record set and keeps both; the check above already refused
// that), writes every record set in its canonical form, and after a DELETE
// of a record set with a set identifier adds an UPSERT of every other
// record set with that identifier still in the zone (moto's DELETE with a
// set identifier removes every record set of the zone that has it).
func planBatch(zone string, current []RecordSet, changes []Change) (msgs []string, forward []Change) {
	st := newZoneState(current)
	for _, c := range changes {
		r := c.ResourceRecordSet
		k := keyOf(r)
		if !inZone(k.name, zone) {
			msgs = append(msgs, fmt.Sprintf("RRSet with DNS name %s. is not permitted in zone %s.", k.name, normalizeName(zone)))
			continue
		}
		switch c.Action {
		case ActionCreate, ActionUpsert:
			_, exists := st.sets[k]
			if c.Action == ActionCreate && exists {
				msgs = append(msgs, fmt.Sprintf("Tried to create resource record set %s but it already exists", k.describe()))
				continue
			}
			if m := st.conflict(k, zone); m != "" {
				msgs = append(msgs, m)
				continue
			}
			st.put(k, r)
			forward = append(forward, Change{Action: ActionUpsert, ResourceRecordSet: canonical(r)})
		case ActionDelete:
			cur, ok := st.sets[k]
			if !ok {
				msgs = append(msgs, fmt.Sprintf("Tried to delete resource record set %s but it was not found", k.describe()))
				continue
			}
			if !sameValues(cur, r) {
				msgs = append(msgs, fmt.Sprintf("Tried to delete resource record set %s but the values provided do not match the current values", k.describe()))
				continue
			}
			st.remove(k)
			forward = append(forward, Change{Action: ActionDelete, ResourceRecordSet: canonical(cur)})
			if k.setID != "" {
				for _, other := range slices.SortedFunc(maps.Keys(st.bySet[k.setID]), compareKeys) {
					forward = append(forward, Change{Action: ActionUpsert, ResourceRecordSet: canonical(st.sets[other])})
				}
			}
		default:
			msgs = append(msgs, fmt.Sprintf("Invalid action %q for resource record set %s", c.Action, k.describe()))
		}
	}
	if len(msgs) > 0 {
		return msgs, nil
	}
	return nil, forward
}

func compareKeys(a, b rrKey) int {
	return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.typ, b.typ), cmp.Compare(a.setID, b.setID))
}

// zoneState is a zone's record sets while a batch is checked, indexed by
// name and by set identifier.
type zoneState struct {
	sets   map[rrKey]RecordSet
	byName map[string]map[rrKey]struct{}
	bySet  map[string]map[rrKey]struct{}
}

func newZoneState(current []RecordSet) *zoneState {
	st := &zoneState{
		sets:   make(map[rrKey]RecordSet, len(current)),
		byName: make(map[string]map[rrKey]struct{}, len(current)),
		bySet:  make(map[string]map[rrKey]struct{}),
	}
	for _, r := range current {
		st.put(keyOf(r), r)
	}
	return st
}

func (st *zoneState) put(k rrKey, r RecordSet) {
	st.sets[k] = r
	addKey(st.byName, k.name, k)
	if k.setID != "" {
		addKey(st.bySet, k.setID, k)
	}
}

func (st *zoneState) remove(k rrKey) {
	delete(st.sets, k)
	delete(st.byName[k.name], k)
	delete(st.bySet[k.setID], k)
}

func addKey(idx map[string]map[rrKey]struct{}, at string, k rrKey) {
	m := idx[at]
	if m == nil {
		m = make(map[rrKey]struct{})
		idx[at] = m
	}
	m[k] = struct{}{}
}

// conflict returns Route 53's message when writing k would put a CNAME
// beside other types, or mix record sets with and without a set
// identifier at one name and type; "" when it would not. The record sets
// at the name are looked at in order, so the message is deterministic.
func (st *zoneState) conflict(k rrKey, zone string) string {
	for _, other := range slices.SortedFunc(maps.Keys(st.byName[k.name]), compareKeys) {
		if other == k {
			continue
		}
		switch {
		case k.typ == "CNAME" && other.typ != "CNAME":
			return fmt.Sprintf("RRSet of type CNAME with DNS name %s. is not permitted as it conflicts with other records with the same DNS name in zone %s.", k.name, normalizeName(zone))
		case k.typ != "CNAME" && other.typ == "CNAME":
			return fmt.Sprintf("RRSet of type %s with DNS name %s. is not permitted because a conflicting RRSet of type CNAME with the same DNS name already exists in zone %s.", k.typ, k.name, normalizeName(zone))
		case other.typ == k.typ && (other.setID == "") != (k.setID == ""):
			if k.setID == "" {
				return fmt.Sprintf("RRSet with DNS name %s., type %s cannot be created as other RRSets exist with the same name and type but with a set identifier.", k.name, k.typ)
			}
			return fmt.Sprintf("RRSet with DNS name %s., type %s, SetIdentifier %s cannot be created as a non-weighted set exists with the same name and type.", k.name, k.typ, k.setID)
		}
	}
	return ""
}

// MaxBatchRecords is the most resource records a change batch may hold,
// in Route 53 and in moto: values of every change, an UPSERT's counted
// twice. Alias record sets hold none.
const MaxBatchRecords = 1000

// batchRecords counts a batch's resource records as Route 53 does against
// MaxBatchRecords.
func batchRecords(changes []Change) int {
	n := 0
	for _, c := range changes {
		n += changeRecords(c)
	}
	return n
}

func changeRecords(c Change) int {
	n := len(c.ResourceRecordSet.ResourceRecords)
	if c.Action == ActionUpsert {
		n *= 2
	}
	return n
}

// chunkChanges splits a batch, in order, into batches moto accepts (at
// most MaxBatchRecords records each).
func chunkChanges(changes []Change) [][]Change {
	var out [][]Change
	start, n := 0, 0
	for i, c := range changes {
		k := changeRecords(c)
		if i > start && n+k > MaxBatchRecords {
			out = append(out, changes[start:i])
			start, n = i, 0
		}
		n += k
	}
	if start < len(changes) {
		out = append(out, changes[start:])
	}
	return out
}

// invalidChangeBatchBody renders Route 53's refusal of a change batch:
// the document whose root is InvalidChangeBatch, one Message per refused
// change. The AWS SDK for Go v2 turns it into *types.InvalidChangeBatch
// with these Messages.
func invalidChangeBatchBody(msgs []string, requestID string) []byte {
	type body struct {
		XMLName   xml.Name `xml:"InvalidChangeBatch"`
		Namespace string   `xml:"xmlns,attr"`
		Messages  []string `xml:"Messages>Message"`
		RequestID string   `xml:"RequestId"`
	}
	out, err := xml.Marshal(body{Namespace: XMLNamespace, Messages: msgs, RequestID: requestID})
	if err != nil {
		// Strings always marshal; keep the refusal readable regardless.
		out = []byte("<InvalidChangeBatch><Messages><Message>" + err.Error() + "</Message></Messages></InvalidChangeBatch>")
	}
	return append([]byte(xml.Header), out...)
}
