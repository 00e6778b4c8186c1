package plan

import (
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/zonesync/zonesync/endpoint"
)

// String renders the changes as a compact table, one line per change in
// the order create, update, delete:
//
//	ACTION  NAME           TYPE  SET  TTL  TARGETS                 WHY
//	create  a.example.com  A     -    300  192.0.2.1               -
//	update  b.example.com  A     -    -    192.0.2.2 -> 192.0.2.3  targets
//	update  d.example.com  A     -    -    192.0.2.5               ownership-format
//	delete  c.example.com  A     -    -    192.0.2.4               -
//
// Updates show the old and new value of the TTL and targets when they
// differ, and in the WHY column the reasons of the update ([Why]), so that
// updates whose record data stay the same (a TXT ownership format upgrade,
// an owner migration) say why they exist. A nil or empty c renders as
// "no changes".
func (c *Changes) String() string {
	if c == nil || len(c.Create)+len(c.UpdateOld)+len(c.UpdateNew)+len(c.Delete) == 0 {
		return "no changes"
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	w.Write([]byte("ACTION\tNAME\tTYPE\tSET\tTTL\tTARGETS\tWHY\n"))
	for _, e := range c.Create {
		writeChangeLine(w, ActionCreate, e, nil)
	}
	for i := range max(len(c.UpdateOld), len(c.UpdateNew)) {
		var old, upd *endpoint.Endpoint
		if i < len(c.UpdateOld) {
			old = c.UpdateOld[i]
		}
		if i < len(c.UpdateNew) {
			upd = c.UpdateNew[i]
		}
		if upd == nil {
			upd, old = old, nil
		}
		writeChangeLine(w, ActionUpdate, upd, old)
	}
	for _, e := range c.Delete {
		writeChangeLine(w, ActionDelete, e, nil)
	}
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// writeChangeLine writes one table line for e; old, when given, is the state
// before an update.
func writeChangeLine(w *tabwriter.Writer, action Action, e, old *endpoint.Endpoint) {
	if e == nil {
		w.Write([]byte(string(action) + "\t<nil>\t-\t-\t-\t-\t-\n"))
		return
	}
	ttl := ttlText(e.RecordTTL)
	targets := targetsText(e.Targets)
	if old != nil {
		if old.RecordTTL != e.RecordTTL {
			ttl = ttlText(old.RecordTTL) + " -> " + ttl
		}
		if !old.Targets.Same(e.Targets) {
			targets = targetsText(old.Targets) + " -> " + targets
		}
	}
	why := "-"
	if old != nil {
		why = Why(old, e).String()
	}
	w.Write([]byte(string(action) + "\t" + dash(endpoint.Printable(e.DNSName)) + "\t" + dash(endpoint.Printable(e.RecordType)) + "\t" +
		dash(endpoint.Printable(e.SetIdentifier)) + "\t" + ttl + "\t" + targets + "\t" + why + "\n"))
}

func ttlText(ttl endpoint.TTL) string {
	if !ttl.IsConfigured() {
		return "-"
	}
	return strconv.FormatInt(int64(ttl), 10)
}

func targetsText(t endpoint.Targets) string {
	if len(t) == 0 {
		return "-"
	}
	for _, v := range t {
		if endpoint.Printable(v) != v {
			quoted := make([]string, len(t))
			for i, w := range t {
				quoted[i] = endpoint.Printable(w)
			}
			return strings.Join(quoted, ",")
		}
	}
	return strings.Join(t, ",")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// String renders the plan's changes as [Changes.String] does, followed,
// when changes were skipped, by a table of the skipped changes and their
// reasons:
//
//	skipped:
//	ACTION  NAME           TYPE  SET  REASON         DETAIL
//	create  x.example.com  A     -    foreign-owner  the name holds A record owned by "other", not "me"
//
// A plan that was not calculated renders its Changes as nil: "no changes".
func (p *Plan) String() string {
	s := p.Changes.String()
	if len(p.Skipped) == 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s)
	b.WriteString("\nskipped:\n")
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	w.Write([]byte("ACTION\tNAME\tTYPE\tSET\tREASON\tDETAIL\n"))
	for _, sk := range p.Skipped {
		name, typ, set := "<nil>", "-", "-"
		if e := sk.Endpoint; e != nil {
			name, typ, set = dash(endpoint.Printable(e.DNSName)), dash(endpoint.Printable(e.RecordType)), dash(endpoint.Printable(e.SetIdentifier))
		}
		w.Write([]byte(dash(string(sk.Action)) + "\t" + name + "\t" + typ + "\t" + set + "\t" +
			dash(string(sk.Reason)) + "\t" + dash(endpoint.Printable(oneLine(sk.Detail))) + "\n"))
	}
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// oneLine replaces line breaks (errors.Join uses them) so that a detail
// stays on its table line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", "; ", "\t", " ").Replace(s)
}
