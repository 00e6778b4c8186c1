package motoserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func rs(name, typ, setID string, values ...string) RecordSet {
	ttl := int64(300)
	r := RecordSet{Name: name, Type: typ, SetIdentifier: setID, TTL: &ttl}
	for _, v := range values {
		r.ResourceRecords = append(r.ResourceRecords, ResourceRecord{Value: v})
	}
	return r
}

func describeChanges(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Action+" "+c.ResourceRecordSet.String())
	}
	return out
}

// TestPlanBatch checks the Route 53 rules the proxy applies to a batch and
// the batch it sends moto instead, without moto.
func TestPlanBatch(t *testing.T) {
	current := []RecordSet{
		rs("www.example.com.", "A", "", "192.0.2.2", "192.0.2.1"),
		rs("w.example.com.", "A", "blue", "192.0.2.3"),
		rs("v.example.com.", "TXT", "blue", `"x"`),
		rs("c.example.com.", "CNAME", "", "www.example.com"),
	}
	for _, tc := range []struct {
		name        string
		changes     []Change
		wantRefused []string
		wantForward []string
	}{
		{
			name:        "create becomes upsert in canonical form",
			changes:     []Change{{ActionCreate, rs("New.Example.com", "a", "", "192.0.2.9", "192.0.2.8")}},
			wantForward: []string{"UPSERT new.example.com. A ttl=300 192.0.2.8 192.0.2.9"},
		},
		{
			name:        "create of an existing record set, case and dot aside",
			changes:     []Change{{ActionCreate, rs("WWW.example.com", "A", "", "192.0.2.1")}},
			wantRefused: []string{"Tried to create resource record set [name='www.example.com.', type='A'] but it already exists"},
		},
		{
			name:        "delete matching as a set",
			changes:     []Change{{ActionDelete, rs("www.example.com", "A", "", "192.0.2.1", "192.0.2.2")}},
			wantForward: []string{"DELETE www.example.com. A ttl=300 192.0.2.1 192.0.2.2"},
		},
		{
			name:        "delete with other values",
			changes:     []Change{{ActionDelete, rs("www.example.com", "A", "", "192.0.2.1")}},
			wantRefused: []string{"Tried to delete resource record set [name='www.example.com.', type='A'] but the values provided do not match the current values"},
		},
		{
			name:    "delete with a set identifier keeps the others that have it",
			changes: []Change{{ActionDelete, rs("w.example.com", "A", "blue", "192.0.2.3")}},
			wantForward: []string{
				"DELETE w.example.com. A set=blue ttl=300 192.0.2.3",
				`UPSERT v.example.com. TXT set=blue ttl=300 "x"`,
			},
		},
		{
			name: "every refusal is reported and nothing forwarded",
			changes: []Change{
				{ActionUpsert, rs("ok.example.com", "A", "", "192.0.2.1")},
				{ActionDelete, rs("gone.example.com", "A", "green", "192.0.2.1")},
				{ActionUpsert, rs("c.example.com", "A", "", "192.0.2.1")},
				{ActionUpsert, rs("c.example.com", "TXT", "", `"y"`)},
				{ActionUpsert, rs("www.example.com", "CNAME", "", "x.example.com")},
				{ActionCreate, rs("w.example.com", "A", "", "192.0.2.1")},
				{ActionUpsert, rs("www.example.com", "A", "red", "192.0.2.1")},
				{ActionUpsert, rs("www.example.org", "A", "", "192.0.2.1")},
			},
			wantRefused: []string{
				"Tried to delete resource record set [name='gone.example.com.', type='A', set-identifier='green'] but it was not found",
				"RRSet of type A with DNS name c.example.com. is not permitted because a conflicting RRSet of type CNAME with the same DNS name already exists in zone example.com.",
				"RRSet of type TXT with DNS name c.example.com. is not permitted because a conflicting RRSet of type CNAME with the same DNS name already exists in zone example.com.",
				"RRSet of type CNAME with DNS name www.example.com. is not permitted as it conflicts with other records with the same DNS name in zone example.com.",
				"RRSet with DNS name w.example.com., type A cannot be created as other RRSets exist with the same name and type but with a set identifier.",
				"RRSet with DNS name www.example.com., type A, SetIdentifier red cannot be created as a non-weighted set exists with the same name and type.",
				"RRSet with DNS name www.example.org. is not permitted in zone example.com.",
			},
		},
		{
			name: "changes apply in order",
			changes: []Change{
				{ActionDelete, rs("c.example.com", "CNAME", "", "www.example.com")},
				{ActionCreate, rs("c.example.com", "A", "", "192.0.2.7")},
				{ActionCreate, rs("n.example.com", "A", "", "192.0.2.7")},
				{ActionDelete, rs("n.example.com", "A", "", "192.0.2.7")},
			},
			wantForward: []string{
				"DELETE c.example.com. CNAME ttl=300 www.example.com",
				"UPSERT c.example.com. A ttl=300 192.0.2.7",
				"UPSERT n.example.com. A ttl=300 192.0.2.7",
				"DELETE n.example.com. A ttl=300 192.0.2.7",
			},
		},
		{
			name:        "unknown action",
			changes:     []Change{{"REPLACE", rs("www.example.com", "A", "", "192.0.2.1")}},
			wantRefused: []string{`Invalid action "REPLACE" for resource record set [name='www.example.com.', type='A']`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, forward := planBatch("example.com.", current, tc.changes)
			assert.Equal(t, tc.wantRefused, msgs)
			assert.Equal(t, tc.wantForward, describeChanges(forward))
		})
	}
}

func TestSameValues(t *testing.T) {
	w := func(r RecordSet, weight int64) RecordSet { r.Weight = &weight; return r }
	alias := func(dns, zone string, eth bool) RecordSet {
		return RecordSet{Name: "a.example.com", Type: "A", AliasTarget: &AliasTarget{HostedZoneID: zone, DNSName: dns, EvaluateTargetHealth: eth}}
	}
	geo := func(country string) RecordSet {
		r := rs("g.example.com", "A", "x", "192.0.2.1")
		r.GeoLocation = &GeoLocation{CountryCode: country}
		return r
	}
	for _, tc := range []struct {
		name string
		a, b RecordSet
		want bool
	}{
		{"values in another order", rs("a", "A", "", "1", "2"), rs("a", "A", "", "2", "1"), true},
		{"other values", rs("a", "A", "", "1"), rs("a", "A", "", "1", "2"), false},
		{"other TTL", rs("a", "A", "", "1"), func() RecordSet { r := rs("a", "A", "", "1"); r.TTL = nil; return r }(), false},
		{"other weight", w(rs("a", "A", "x", "1"), 1), w(rs("a", "A", "x", "1"), 2), false},
		{"same alias, dot and case aside", alias("ELB.example.net.", "Z1", true), alias("elb.example.net", "Z1", true), true},
		{"alias in another zone", alias("elb.example.net", "Z1", true), alias("elb.example.net", "Z2", true), false},
		{"alias health", alias("elb.example.net", "Z1", true), alias("elb.example.net", "Z1", false), false},
		{"alias and values", alias("elb.example.net", "Z1", true), rs("a.example.com", "A", "", "1"), false},
		{"same geolocation", geo("DE"), geo("DE"), true},
		{"other geolocation", geo("DE"), geo("US"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, sameValues(tc.a, tc.b))
		})
	}
}

func TestChunkChanges(t *testing.T) {
	mk := func(action string, n, values int) []Change {
		var out []Change
		for i := range n {
			vals := make([]string, values)
			for j := range vals {
				vals[j] = fmt.Sprint(j)
			}
			out = append(out, Change{action, rs(fmt.Sprintf("n%d.example.com", i), "A", "", vals...)})
		}
		return out
	}
	sizes := func(chunks [][]Change) string {
		var s []string
		for _, c := range chunks {
			s = append(s, fmt.Sprintf("%d:%d", len(c), batchRecords(c)))
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		name    string
		changes []Change
		want    string
	}{
		{"empty", nil, ""},
		{"creates fit", mk(ActionCreate, 1000, 1), "1000:1000"},
		{"upserts count twice", mk(ActionUpsert, 1000, 1), "500:1000 500:1000"},
		{"several values", mk(ActionCreate, 7, 300), "3:900 3:900 1:300"},
		{"aliases hold none", []Change{{ActionUpsert, RecordSet{Name: "a", Type: "A", AliasTarget: &AliasTarget{}}}}, "1:0"},
		{"one change over the limit stays whole", mk(ActionUpsert, 1, 600), "1:1200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, sizes(chunkChanges(tc.changes)))
		})
	}
}
