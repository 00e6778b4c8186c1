package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/zonesync/zonesync/endpoint"

	"github.com/stretchr/testify/require"
	"github.com/zonesync/zonesync/plan"
)

// FuzzChangesJSON decodes arbitrary bytes into Changes; whatever decodes must
// re-encode to JSON that decodes to the same value (up to empty lists and
// maps, which the encoding omits) and encodes to the same bytes.
func FuzzChangesJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`null`,
		`{"create":[{"dnsName":"a.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300,"labels":{"owner":"me"}}]}`,
		`{"Create":null,"UpdateOld":[{"DNSName":"u.example.com","Targets":["x"]}],"UpdateNew":[{"dnsname":"u.example.com"}],"Delete":[null]}`,
		`{"delete":[{"dnsName":"d.example.com","providerSpecific":[{"name":"alias","value":"true"},{"name":"record-type"}]}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var first plan.Changes
		if json.Unmarshal(data, &first) != nil {
			return
		}
		enc1, err := json.Marshal(&first)
		require.NoError(t, err)
		var second plan.Changes
		require.NoError(t, json.Unmarshal(enc1, &second), "re-encoded %s", enc1)
		require.Equal(t, normalizeChanges(first), second)
		enc2, err := json.Marshal(&second)
		require.NoError(t, err)
		require.Equal(t, string(enc1), string(enc2))
		_ = first.String()
		_ = first.HasChanges()
	})
}

// normalizeChanges returns c with the empty lists and maps that JSON omits
// replaced by nil.
func normalizeChanges(c plan.Changes) plan.Changes {
	norm := func(list []*endpoint.Endpoint) []*endpoint.Endpoint {
		if len(list) == 0 {
			return nil
		}
		out := make([]*endpoint.Endpoint, len(list))
		for i, e := range list {
			if e == nil {
				continue
			}
			n := e.DeepCopy()
			if len(n.Targets) == 0 {
				n.Targets = nil
			}
			if len(n.ProviderSpecific) == 0 {
				n.ProviderSpecific = nil
			}
			out[i] = n
		}
		return out
	}
	return plan.Changes{Create: norm(c.Create), UpdateOld: norm(c.UpdateOld), UpdateNew: norm(c.UpdateNew), Delete: norm(c.Delete)}
}
