package inventory

import (
	"cmp"
	"slices"
	"strings"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/verify/result"
)

// snapshot is the inventory after one cycle (or one verification): never
// modified once published.
type snapshot struct {
	gen      uint64
	views    []*View // sorted by compareViews
	byObject []*View // the same, grouped by object
	objects  map[string]span
	last     *CycleSummary
	stats    Stats
}

// span is the views of one object in snapshot.byObject.
type span struct{ start, end int }

// newSnapshot returns the snapshot of byObject, views grouped by object as
// objects says.
func newSnapshot(gen uint64, byObject []*View, objects map[string]span, last *CycleSummary) *snapshot {
	views := slices.Clone(byObject)
	slices.SortFunc(views, compareViews)
	return &snapshot{gen: gen, views: views, byObject: byObject, objects: objects, last: last, stats: computeStats(views)}
}

// objectViews returns the views of one object.
func (s *snapshot) objectViews(resource string) []*View {
	sp, ok := s.objects[resource]
	if !ok {
		return nil
	}
	return s.byObject[sp.start:sp.end:sp.end]
}

// Stats counts the records of the inventory.
type Stats struct {
	// Names is the number of records (views).
	Names int
	// BySourceGroup counts them by source type and group, sorted by both;
	// a record in several groups counts in each, one in none under "".
	BySourceGroup []SourceGroupCount
	// ByVerification counts them by verification status (sync, notsync,
	// notavailable, [Unverified]), sorted by status; only statuses with
	// records are listed.
	ByVerification []StatusCount
}

// SourceGroupCount is the number of records of one source type in one
// group.
type SourceGroupCount struct {
	SourceType, Group string
	Names             int
}

// StatusCount is the number of records with one verification status.
type StatusCount struct {
	Status string
	Names  int
}

// Groups returns the distinct groups of s, sorted, without "".
func (s Stats) Groups() []string {
	var out []string
	for _, c := range s.BySourceGroup {
		if c.Group != "" {
			out = append(out, c.Group)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// SourceTypes returns the distinct source types of s, sorted, without "".
func (s Stats) SourceTypes() []string {
	var out []string
	for _, c := range s.BySourceGroup {
		if c.SourceType != "" {
			out = append(out, c.SourceType)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func computeStats(views []*View) Stats {
	type sg struct{ src, group string }
	bySG := map[sg]int{}
	byStatus := map[string]int{}
	for _, v := range views {
		if len(v.Groups) == 0 {
			bySG[sg{v.SourceType, ""}]++
		}
		for _, g := range v.Groups {
			bySG[sg{v.SourceType, g}]++
		}
		byStatus[verificationStatus(v.Verification)]++
	}
	st := Stats{Names: len(views)}
	for k, n := range bySG {
		st.BySourceGroup = append(st.BySourceGroup, SourceGroupCount{SourceType: k.src, Group: k.group, Names: n})
	}
	slices.SortFunc(st.BySourceGroup, func(a, b SourceGroupCount) int {
		return cmp.Or(strings.Compare(a.SourceType, b.SourceType), strings.Compare(a.Group, b.Group))
	})
	for k, n := range byStatus {
		st.ByVerification = append(st.ByVerification, StatusCount{Status: k, Names: n})
	}
	slices.SortFunc(st.ByVerification, func(a, b StatusCount) int { return strings.Compare(a.Status, b.Status) })
	return st
}

// Stats returns the counts of the inventory as the last cycle (or
// verification) left it.
func (inv *Inventory) Stats() Stats {
	st := inv.snap.Load().stats
	st.BySourceGroup = slices.Clone(st.BySourceGroup)
	st.ByVerification = slices.Clone(st.ByVerification)
	return st
}

// Filter selects records of the inventory; the zero Filter selects all.
// Every field set must match.
type Filter struct {
	// Group: the record is in this group.
	Group string
	// SourceType: the record's source type (the kind of its object,
	// "service").
	SourceType string
	// Status: the record's outcome state (applied, unchanged, pending,
	// skipped, rejected, failed, invalid) or its verification status
	// (sync, notsync, notavailable, or [Unverified]); see [Statuses].
	Status string
	// Name: a substring of the record's name, in A-label or Unicode form,
	// ignoring case.
	Name string
	// Offset skips that many matching records; Limit returns at most that
	// many, all when zero.
	Offset, Limit int
}

// Statuses lists the values of [Filter.Status]: the outcome states, then
// the verification statuses.
func Statuses() []string {
	return []string{
		string(zonesync.RecordApplied), string(zonesync.RecordUnchanged), string(zonesync.RecordPending),
		string(zonesync.RecordSkipped), string(zonesync.RecordRejected), string(zonesync.RecordFailed),
		string(zonesync.RecordInvalid),
		string(result.Sync), string(result.NotSync), string(result.NotAvailable), Unverified,
	}
}

// isOutcomeState reports whether s is an outcome state among [Statuses].
func isOutcomeState(s string) bool {
	switch zonesync.RecordState(s) {
	case zonesync.RecordApplied, zonesync.RecordUnchanged, zonesync.RecordPending, zonesync.RecordSkipped,
		zonesync.RecordRejected, zonesync.RecordFailed, zonesync.RecordInvalid:
		return true
	}
	return false
}

// Page is a page of the inventory.
type Page struct {
	// Views are the records of the page, in the inventory's order: name,
	// set identifier, record type, resource.
	Views []View
	// Total is the number of records matching the filter, Offset and
	// Limit those of the filter.
	Total, Offset, Limit int
	// Generation numbers the inventory's state: it grows with every cycle
	// and every verification, so equal generations mean equal data.
	Generation uint64
}

// List returns the records matching f, in a stable order (name, set
// identifier, record type, resource), paged by f.Offset and f.Limit. It
// reads one snapshot: every record and count of the page are of the same
// cycle.
func (inv *Inventory) List(f Filter) Page {
	return inv.snap.Load().list(f)
}

func (s *snapshot) list(f Filter) Page {
	page := Page{Offset: max(f.Offset, 0), Limit: max(f.Limit, 0), Generation: s.gen}
	m := newMatcher(f)
	for _, v := range s.views {
		if !m.match(v) {
			continue
		}
		if page.Total >= page.Offset && (page.Limit == 0 || len(page.Views) < page.Limit) {
			page.Views = append(page.Views, v.clone())
		}
		page.Total++
	}
	return page
}

type matcher struct {
	f       Filter
	name    string
	outcome bool
}

func newMatcher(f Filter) matcher {
	return matcher{f: f, name: strings.ToLower(f.Name), outcome: isOutcomeState(f.Status)}
}

func (m matcher) match(v *View) bool {
	f := &m.f
	if f.SourceType != "" && v.SourceType != f.SourceType {
		return false
	}
	if f.Group != "" && !slices.Contains(v.Groups, f.Group) {
		return false
	}
	if f.Status != "" {
		if m.outcome {
			if string(v.Outcome.State) != f.Status {
				return false
			}
		} else if verificationStatus(v.Verification) != f.Status {
			return false
		}
	}
	if m.name != "" && !strings.Contains(v.Name, m.name) && !strings.Contains(strings.ToLower(v.DisplayName), m.name) {
		return false
	}
	return true
}
