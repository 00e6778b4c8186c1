package plan_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
)

const (
	a     = endpoint.RecordTypeA
	aaaa  = endpoint.RecordTypeAAAA
	cname = endpoint.RecordTypeCNAME
	txt   = endpoint.RecordTypeTXT
	mx    = endpoint.RecordTypeMX
)

type calcCase struct {
	name      string
	plan      plan.Plan
	want      []string // summary of the changes
	wantSkips []string
}

func runCalcCases(t *testing.T, cases []calcCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.plan
			res := p.Calculate()
			require.NotNil(t, res.Changes)
			assert.Equal(t, tc.want, summary(res.Changes), "changes")
			assert.Equal(t, tc.wantSkips, skips(res), "skipped")
			assert.Nil(t, p.Changes, "Calculate must not modify its receiver")
			assert.Nil(t, p.Skipped, "Calculate must not modify its receiver")
		})
	}
}

func TestCalculateBasics(t *testing.T) {
	runCalcCases(t, []calcCase{
		{name: "empty"},
		{
			name: "create on a free name, one record per type",
			plan: plan.Plan{Desired: []*endpoint.Endpoint{
				ep("a.example.com", aaaa, "2001:db8::1"),
				ep("a.example.com", a, "192.0.2.1"),
			}},
			want: []string{"create a.example.com/A 192.0.2.1", "create a.example.com/AAAA 2001:db8::1"},
		},
		{
			name: "delete when no longer desired",
			plan: plan.Plan{Current: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1")}},
			want: []string{"delete a.example.com/A 192.0.2.1"},
		},
		{
			name: "no change when targets are the same in another order and case",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{ep("a.example.com", cname, "B.example.net", "a.example.net")},
				Desired: []*endpoint.Endpoint{ep("a.example.com", cname, "a.example.net", "b.example.net")},
			},
		},
		{
			name: "update when targets differ",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1")},
				Desired: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.2")},
			},
			want: []string{"update a.example.com/A 192.0.2.1 -> 192.0.2.2"},
		},
		{
			name: "update when a configured TTL differs",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{withTTL(ep("a.example.com", a, "192.0.2.1"), 300)},
				Desired: []*endpoint.Endpoint{withTTL(ep("a.example.com", a, "192.0.2.1"), 60)},
			},
			want: []string{"update a.example.com/A 192.0.2.1 -> 192.0.2.1"},
		},
		{
			name: "no update when the desired TTL is not configured",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{withTTL(ep("a.example.com", a, "192.0.2.1"), 300)},
				Desired: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1")},
			},
		},
		{
			name: "update when current has a provider-specific property the desired lacks (txt/force-update)",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{withPS(ep("a.example.com", a, "192.0.2.1"), endpoint.ProviderSpecificForceUpdate, "true")},
				Desired: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1")},
			},
			want: []string{"update a.example.com/A 192.0.2.1 -> 192.0.2.1"},
		},
		{
			name: "update when desired has an extra provider-specific property",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1")},
				Desired: []*endpoint.Endpoint{withPS(ep("a.example.com", a, "192.0.2.1"), "alias", "true")},
			},
			want: []string{"update a.example.com/A 192.0.2.1 -> 192.0.2.1"},
		},
		{
			name: "update when a provider-specific value differs",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{withPS(ep("a.example.com", a, "192.0.2.1"), "webhook/weight", "1")},
				Desired: []*endpoint.Endpoint{withPS(ep("a.example.com", a, "192.0.2.1"), "webhook/weight", "2")},
			},
			want: []string{"update a.example.com/A 192.0.2.1 -> 192.0.2.1"},
		},
		{
			name: "no update when provider-specific properties are equal in another order",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{withPS(withPS(ep("a.example.com", a, "192.0.2.1"), "x", "1"), "y", "2")},
				Desired: []*endpoint.Endpoint{withPS(withPS(ep("a.example.com", a, "192.0.2.1"), "y", "2"), "x", "1")},
			},
		},
		{
			name: "create a missing type at a taken name, delete a type no longer desired",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{
					ep("a.example.com", a, "192.0.2.1"),
					ep("b.example.com", a, "192.0.2.2"),
					ep("b.example.com", aaaa, "2001:db8::2"),
				},
				Desired: []*endpoint.Endpoint{
					ep("a.example.com", a, "192.0.2.1"),
					ep("a.example.com", aaaa, "2001:db8::1"),
					ep("b.example.com", a, "192.0.2.2"),
				},
			},
			want: []string{"create a.example.com/AAAA 2001:db8::1", "delete b.example.com/AAAA 2001:db8::2"},
		},
		{
			name: "names compare normalised: case, trailing dot, punycode",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{
					{DNSName: "A.Example.COM.", RecordType: a, Targets: endpoint.Targets{"192.0.2.1"}},
					ep("xn--bcher-kva.example.com", a, "192.0.2.2"),
				},
				Desired: []*endpoint.Endpoint{
					ep("a.example.com", a, "192.0.2.1"),
					ep("bücher.example.com", a, "192.0.2.2"),
				},
			},
		},
		{
			name: "set identifiers make separate rows",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{
					withSet(ep("a.example.com", a, "192.0.2.1"), "eu"),
					withSet(ep("a.example.com", a, "192.0.2.9"), "old"),
				},
				Desired: []*endpoint.Endpoint{
					withSet(ep("a.example.com", a, "192.0.2.1"), "eu"),
					withSet(ep("a.example.com", a, "192.0.2.2"), "us"),
				},
			},
			want: []string{"create a.example.com/A/us 192.0.2.2", "delete a.example.com/A/old 192.0.2.9"},
		},
		{
			name: "nil endpoints are ignored in current and reported in desired",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{nil},
				Desired: []*endpoint.Endpoint{nil, ep("a.example.com", a, "192.0.2.1")},
			},
			want:      []string{"create a.example.com/A 192.0.2.1"},
			wantSkips: []string{"create <nil> invalid"},
		},
		{
			name: "duplicate current records: the smallest is used, deterministically",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{
					ep("a.example.com", a, "192.0.2.9"),
					ep("a.example.com", a, "192.0.2.1"),
				},
				Desired: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1")},
			},
		},
	})
}

func TestCalculateOwnership(t *testing.T) {
	runCalcCases(t, []calcCase{
		{
			name: "only owned records are deleted",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{
					ep("mine.example.com", a, "192.0.2.1", "@owner=me"),
					ep("theirs.example.com", a, "192.0.2.2", "@owner=them"),
					ep("nobody.example.com", a, "192.0.2.3"),
				},
			},
			want: []string{"delete mine.example.com/A 192.0.2.1"},
		},
		{
			name: "without an owner id every record is ours",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{
					ep("theirs.example.com", a, "192.0.2.2", "@owner=them"),
					ep("nobody.example.com", a, "192.0.2.3"),
				},
				Desired: []*endpoint.Endpoint{ep("nobody.example.com", a, "192.0.2.4")},
			},
			want: []string{"update nobody.example.com/A 192.0.2.3 -> 192.0.2.4", "delete theirs.example.com/A 192.0.2.2"},
		},
		{
			name: "records of others and unowned records are never updated",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{
					ep("theirs.example.com", a, "192.0.2.2", "@owner=them"),
					ep("nobody.example.com", a, "192.0.2.3"),
					ep("same.example.com", a, "192.0.2.5", "@owner=them"),
				},
				Desired: []*endpoint.Endpoint{
					ep("theirs.example.com", a, "192.0.2.9"),
					ep("nobody.example.com", a, "192.0.2.9"),
					ep("same.example.com", a, "192.0.2.5"),
				},
			},
			wantSkips: []string{"update nobody.example.com/A unowned", "update theirs.example.com/A foreign-owner"},
		},
		{
			name: "no create at a name holding a record of another owner or of nobody",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{
					ep("theirs.example.com", aaaa, "2001:db8::1", "@owner=them"),
					ep("nobody.example.com", cname, "x.example.net"),
					ep("mine.example.com", aaaa, "2001:db8::2", "@owner=me"),
				},
				Desired: []*endpoint.Endpoint{
					ep("theirs.example.com", a, "192.0.2.1"),
					ep("nobody.example.com", a, "192.0.2.2"),
					ep("mine.example.com", a, "192.0.2.3"),
					ep("mine.example.com", aaaa, "2001:db8::2"),
				},
			},
			want: []string{"create mine.example.com/A 192.0.2.3"},
			wantSkips: []string{
				"create nobody.example.com/A unowned",
				"create theirs.example.com/A foreign-owner",
			},
		},
		{
			name: "a foreign record at another set identifier does not block a create",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{withSet(ep("a.example.com", a, "192.0.2.1", "@owner=them"), "eu")},
				Desired: []*endpoint.Endpoint{withSet(ep("a.example.com", a, "192.0.2.2"), "us")},
			},
			want: []string{"create a.example.com/A/us 192.0.2.2"},
		},
		{
			name: "old owner's records are ours: relabel even when nothing else changed, delete when not desired",
			plan: plan.Plan{
				OwnerID:    "new",
				OldOwnerID: "old",
				Current: []*endpoint.Endpoint{
					ep("keep.example.com", a, "192.0.2.1", "@owner=old"),
					ep("gone.example.com", a, "192.0.2.2", "@owner=old"),
					ep("other.example.com", a, "192.0.2.3", "@owner=other"),
					ep("mine.example.com", a, "192.0.2.4", "@owner=new"),
				},
				Desired: []*endpoint.Endpoint{
					ep("keep.example.com", a, "192.0.2.1"),
					ep("other.example.com", a, "192.0.2.3"),
					ep("mine.example.com", a, "192.0.2.4"),
				},
			},
			want: []string{"update keep.example.com/A 192.0.2.1 -> 192.0.2.1", "delete gone.example.com/A 192.0.2.2"},
		},
	})
}

func TestCalculateOldOwnerRelabels(t *testing.T) {
	cur := ep("a.example.com", a, "192.0.2.1", "@owner=old", "@resource=service/default/a")
	p := plan.Plan{
		OwnerID: "new", OldOwnerID: "old",
		Current: []*endpoint.Endpoint{cur},
		Desired: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1", "@resource=service/default/a")},
	}
	res := p.Calculate()
	require.Len(t, res.Changes.UpdateNew, 1)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "new", "resource": "service/default/a"}), res.Changes.UpdateNew[0].Labels)
	assert.Same(t, cur, res.Changes.UpdateOld[0])
	assert.Equal(t, "old", labelValue(cur.Labels, "owner"), "input must not be modified")
	assert.True(t, res.Changes.HasChanges())
}

func TestCalculateUpdateNewContents(t *testing.T) {
	cur := withTTL(ep("A.example.com", a, "192.0.2.1",
		"@owner=me", "@resource=service/default/a", "@txt-encryption-nonce=abc", "@keep=current"), 300)
	des := withPS(ep("a.example.com", a, "192.0.2.2", "@resource=service/default/a", "@keep=desired"), "alias", "false")
	curCopy, desCopy := cur.DeepCopy(), des.DeepCopy()

	res := (&plan.Plan{OwnerID: "me", Current: []*endpoint.Endpoint{cur}, Desired: []*endpoint.Endpoint{des}}).Calculate()
	require.Len(t, res.Changes.UpdateNew, 1)
	n := res.Changes.UpdateNew[0]
	assert.Equal(t, "A.example.com", n.DNSName, "UpdateNew keeps the current record's name so that the pair matches")
	assert.Equal(t, endpoint.Targets{"192.0.2.2"}, n.Targets)
	assert.Equal(t, endpoint.TTL(300), n.RecordTTL, "an unconfigured desired TTL keeps the current TTL")
	assert.Equal(t, endpoint.ProviderSpecific{{Name: "alias", Value: "false"}}, n.ProviderSpecific)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{
		"owner": "me", "resource": "service/default/a", "txt-encryption-nonce": "abc", "keep": "desired",
	}), n.Labels)

	// The inputs are untouched and UpdateNew shares no memory with them.
	assert.Equal(t, curCopy, cur)
	assert.Equal(t, desCopy, des)
	n.Targets[0] = "192.0.2.99"
	n.ProviderSpecific[0].Value = "x"
	assert.Equal(t, desCopy, des)
}

func TestCalculateScope(t *testing.T) {
	runCalcCases(t, []calcCase{
		{
			name: "unmanaged types stay out of the plan",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{ep("a.example.com", mx, "10 mail.example.com")},
				Desired: []*endpoint.Endpoint{ep("b.example.com", mx, "10 mail.example.com"), ep("b.example.com", a, "192.0.2.1")},
			},
			want:      []string{"create b.example.com/A 192.0.2.1"},
			wantSkips: []string{"create b.example.com/MX unmanaged-type"},
		},
		{
			name: "managed records are configurable and exclusions apply",
			plan: plan.Plan{
				ManagedRecords: []string{a, aaaa, mx},
				ExcludeRecords: []string{aaaa},
				Current:        []*endpoint.Endpoint{ep("a.example.com", aaaa, "2001:db8::1")},
				Desired: []*endpoint.Endpoint{
					ep("b.example.com", mx, "10 mail.example.com"),
					ep("b.example.com", aaaa, "2001:db8::2"),
					ep("b.example.com", cname, "c.example.com"),
				},
			},
			want:      []string{"create b.example.com/MX 10 mail.example.com"},
			wantSkips: []string{"create b.example.com/AAAA unmanaged-type", "create b.example.com/CNAME unmanaged-type"},
		},
		{
			name: "ownership TXT records never enter the plan, even with TXT managed",
			plan: plan.Plan{
				ManagedRecords: []string{a, txt},
				OwnerID:        "me",
				Current: []*endpoint.Endpoint{
					ep("a-a.example.com", txt, `"heritage=external-dns,external-dns/owner=me"`, "@ownedRecord=a.example.com", "@owner=me"),
					ep("app.example.com", txt, "v=spf1 -all", "@owner=me"),
				},
				Desired: []*endpoint.Endpoint{
					ep("b-a.example.com", txt, `"heritage=external-dns"`, "@ownedRecord=b.example.com"),
				},
			},
			want:      []string{"delete app.example.com/TXT v=spf1 -all"},
			wantSkips: []string{"create b-a.example.com/TXT unmanaged-type"},
		},
		{
			name: "names outside the domain filter stay out of the plan",
			plan: plan.Plan{
				DomainFilter: endpoint.NewDomainFilter([]string{"example.com"}),
				Current:      []*endpoint.Endpoint{ep("a.example.org", a, "192.0.2.1")},
				Desired: []*endpoint.Endpoint{
					ep("b.example.org", a, "192.0.2.2"),
					ep("b.example.com", a, "192.0.2.3"),
				},
			},
			want:      []string{"create b.example.com/A 192.0.2.3"},
			wantSkips: []string{"create b.example.org/A filtered-out"},
		},
	})
}

func TestCalculateInvalidInput(t *testing.T) {
	runCalcCases(t, []calcCase{
		{
			name: "an invalid desired endpoint is skipped",
			plan: plan.Plan{Desired: []*endpoint.Endpoint{
				ep("a.example.com", a, "not-an-ip"),
				ep("b.example.com", a, "192.0.2.1"),
			}},
			want:      []string{"create b.example.com/A 192.0.2.1"},
			wantSkips: []string{"create a.example.com/A invalid"},
		},
		{
			name: "an invalid desired endpoint protects the records at its row from update and delete",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{
					ep("a.example.com", a, "192.0.2.1", "@owner=me"),
					ep("a.example.com", aaaa, "2001:db8::1", "@owner=me"),
					ep("a.example.com", cname, "x.example.com", "@owner=me"),
				},
				Desired: []*endpoint.Endpoint{
					ep("a.example.com", a, "192.0.2.300"),
					ep("a.example.com", aaaa, "2001:db8::2"),
				},
			},
			wantSkips: []string{
				"delete a.example.com/A invalid", // the current A, protected
				"update a.example.com/A invalid", // the invalid desired A itself
				"update a.example.com/AAAA invalid",
				"delete a.example.com/CNAME invalid",
			},
		},
		{
			name: "an invalid endpoint at a free name does not block valid creates of other types",
			plan: plan.Plan{Desired: []*endpoint.Endpoint{
				ep("a.example.com", a, "192.0.2.1"),
				ep("a.example.com", aaaa, "192.0.2.1"),
			}},
			want:      []string{"create a.example.com/A 192.0.2.1"},
			wantSkips: []string{"create a.example.com/AAAA invalid"},
		},
		{
			name: "an endpoint without targets is invalid, not a delete",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1")},
				Desired: []*endpoint.Endpoint{ep("a.example.com", a)},
			},
			wantSkips: []string{"delete a.example.com/A invalid", "update a.example.com/A invalid"},
		},
	})
}

func TestCalculateCNAMEConflict(t *testing.T) {
	runCalcCases(t, []calcCase{
		{
			name: "CNAME candidates are dropped when A is asked for too",
			plan: plan.Plan{Desired: []*endpoint.Endpoint{
				ep("a.example.com", cname, "lb.example.net"),
				ep("a.example.com", a, "192.0.2.1"),
			}},
			want:      []string{"create a.example.com/A 192.0.2.1"},
			wantSkips: []string{"create a.example.com/CNAME cname-conflict"},
		},
		{
			name: "an owned current CNAME is deleted when AAAA is asked for too",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{ep("a.example.com", cname, "lb.example.net", "@owner=me")},
				Desired: []*endpoint.Endpoint{
					ep("a.example.com", cname, "lb.example.net"),
					ep("a.example.com", aaaa, "2001:db8::1"),
				},
			},
			want:      []string{"create a.example.com/AAAA 2001:db8::1", "delete a.example.com/CNAME lb.example.net"},
			wantSkips: []string{"update a.example.com/CNAME cname-conflict"},
		},
		{
			name: "a foreign current CNAME stays and blocks the create",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{ep("a.example.com", cname, "lb.example.net", "@owner=them")},
				Desired: []*endpoint.Endpoint{
					ep("a.example.com", cname, "lb.example.net"),
					ep("a.example.com", a, "192.0.2.1"),
				},
			},
			wantSkips: []string{"create a.example.com/A foreign-owner", "update a.example.com/CNAME cname-conflict"},
		},
		{
			name: "CNAME alone at a name is fine",
			plan: plan.Plan{Desired: []*endpoint.Endpoint{ep("a.example.com", cname, "lb.example.net")}},
			want: []string{"create a.example.com/CNAME lb.example.net"},
		},
	})
}

// TestCalculateMultipleTargets covers the four scenarios of the multiple
// targets design.
func TestCalculateMultipleTargets(t *testing.T) {
	const ingA, ingB, ingC = "@resource=ingress/default/a", "@resource=ingress/default/b", "@resource=ingress/default/c"
	runCalcCases(t, []calcCase{
		{
			name: "1: two resources, one name, nothing registered: the smallest targets win",
			plan: plan.Plan{OwnerID: "me", Desired: []*endpoint.Endpoint{
				ep("example.com", a, "2.2.2.2", ingB),
				ep("example.com", a, "1.1.1.1", ingA),
			}},
			want:      []string{"create example.com/A 1.1.1.1"},
			wantSkips: []string{"create example.com/A lost-conflict"},
		},
		{
			name: "2: the winner keeps the name while it exists",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{ep("example.com", a, "2.2.2.2", "@owner=me", ingB)},
				Desired: []*endpoint.Endpoint{
					ep("example.com", a, "1.1.1.1", ingA),
					ep("example.com", a, "2.2.2.2", ingB),
				},
			},
			wantSkips: []string{"update example.com/A lost-conflict"},
		},
		{
			name: "3: the record follows the winner's target changes",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{ep("example.com", a, "1.1.1.1", "@owner=me", ingA)},
				Desired: []*endpoint.Endpoint{
					ep("example.com", a, "2.2.2.2", ingB),
					ep("example.com", a, "3.3.3.3", ingA),
				},
			},
			want:      []string{"update example.com/A 1.1.1.1 -> 3.3.3.3"},
			wantSkips: []string{"update example.com/A lost-conflict"},
		},
		{
			name: "4: one resource with several targets is one endpoint",
			plan: plan.Plan{OwnerID: "me", Desired: []*endpoint.Endpoint{
				ep("example.com", a, "2.2.2.2", "1.1.1.1", ingC),
			}},
			want: []string{"create example.com/A 2.2.2.2;1.1.1.1"},
		},
		{
			name: "the owning resource is gone: the smallest remaining candidate takes over",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{ep("example.com", a, "1.1.1.1", "@owner=me", ingA)},
				Desired: []*endpoint.Endpoint{
					ep("example.com", a, "3.3.3.3", ingC),
					ep("example.com", a, "2.2.2.2", ingB),
				},
			},
			want:      []string{"update example.com/A 1.1.1.1 -> 2.2.2.2"},
			wantSkips: []string{"update example.com/A lost-conflict"},
		},
		{
			name: "fewer targets are smaller than more targets",
			plan: plan.Plan{Desired: []*endpoint.Endpoint{
				ep("example.com", a, "1.1.1.1", "1.1.1.2", ingA),
				ep("example.com", a, "9.9.9.9", ingB),
			}},
			want:      []string{"create example.com/A 9.9.9.9"},
			wantSkips: []string{"create example.com/A lost-conflict"},
		},
		{
			name: "a takeover with the same targets changes nothing",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{ep("example.com", a, "1.1.1.1", "@owner=me", ingA)},
				Desired: []*endpoint.Endpoint{ep("example.com", a, "1.1.1.1", ingB)},
			},
		},
		{
			name: "a takeover with new targets records the new resource",
			plan: plan.Plan{
				OwnerID: "me",
				Current: []*endpoint.Endpoint{ep("example.com", a, "1.1.1.1", "@owner=me", ingA)},
				Desired: []*endpoint.Endpoint{ep("example.com", a, "2.2.2.2", ingB)},
			},
			want: []string{"update example.com/A 1.1.1.1 -> 2.2.2.2"},
		},
		{
			name: "no relabel when the current record carries no resource label",
			plan: plan.Plan{
				Current: []*endpoint.Endpoint{ep("example.com", a, "1.1.1.1")},
				Desired: []*endpoint.Endpoint{ep("example.com", a, "1.1.1.1", ingB)},
			},
		},
	})
}

func TestCalculateMergeTargets(t *testing.T) {
	const ingA, ingB = "@resource=ingress/default/a", "@resource=ingress/default/b"
	runCalcCases(t, []calcCase{
		{
			name: "the targets of every resource are merged, deduplicated and sorted",
			plan: plan.Plan{Resolver: plan.MergeTargets{}, Desired: []*endpoint.Endpoint{
				ep("example.com", a, "2.2.2.2", "1.1.1.1", ingB),
				ep("example.com", a, "1.1.1.1", "3.3.3.3", ingA),
			}},
			want: []string{"create example.com/A 1.1.1.1;2.2.2.2;3.3.3.3"},
		},
		{
			name: "merged targets update the current record",
			plan: plan.Plan{
				Resolver: plan.MergeTargets{},
				Current:  []*endpoint.Endpoint{ep("example.com", cname, "a.example.net")},
				Desired: []*endpoint.Endpoint{
					ep("example.com", cname, "A.example.net", ingA),
					ep("example.com", cname, "b.example.net", ingB),
				},
			},
			want: []string{"update example.com/CNAME a.example.net -> A.example.net;b.example.net"},
		},
		{
			name: "no change when the merge equals the current record",
			plan: plan.Plan{
				Resolver: plan.MergeTargets{},
				Current:  []*endpoint.Endpoint{ep("example.com", aaaa, "2001:db8::1", "2001:db8::2")},
				Desired: []*endpoint.Endpoint{
					ep("example.com", aaaa, "2001:DB8::2", ingA),
					ep("example.com", aaaa, "2001:db8:0::1", ingB),
				},
			},
		},
	})
}

type dropDeletes struct{}

func (dropDeletes) Apply(c *plan.Changes) *plan.Changes {
	return &plan.Changes{Create: c.Create, UpdateOld: c.UpdateOld, UpdateNew: c.UpdateNew}
}

type dropCreates struct{}

func (dropCreates) Apply(c *plan.Changes) *plan.Changes {
	return &plan.Changes{UpdateOld: c.UpdateOld, UpdateNew: c.UpdateNew, Delete: c.Delete}
}

type nilPolicy struct{}

func (nilPolicy) Apply(*plan.Changes) *plan.Changes { return nil }

// reversePolicy returns the changes in reverse order, to prove that the
// result is sorted again.
type reversePolicy struct{}

func (reversePolicy) Apply(c *plan.Changes) *plan.Changes {
	out := &plan.Changes{
		Create:    slices.Clone(c.Create),
		UpdateOld: slices.Clone(c.UpdateOld),
		UpdateNew: slices.Clone(c.UpdateNew),
		Delete:    slices.Clone(c.Delete),
	}
	slices.Reverse(out.Create)
	slices.Reverse(out.UpdateOld)
	slices.Reverse(out.UpdateNew)
	slices.Reverse(out.Delete)
	return out
}

func TestCalculatePolicies(t *testing.T) {
	current := []*endpoint.Endpoint{
		ep("upd.example.com", a, "192.0.2.1"),
		ep("upd2.example.com", a, "192.0.2.1"),
		ep("del.example.com", a, "192.0.2.2"),
	}
	desired := []*endpoint.Endpoint{
		ep("upd2.example.com", a, "192.0.2.4"),
		ep("upd.example.com", a, "192.0.2.3"),
		ep("new.example.com", a, "192.0.2.4"),
		ep("new2.example.com", a, "192.0.2.4"),
	}
	all := []string{
		"create new.example.com/A 192.0.2.4",
		"create new2.example.com/A 192.0.2.4",
		"update upd.example.com/A 192.0.2.1 -> 192.0.2.3",
		"update upd2.example.com/A 192.0.2.1 -> 192.0.2.4",
		"delete del.example.com/A 192.0.2.2",
	}
	runCalcCases(t, []calcCase{
		{name: "no policies", plan: plan.Plan{Current: current, Desired: desired}, want: all},
		{
			name:      "policies apply in order and what they drop is reported",
			plan:      plan.Plan{Current: current, Desired: desired, Policies: []plan.Policy{dropDeletes{}, dropCreates{}}},
			want:      all[2:4],
			wantSkips: []string{"delete del.example.com/A policy", "create new.example.com/A policy", "create new2.example.com/A policy"},
		},
		{
			name:      "a nil result drops everything",
			plan:      plan.Plan{Current: current, Desired: desired, Policies: []plan.Policy{nilPolicy{}}},
			wantSkips: []string{"delete del.example.com/A policy", "create new.example.com/A policy", "create new2.example.com/A policy", "update upd.example.com/A policy", "update upd2.example.com/A policy"},
		},
		{
			name: "the result of policies is sorted",
			plan: plan.Plan{Current: current, Desired: desired, Policies: []plan.Policy{reversePolicy{}, nil}},
			want: all,
		},
	})
}

// TestCalculateDeterministic shuffles the input and checks that the result
// does not change.
func TestCalculateDeterministic(t *testing.T) {
	const ingA, ingB = "@resource=ingress/default/a", "@resource=ingress/default/b"
	current := []*endpoint.Endpoint{
		ep("a.example.com", a, "192.0.2.1", "@owner=me"),
		ep("b.example.com", a, "192.0.2.2", "@owner=me"),
		ep("c.example.com", cname, "x.example.net", "@owner=them"),
		withSet(ep("d.example.com", a, "192.0.2.4", "@owner=me"), "eu"),
		withSet(ep("d.example.com", a, "192.0.2.5", "@owner=me"), "us"),
		ep("e.example.com", a, "192.0.2.5", "@owner=me"),
		ep("e.example.com", a, "192.0.2.6", "@owner=me"),
	}
	desired := []*endpoint.Endpoint{
		ep("a.example.com", a, "192.0.2.11", ingA),
		ep("a.example.com", a, "192.0.2.10", ingB),
		ep("c.example.com", a, "192.0.2.3"),
		withSet(ep("d.example.com", a, "192.0.2.40"), "eu"),
		ep("f.example.com", a, "192.0.2.7", ingA),
		ep("f.example.com", a, "192.0.2.7", ingB),
		ep("f.example.com", aaaa, "2001:db8::7"),
		ep("f.example.com", cname, "y.example.net"),
		ep("g.example.com", mx, "10 mail.example.com"),
		ep("h.example.com", a, "bad"),
	}
	base := (&plan.Plan{OwnerID: "me", Current: current, Desired: desired}).Calculate()
	wantJSON, err := json.Marshal(base.Changes)
	require.NoError(t, err)
	wantText := base.String()
	require.NotEqual(t, "no changes", wantText)

	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		cur, des := slices.Clone(current), slices.Clone(desired)
		rng.Shuffle(len(cur), func(i, j int) { cur[i], cur[j] = cur[j], cur[i] })
		rng.Shuffle(len(des), func(i, j int) { des[i], des[j] = des[j], des[i] })
		res := (&plan.Plan{OwnerID: "me", Current: cur, Desired: des}).Calculate()
		gotJSON, err := json.Marshal(res.Changes)
		require.NoError(t, err)
		require.JSONEq(t, string(wantJSON), string(gotJSON), "permutation %d", i)
		require.Equal(t, wantText, res.String(), "permutation %d", i)
	}
}

func TestCalculateSortedOutput(t *testing.T) {
	var current, desired []*endpoint.Endpoint
	for _, n := range []string{"z", "b", "y", "a", "m"} {
		current = append(current, ep(n+".del.example.com", a, "192.0.2.1"))
		current = append(current, ep(n+".upd.example.com", a, "192.0.2.1"))
		desired = append(desired, ep(n+".upd.example.com", a, "192.0.2.2"))
		desired = append(desired, withSet(ep(n+".new.example.com", a, "192.0.2.3"), "s2"))
		desired = append(desired, withSet(ep(n+".new.example.com", aaaa, "2001:db8::3"), "s1"))
		desired = append(desired, withSet(ep(n+".new.example.com", a, "192.0.2.3"), "s1"))
	}
	res := (&plan.Plan{Current: current, Desired: desired}).Calculate()
	c := res.Changes
	for _, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateOld, c.UpdateNew, c.Delete} {
		require.NotEmpty(t, list)
		assert.True(t, slices.IsSortedFunc(list, func(x, y *endpoint.Endpoint) int {
			if c := cmpStr(x.DNSName, y.DNSName); c != 0 {
				return c
			}
			if c := cmpStr(x.SetIdentifier, y.SetIdentifier); c != 0 {
				return c
			}
			return cmpStr(x.RecordType, y.RecordType)
		}), "list not sorted: %v", list)
	}
	for i := range c.UpdateOld {
		assert.Equal(t, c.UpdateOld[i].DNSName, c.UpdateNew[i].DNSName, "update pairs stay together")
	}
	assert.Equal(t, "a.new.example.com/A/s1 192.0.2.3", key(c.Create[0]))
	assert.Equal(t, "a.new.example.com/AAAA/s1 2001:db8::3", key(c.Create[1]))
	assert.Equal(t, "a.new.example.com/A/s2 192.0.2.3", key(c.Create[2]))
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestCalculateReturnsCopy(t *testing.T) {
	p := &plan.Plan{
		OwnerID:        "me",
		ManagedRecords: []string{a},
		Current:        []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1", "@owner=me")},
	}
	res := p.Calculate()
	require.NotSame(t, p, res)
	assert.Equal(t, "me", res.OwnerID)
	assert.Equal(t, []string{a}, res.ManagedRecords)
	assert.Len(t, res.Changes.Delete, 1)
	assert.Nil(t, p.Changes)

	// A calculated plan can be calculated again: the previous result is
	// replaced, not accumulated.
	again := res.Calculate()
	assert.Equal(t, summary(res.Changes), summary(again.Changes))
}

// countingResolver wraps PerResource and counts calls, to check the
// resolver hook and its contract.
type countingResolver struct{ calls *int }

func (r countingResolver) Resolve(cur *endpoint.Endpoint, cands []*endpoint.Endpoint) (*endpoint.Endpoint, []*endpoint.Endpoint) {
	*r.calls++
	return plan.PerResource{}.Resolve(cur, cands)
}

func TestCalculateCustomResolver(t *testing.T) {
	calls := 0
	res := (&plan.Plan{
		Resolver: countingResolver{calls: &calls},
		Desired: []*endpoint.Endpoint{
			ep("a.example.com", a, "192.0.2.1"),
			ep("a.example.com", a, "192.0.2.2"),
			ep("b.example.com", a, "192.0.2.3"),
		},
	}).Calculate()
	assert.Equal(t, 2, calls, "one call per record set with candidates")
	assert.Equal(t, []string{"create a.example.com/A 192.0.2.1", "create b.example.com/A 192.0.2.3"}, summary(res.Changes))
}

func TestSkipDetails(t *testing.T) {
	res := (&plan.Plan{
		OwnerID: "me",
		Current: []*endpoint.Endpoint{
			ep("theirs.example.com", aaaa, "2001:db8::1", "@owner=them"),
			ep("bad.example.com", a, "192.0.2.1", "@owner=me"),
		},
		Desired: []*endpoint.Endpoint{
			ep("theirs.example.com", a, "192.0.2.1"),
			ep("bad.example.com", a, "192.0.2.999"),
			ep("conflict.example.com", a, "192.0.2.1", "@resource=ingress/default/a"),
			ep("conflict.example.com", a, "192.0.2.2", "@resource=ingress/default/b"),
		},
	}).Calculate()
	details := map[string]string{}
	for _, s := range res.Skipped {
		details[s.Endpoint.DNSName+" "+string(s.Reason)] = s.Detail
	}
	assert.Equal(t, `the name holds AAAA record owned by "them", not "me"`, details["theirs.example.com foreign-owner"])
	assert.Contains(t, details["bad.example.com invalid"], "bad.example.com/A")
	assert.Contains(t, details["bad.example.com invalid"], `"192.0.2.999"`)
	assert.Equal(t, "ingress/default/a wins with targets 192.0.2.1", details["conflict.example.com lost-conflict"])
	assert.Equal(t, `update theirs.example.com/A: foreign-owner (x)`,
		plan.Skip{Action: "update", Endpoint: ep("theirs.example.com", a), Reason: plan.SkipForeignOwner, Detail: "x"}.String())
	assert.Equal(t, `create <nil>: invalid`, plan.Skip{Action: "create", Reason: plan.SkipInvalid}.String())
}

// TestCalculateManyRowsAndTypes crosses the planner's internal batch and
// inline-slot boundaries: many names, more than four managed types, and
// endpoints that stay out of the plan in between.
func TestCalculateManyRowsAndTypes(t *testing.T) {
	types := []string{a, aaaa, cname, txt, mx, endpoint.RecordTypeSRV, endpoint.RecordTypeNS}
	targets := map[string][2]string{
		a:                        {"192.0.2.1", "192.0.2.2"},
		aaaa:                     {"2001:db8::1", "2001:db8::2"},
		txt:                      {"one", "two"},
		mx:                       {"10 mx1.example.com", "10 mx2.example.com"},
		endpoint.RecordTypeSRV:   {"1 1 80 a.example.com.", "1 1 80 b.example.com."},
		endpoint.RecordTypeNS:    {"ns1.example.com", "ns2.example.com"},
		endpoint.RecordTypePTR:   {"p.example.com", "p.example.com"},
		endpoint.RecordTypeNAPTR: {"", ""},
	}
	var current, desired []*endpoint.Endpoint
	var want []string
	for i := range 150 {
		name := "n" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".example.com"
		typ := types[i%len(types)]
		if typ == cname {
			typ = endpoint.RecordTypePTR // unmanaged: stays out
		}
		tg := targets[typ]
		switch i % 3 {
		case 0: // unchanged
			current = append(current, ep(name, typ, tg[0], "@owner=me"))
			desired = append(desired, ep(name, typ, tg[0]))
		case 1: // update
			current = append(current, ep(name, typ, tg[0], "@owner=me"))
			desired = append(desired, ep(name, typ, tg[1]))
			if typ != endpoint.RecordTypePTR {
				want = append(want, "update "+name+"/"+typ+" "+tg[0]+" -> "+tg[1])
			}
		case 2: // delete, and a create of another name
			current = append(current, ep(name, typ, tg[0], "@owner=me"))
			desired = append(desired, ep("new-"+name, typ, tg[1]), nil)
			if typ != endpoint.RecordTypePTR {
				want = append(want, "delete "+name+"/"+typ+" "+tg[0], "create new-"+name+"/"+typ+" "+tg[1])
			}
		}
	}
	res := (&plan.Plan{OwnerID: "me", ManagedRecords: types, ExcludeRecords: []string{cname}, Current: current, Desired: desired}).Calculate()
	assert.ElementsMatch(t, want, summary(res.Changes))
	for _, s := range res.Skipped {
		if s.Endpoint == nil {
			assert.Equal(t, plan.SkipInvalid, s.Reason)
			continue
		}
		assert.Equal(t, endpoint.RecordTypePTR, s.Endpoint.RecordType)
		assert.Equal(t, plan.SkipUnmanagedType, s.Reason)
	}
}

func TestCalculateConcurrent(t *testing.T) {
	p := &plan.Plan{
		OwnerID: "bench",
		Current: benchCurrent(500),
		Desired: benchDesired(500, true),
	}
	want := summary(p.Calculate().Changes)
	done := make(chan []string)
	for range 4 {
		go func() { done <- summary(p.Calculate().Changes) }()
	}
	for range 4 {
		assert.Equal(t, want, <-done)
	}
}

// TestCalculateDisjoint has twice as many rows as either input, which makes
// the planner's row table grow.
func TestCalculateDisjoint(t *testing.T) {
	for _, n := range []int{1, 8, 64, 1000} {
		var current, desired []*endpoint.Endpoint
		for i := range n {
			set := ""
			if i%2 == 1 {
				set = "set-" + workload.Target(i)
			}
			current = append(current, withSet(ep("old-"+workload.Name(i), a, workload.Target(i)), set))
			desired = append(desired, withSet(ep("new-"+workload.Name(i), a, workload.Target(i)), set))
			// Same name, another set identifier: no change.
			current = append(current, withSet(ep("same-"+workload.Name(i), a, workload.Target(i)), set))
			desired = append(desired, withSet(ep("same-"+workload.Name(i), a, workload.Target(i)), set))
		}
		res := (&plan.Plan{Current: current, Desired: desired}).Calculate()
		assert.Len(t, res.Changes.Create, n)
		assert.Len(t, res.Changes.Delete, n)
		assert.Empty(t, res.Changes.UpdateNew)
		for _, e := range res.Changes.Create {
			assert.Contains(t, e.DNSName, "new-")
		}
	}
}

func TestCalculatePolicySkipDetail(t *testing.T) {
	p := plan.Plan{Current: []*endpoint.Endpoint{ep("d.example.com", a, "192.0.2.1")}}
	p.Policies = []plan.Policy{dropDeletes{}}
	res := p.Calculate()
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, "dropped by policy plan_test.dropDeletes", res.Skipped[0].Detail)

	p.Policies = []plan.Policy{dropCreates{}, nil, dropDeletes{}}
	res = p.Calculate()
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, "dropped by policies plan_test.dropCreates, plan_test.dropDeletes", res.Skipped[0].Detail)
}

func TestCalculateTakeoverLabels(t *testing.T) {
	res := (&plan.Plan{
		OwnerID: "me",
		Current: []*endpoint.Endpoint{ep("example.com", a, "1.1.1.1", "@owner=me", "@resource=ingress/default/a")},
		Desired: []*endpoint.Endpoint{ep("example.com", a, "2.2.2.2", "@resource=ingress/default/b")},
	}).Calculate()
	require.Len(t, res.Changes.UpdateNew, 1)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "me", "resource": "ingress/default/b"}), res.Changes.UpdateNew[0].Labels)
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}
