package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

func TestChangesJSONEncoding(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes plan.Changes
		want    string
	}{
		{name: "empty", want: `{}`},
		{
			name: "keys in order, empty lists omitted",
			changes: plan.Changes{
				Delete: []*endpoint.Endpoint{ep("d.example.com", a, "192.0.2.4")},
				Create: []*endpoint.Endpoint{withTTL(ep("c.example.com", a, "192.0.2.1", "@owner=me"), 300)},
			},
			want: `{"create":[{"dnsName":"c.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300,"labels":{"owner":"me"}}],` +
				`"delete":[{"dnsName":"d.example.com","targets":["192.0.2.4"],"recordType":"A"}]}`,
		},
		{
			name: "updates",
			changes: plan.Changes{
				UpdateOld: []*endpoint.Endpoint{ep("u.example.com", a, "192.0.2.2")},
				UpdateNew: []*endpoint.Endpoint{withSet(ep("u.example.com", a, "192.0.2.3"), "eu")},
				Create:    []*endpoint.Endpoint{},
			},
			want: `{"updateOld":[{"dnsName":"u.example.com","targets":["192.0.2.2"],"recordType":"A"}],` +
				`"updateNew":[{"dnsName":"u.example.com","targets":["192.0.2.3"],"recordType":"A","setIdentifier":"eu"}]}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(&tc.changes)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

func TestChangesJSONDecoding(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want plan.Changes
	}{
		{name: "empty object", in: `{}`},
		{name: "null", in: `null`},
		{name: "null lists (releases before v0.17)", in: `{"Create":null,"UpdateOld":null,"UpdateNew":null,"Delete":null}`},
		{
			name: "mixed case keys",
			in: `{"Create":[{"dnsName":"c.example.com","targets":["192.0.2.1"],"recordType":"A"}],` +
				`"updateOld":[{"DNSName":"u.example.com","Targets":["192.0.2.2"],"RecordType":"A"}],` +
				`"UpdateNew":[{"dnsname":"u.example.com","targets":["192.0.2.3"],"recordtype":"A"}],` +
				`"DELETE":[{"dnsName":"d.example.com","targets":["192.0.2.4"],"recordType":"A","unknown":1}]}`,
			want: plan.Changes{
				Create:    []*endpoint.Endpoint{ep("c.example.com", a, "192.0.2.1")},
				UpdateOld: []*endpoint.Endpoint{ep("u.example.com", a, "192.0.2.2")},
				UpdateNew: []*endpoint.Endpoint{ep("u.example.com", a, "192.0.2.3")},
				Delete:    []*endpoint.Endpoint{ep("d.example.com", a, "192.0.2.4")},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got plan.Changes
			require.NoError(t, json.Unmarshal([]byte(tc.in), &got))
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestChangesHasChanges(t *testing.T) {
	same := ep("u.example.com", a, "192.0.2.1", "@owner=me")
	for _, tc := range []struct {
		name    string
		changes *plan.Changes
		want    bool
	}{
		{name: "nil", changes: nil, want: false},
		{name: "empty", changes: &plan.Changes{}, want: false},
		{name: "create", changes: &plan.Changes{Create: []*endpoint.Endpoint{same}}, want: true},
		{name: "delete", changes: &plan.Changes{Delete: []*endpoint.Endpoint{same}}, want: true},
		{
			name: "identical update pairs",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{same, ep("v.example.com", a, "192.0.2.1", "192.0.2.2")},
				UpdateNew: []*endpoint.Endpoint{same.DeepCopy(), ep("v.example.com", a, "192.0.2.2", "192.0.2.1")},
			},
			want: false,
		},
		{
			name: "targets differ",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{same},
				UpdateNew: []*endpoint.Endpoint{ep("u.example.com", a, "192.0.2.2", "@owner=me")},
			},
			want: true,
		},
		{
			name: "only the owner label differs",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{same},
				UpdateNew: []*endpoint.Endpoint{ep("u.example.com", a, "192.0.2.1", "@owner=new")},
			},
			want: true,
		},
		{
			name: "only a provider-specific property differs",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{withPS(same.DeepCopy(), endpoint.ProviderSpecificForceUpdate, "true")},
				UpdateNew: []*endpoint.Endpoint{same},
			},
			want: true,
		},
		{
			name:    "unpaired updates",
			changes: &plan.Changes{UpdateOld: []*endpoint.Endpoint{same}},
			want:    true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.changes.HasChanges())
		})
	}
}

func TestChangesString(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes *plan.Changes
		want    string
	}{
		{name: "nil", want: "no changes"},
		{name: "empty", changes: &plan.Changes{}, want: "no changes"},
		{
			name: "all kinds",
			changes: &plan.Changes{
				Create: []*endpoint.Endpoint{withTTL(ep("new.example.com", a, "192.0.2.1", "192.0.2.2"), 300)},
				UpdateOld: []*endpoint.Endpoint{
					withTTL(ep("upd.example.com", cname, "a.example.net"), 60),
					ep("same.example.com", a, "192.0.2.5"),
					ep("fmt.example.com", a, "192.0.2.6", "@owner=me").WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true"),
					ep("mig.example.com", a, "192.0.2.7", "@owner=old"),
				},
				UpdateNew: []*endpoint.Endpoint{
					withTTL(ep("upd.example.com", cname, "b.example.net"), 120),
					ep("same.example.com", a, "192.0.2.5"),
					ep("fmt.example.com", a, "192.0.2.6", "@owner=me"),
					ep("mig.example.com", a, "192.0.2.7", "@owner=me"),
				},
				Delete: []*endpoint.Endpoint{withSet(ep("old.example.com", aaaa, "2001:db8::1"), "eu"), nil},
			},
			want: "" +
				"ACTION  NAME              TYPE   SET  TTL        TARGETS                         WHY\n" +
				"create  new.example.com   A      -    300        192.0.2.1,192.0.2.2             -\n" +
				"update  upd.example.com   CNAME  -    60 -> 120  a.example.net -> b.example.net  targets,ttl\n" +
				"update  same.example.com  A      -    -          192.0.2.5                       none\n" +
				"update  fmt.example.com   A      -    -          192.0.2.6                       ownership-format\n" +
				"update  mig.example.com   A      -    -          192.0.2.7                       owner\n" +
				"delete  old.example.com   AAAA   eu   -          2001:db8::1                     -\n" +
				"delete  <nil>             -      -    -          -                               -",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.changes.String())
		})
	}
}

func TestPlanString(t *testing.T) {
	res := (&plan.Plan{
		OwnerID: "me",
		Current: []*endpoint.Endpoint{ep("theirs.example.com", a, "192.0.2.9", "@owner=them")},
		Desired: []*endpoint.Endpoint{
			ep("new.example.com", a, "192.0.2.1"),
			ep("theirs.example.com", a, "192.0.2.2"),
			ep("bad.example.com", a, ""),
		},
	}).Calculate()
	want := "" +
		"ACTION  NAME             TYPE  SET  TTL  TARGETS    WHY\n" +
		"create  new.example.com  A     -    -    192.0.2.1  -\n" +
		"skipped:\n" +
		"ACTION  NAME                TYPE  SET  REASON         DETAIL\n" +
		"create  bad.example.com     A     -    invalid        invalid endpoint bad.example.com/A: targets[0]: A target \"\" is not an IPv4 address\n" +
		"update  theirs.example.com  A     -    foreign-owner  the record is owned by \"them\", not \"me\""
	assert.Equal(t, want, res.String())

	assert.Equal(t, "no changes", (&plan.Plan{}).String())
	assert.Equal(t, "no changes", (&plan.Plan{}).Calculate().String())
}
