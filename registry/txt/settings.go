package txt

import (
	"fmt"
	"maps"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/registry"
)

var _ registry.SettingsWarner = (*Registry)(nil)

// SettingsWarnings implements [registry.SettingsWarner]: the problems with
// the registry's settings that the last Records call (not answered from the
// cache) found, one sentence each, in a fixed order; nil when there is none
// or before the first read:
//
//   - ownership TXT records of OwnerID or OldOwnerID whose names do not read
//     under the configured Prefix, Suffix and WildcardReplacement (a setting
//     changed since they were written: the records they own are unowned);
//   - ownership TXT records of ours whose names read as owning the records
//     of two types that both exist (a Prefix or Suffix that is a bare
//     RecordTypeTemplate: "aaaafoo" is the TXT of "foo"/AAAA and of
//     "aaafoo"/A), which therefore own neither;
//   - records owned by a single other owner while none is owned by OwnerID
//     (an owner id changed?).
func (r *Registry) SettingsWarnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.warnings)
}

// settingsCheck collects, during a read, what SettingsWarnings reports.
type settingsCheck struct {
	unparsed    int    // ownership TXT records of ours whose name does not parse
	unparsedEx  string // the smallest of their names
	ambiguous   int    // ownership TXT records of ours owning nothing for their ambiguous names
	ambiguousEx string // the smallest of their names
	ours        int    // records ours by their verdict (OwnerID or OldOwnerID)
	others      map[string]int
	othersEx    map[string]string // owner -> smallest record name
}

func (c *settingsCheck) unparsedTXT(name string) {
	c.unparsed++
	if c.unparsedEx == "" || name < c.unparsedEx {
		c.unparsedEx = name
	}
}

// ambiguousTXT counts an ownership TXT of ours whose name reads as owning
// several records that all exist (see Registry.resolveAmbiguous).
func (c *settingsCheck) ambiguousTXT(name string) {
	c.ambiguous++
	if c.ambiguousEx == "" || name < c.ambiguousEx {
		c.ambiguousEx = name
	}
}

// owned counts a record owned through an ownership TXT, by its verdict.
func (c *settingsCheck) owned(rec *endpoint.Endpoint) {
	switch rec.Ownership() {
	case endpoint.OwnedByUs, endpoint.OwnedByOldOwner:
		c.ours++
	case endpoint.OwnedByOther:
		owner, _ := rec.Labels.Get(endpoint.OwnerLabelKey)
		if c.others == nil {
			c.others, c.othersEx = map[string]int{}, map[string]string{}
		}
		c.others[owner]++
		if ex, ok := c.othersEx[owner]; !ok || rec.DNSName < ex {
			c.othersEx[owner] = rec.DNSName
		}
	}
}

func (c *settingsCheck) warnings(r *Registry) []string {
	var out []string
	if c.unparsed > 0 {
		owners := fmt.Sprintf("%q", r.ownerID)
		if r.oldOwnerID != "" {
			owners += fmt.Sprintf(" or %q", r.oldOwnerID)
		}
		out = append(out, fmt.Sprintf("%d ownership TXT record(s) of owner %s (e.g. %q) do not match the configured TXT naming "+
			"(Prefix %q, Suffix %q, WildcardReplacement %q): the records they own are unowned and will not be updated or deleted; "+
			"set Prefix, Suffix and WildcardReplacement back to the values that wrote them, or rename those TXT records to the new naming by hand",
			c.unparsed, owners, c.unparsedEx, r.namer.prefix, r.namer.suffix, r.namer.wildcard))
	}
	if c.ambiguous > 0 {
		out = append(out, fmt.Sprintf("%d ownership TXT record(s) of ours (e.g. %q) have a name that the configured Prefix %q or Suffix %q "+
			"gives the records of two types, and both records exist: they are treated as owning neither (left as they are, never updated or deleted); "+
			"use a prefix or suffix that separates the type from the name, such as %q",
			c.ambiguous, c.ambiguousEx, r.namer.prefix, r.namer.suffix, RecordTypeTemplate+"-"))
	}
	if c.ours == 0 && len(c.others) == 1 {
		owner := slices.Collect(maps.Keys(c.others))[0]
		out = append(out, fmt.Sprintf("%d record(s) (e.g. %q) are owned by %q and none by %q: "+
			"they are left as they are (never updated or deleted, and no record is created at their names); "+
			"if %q is what OwnerID used to be, set OwnerID back to it, or set OldOwnerID to %q to take the records over "+
			"(their ownership TXT records are then rewritten with owner %q)",
			c.others[owner], c.othersEx[owner], owner, r.ownerID, owner, owner, r.ownerID))
	}
	return out
}
