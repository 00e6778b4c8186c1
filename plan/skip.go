package plan

import (
	"cmp"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// SkipReason says why a change was not made. Its values are short, stable
// strings meant for logs, metrics labels and dry-run output.
type SkipReason string

// Reasons for skipping a change. See [Skip].
const (
	// SkipForeignOwner: the record, or another record at the same name,
	// is owned by a different owner id.
	SkipForeignOwner SkipReason = "foreign-owner"
	// SkipUnowned: the record, or another record at the same name, carries
	// no owner label at all (created by hand or by another tool).
	SkipUnowned SkipReason = "unowned"
	// SkipFilteredOut: the desired endpoint's name is not matched by the
	// plan's domain filter.
	SkipFilteredOut SkipReason = "filtered-out"
	// SkipUnmanagedType: the desired endpoint's record type is not managed
	// (see [Plan.ManagedRecords] and [Plan.ExcludeRecords]), or it is an
	// ownership record of the registry.
	SkipUnmanagedType SkipReason = "unmanaged-type"
	// SkipLostConflict: another desired endpoint for the same name, set
	// identifier and type was chosen by the [ConflictResolver].
	SkipLostConflict SkipReason = "lost-conflict"
	// SkipCNAMEConflict: a CNAME was asked for at a name that also gets
	// records of another type; the CNAME is dropped.
	SkipCNAMEConflict SkipReason = "cname-conflict"
	// SkipInvalid: the desired endpoint failed [endpoint.Endpoint.Validate],
	// or the change was held back because an invalid desired endpoint shares
	// its name and set identifier (bad input never removes or alters what is
	// in DNS).
	SkipInvalid SkipReason = "invalid"
	// SkipPolicy: a [Policy] dropped the change.
	SkipPolicy SkipReason = "policy"
	// SkipSourceError: the record belongs to a resource (its resource
	// label) whose endpoints the source could not build in this cycle
	// (see [Plan.Protected]); it is neither updated nor deleted until the
	// source can build them again. It is also the reason of every delete
	// held back while a failed object cannot be tied to any record (see
	// [Plan.Protected]).
	SkipSourceError SkipReason = "source-error"
	// SkipUnownable: the registry could not record the ownership of the
	// record, so it is not created (see [Plan.Ownable]); the detail says
	// what to change, such as the TXT prefix of an apex record.
	SkipUnownable SkipReason = "unownable"
	// SkipUnsupported: the provider does not guarantee to store the
	// desired endpoint as asked (see [Plan.Supported]): a set identifier
	// on a provider that drops set identifiers, a record type or a
	// provider-specific property it does not keep. The change is not sent,
	// and the records at the endpoint's name and set identifier are held as
	// they are; the detail says what the provider lacks.
	SkipUnsupported SkipReason = "unsupported"
)

// Action is the kind of a change: create, update or delete.
type Action string

// The actions of changes and skips.
const (
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
)

// Skip describes one change the plan did not make and why.
type Skip struct {
	// Action is what the change would have done. A desired endpoint that
	// never entered the plan (filtered out, unmanaged type) is reported as
	// a create.
	Action Action
	// Endpoint is the record concerned: the desired endpoint for a create
	// or an update, the current record for a delete. It may be the caller's
	// input endpoint: do not modify it.
	Endpoint *endpoint.Endpoint
	// Reason is the machine-readable cause.
	Reason SkipReason
	// Detail explains the cause for humans, naming the other record, owner
	// or error involved.
	Detail string
	// Owner is, for [SkipForeignOwner], the owner id of the current record
	// in the way (Endpoint is the desired one for a create or an update);
	// empty for other reasons.
	Owner string
}

// String renders the skip as "action name/type[/set]: reason (detail)".
func (s Skip) String() string {
	var b strings.Builder
	b.WriteString(string(s.Action))
	b.WriteByte(' ')
	if s.Endpoint == nil {
		b.WriteString("<nil>")
	} else {
		b.WriteString(s.Endpoint.Key().String())
	}
	b.WriteString(": ")
	b.WriteString(string(s.Reason))
	if s.Detail != "" {
		b.WriteString(" (")
		b.WriteString(s.Detail)
		b.WriteByte(')')
	}
	return b.String()
}

// compareSkips orders skips by endpoint key, then action, reason, the
// endpoint's data and the detail, so that the list does not depend on the
// order of the plan's input.
func compareSkips(a, b Skip) int {
	if c := endpoint.Compare(a.Endpoint, b.Endpoint); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Action), string(b.Action)); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Reason), string(b.Reason)); c != 0 {
		return c
	}
	if a.Endpoint != nil && b.Endpoint != nil {
		if c := compareEndpointData(a.Endpoint, b.Endpoint); c != 0 {
			return c
		}
	}
	return strings.Compare(a.Detail, b.Detail)
}

// compareEndpointData is a total order on the data of two endpoints of the
// same record set: targets (as [endpoint.Targets.IsLess], then exact
// strings), resource label, TTL, provider-specific properties, the DNS name
// as written and finally the other labels.
func compareEndpointData(a, b *endpoint.Endpoint) int {
	if a.Targets.IsLess(b.Targets) {
		return -1
	}
	if b.Targets.IsLess(a.Targets) {
		return 1
	}
	if c := slices.Compare(a.Targets, b.Targets); c != 0 {
		return c
	}
	resA, _ := a.Labels.Get(endpoint.ResourceLabelKey)
	resB, _ := b.Labels.Get(endpoint.ResourceLabelKey)
	if c := strings.Compare(resA, resB); c != 0 {
		return c
	}
	if c := cmp.Compare(a.RecordTTL, b.RecordTTL); c != 0 {
		return c
	}
	if c := slices.CompareFunc(a.ProviderSpecific, b.ProviderSpecific, func(x, y endpoint.ProviderSpecificProperty) int {
		if c := strings.Compare(x.Name, y.Name); c != 0 {
			return c
		}
		return strings.Compare(x.Value, y.Value)
	}); c != 0 {
		return c
	}
	if c := strings.Compare(a.DNSName, b.DNSName); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Labels.Len(), b.Labels.Len()); c != 0 || a.Labels.Len() == 0 {
		return c
	}
	return slices.Compare(sortedLabels(a.Labels), sortedLabels(b.Labels))
}

func sortedLabels(l endpoint.Labels) []string {
	out := make([]string, 0, l.Len())
	for k, v := range l.All() {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}
