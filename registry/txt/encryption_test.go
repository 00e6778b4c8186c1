package txt_test

import (
	"context"
	"encoding/base64"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
)

const testKey = "ZPitL0NGVQBZbTD6DwXJzD8RiStSazzYXQsdUowLURY="

// encStep is one cycle of an encryption roll-out or roll-back: a registry
// with cfg plans desired against the zone and applies it.
type encStep struct {
	cfg     txt.Config
	desired []*endpoint.Endpoint
	// wantEncrypted maps every ownership TXT name of the zone after the
	// step to whether its value is encrypted.
	wantEncrypted map[string]bool
}

func svc(name, target string) *endpoint.Endpoint {
	return a(name+".example.com", target).WithLabel("resource", "service/default/"+name)
}

// TestEncryptionRollOutAndBack runs both directions of an encryption
// change against an in-memory zone: with EncryptionDecryptOnly, TXT
// records read encrypted are updated and deleted with their exact old
// bytes and rewritten in plain text, and new ones are plain; with the
// default mode, new values are encrypted. Every record stays owned at
// every step.
func TestEncryptionRollOutAndBack(t *testing.T) {
	readWrite := txt.Config{EncryptionKey: []byte(testKey)}
	decryptOnly := txt.Config{EncryptionKey: []byte(testKey), EncryptionMode: txt.EncryptionDecryptOnly}
	plain := txt.Config{}
	tests := []struct {
		name  string
		start txt.Config // writes the starting zone: app, old, keep
		steps []encStep
	}{
		{
			name:  "roll-out",
			start: plain,
			steps: []encStep{
				{ // Every instance learns the key first: still plain.
					cfg:     decryptOnly,
					desired: []*endpoint.Endpoint{svc("app", "192.0.2.2"), svc("keep", "192.0.2.3"), svc("new", "192.0.2.4")},
					wantEncrypted: map[string]bool{
						"a-app.example.com": false, "a-keep.example.com": false, "a-new.example.com": false,
					},
				},
				{ // Then they write encrypted; plain values stay readable.
					cfg:     readWrite,
					desired: []*endpoint.Endpoint{svc("app", "192.0.2.5"), svc("new", "192.0.2.4"), svc("late", "192.0.2.6")},
					wantEncrypted: map[string]bool{
						"a-app.example.com": true, "a-new.example.com": false, "a-late.example.com": true,
					},
				},
			},
		},
		{
			name:  "roll-back",
			start: readWrite,
			steps: []encStep{
				{ // Stop writing encrypted values, keep reading them.
					cfg:     decryptOnly,
					desired: []*endpoint.Endpoint{svc("app", "192.0.2.2"), svc("keep", "192.0.2.3"), svc("new", "192.0.2.4")},
					wantEncrypted: map[string]bool{
						"a-app.example.com": false, "a-keep.example.com": true, "a-new.example.com": false,
					},
				},
				{ // Rewrite the last encrypted one, then drop the key.
					cfg:     decryptOnly,
					desired: []*endpoint.Endpoint{svc("app", "192.0.2.2"), svc("keep", "192.0.2.7"), svc("new", "192.0.2.4")},
					wantEncrypted: map[string]bool{
						"a-app.example.com": false, "a-keep.example.com": false, "a-new.example.com": false,
					},
				},
				{
					cfg:     plain,
					desired: []*endpoint.Endpoint{svc("app", "192.0.2.2"), svc("keep", "192.0.2.7")},
					wantEncrypted: map[string]bool{
						"a-app.example.com": false, "a-keep.example.com": false,
					},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone()
			start := []*endpoint.Endpoint{svc("app", "192.0.2.1"), svc("old", "192.0.2.9"), svc("keep", "192.0.2.3")}
			_, err := cycle(ctx, newRegistry(t, zone, tt.start), start)
			require.NoError(t, err)

			for i, step := range tt.steps {
				before := txtValues(t, zone)
				rp := providertest.NewRecordingProvider(zone)
				reg := newRegistry(t, rp, step.cfg)
				changes, err := cycle(ctx, reg, step.desired)
				require.NoError(t, err, "step %d", i)
				require.True(t, changes.HasChanges(), "step %d", i)

				got := lastApply(t, rp)
				for _, old := range append(slices.Clone(got.UpdateOld), got.Delete...) {
					if old.RecordType == endpoint.RecordTypeTXT {
						assert.Equal(t, before[old.DNSName], old.Targets[0], "step %d: %s named with the bytes read", i, old.DNSName)
					}
				}
				after := txtValues(t, zone)
				gotEncrypted := map[string]bool{}
				for name, value := range after {
					gotEncrypted[name] = !strings.Contains(value, "heritage=")
				}
				assert.Equal(t, step.wantEncrypted, gotEncrypted, "step %d", i)

				// Every desired record is owned, with its labels, by a
				// registry that can read the zone as it now is.
				recs, err := newRegistry(t, zone, step.cfg).Records(ctx)
				require.NoError(t, err)
				require.Len(t, recs, len(step.desired), "step %d", i)
				for _, r := range recs {
					assert.True(t, r.IsOwnedBy("default"), "step %d: %s", i, r.DNSName)
					assert.Equal(t, "service/default/"+strings.TrimSuffix(r.DNSName, ".example.com"), labelValue(r.Labels, "resource"), "step %d", i)
				}
				changes, err = cycle(ctx, reg, step.desired)
				require.NoError(t, err)
				assert.False(t, changes.HasChanges(), "step %d: converged", i)
			}
		})
	}
}

// TestEncryptedOldValueWithoutRead: without a preceding read the old side
// of a delete is rebuilt from the labels — encrypted with the nonce label
// when there is one, in either mode.
func TestEncryptedOldValueWithoutRead(t *testing.T) {
	for _, mode := range []txt.EncryptionMode{txt.EncryptionReadWrite, txt.EncryptionDecryptOnly} {
		ctx := context.Background()
		zone := newZone()
		_, err := cycle(ctx, newRegistry(t, zone, txt.Config{EncryptionKey: []byte(testKey)}), []*endpoint.Endpoint{svc("app", "192.0.2.1")})
		require.NoError(t, err)
		value := txtValues(t, zone)["a-app.example.com"]
		recs, err := newRegistry(t, zone, txt.Config{EncryptionKey: []byte(testKey)}).Records(ctx)
		require.NoError(t, err)

		rp := providertest.NewRecordingProvider(zone)
		reg := newRegistry(t, rp, txt.Config{EncryptionKey: []byte(testKey), EncryptionMode: mode})
		require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: recs}))
		got := lastApply(t, rp)
		require.Len(t, got.Delete, 2)
		assert.Equal(t, value, got.Delete[1].Targets[0], "mode %d", mode)
		assert.Empty(t, zoneDump(t, zone))
	}
}

func TestEncryptionModeValidation(t *testing.T) {
	tests := []struct {
		name    string
		cfg     txt.Config
		wantMsg string
	}{
		{name: "decrypt-only without key", cfg: txt.Config{OwnerID: "o", EncryptionMode: txt.EncryptionDecryptOnly}, wantMsg: "needs an EncryptionKey"},
		{name: "unknown mode", cfg: txt.Config{OwnerID: "o", EncryptionKey: []byte(testKey), EncryptionMode: 7}, wantMsg: "EncryptionMode 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := txt.New(newZone(), tt.cfg)
			require.ErrorIs(t, err, txt.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

// txtValues returns the first target of every TXT record of the zone by
// name.
func txtValues(t *testing.T, p interface {
	Records(context.Context) ([]*endpoint.Endpoint, error)
}) map[string]string {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	out := map[string]string{}
	for _, r := range recs {
		if r.RecordType == endpoint.RecordTypeTXT {
			out[r.DNSName] = r.Targets[0]
		}
	}
	return out
}

// TestNonceLabelOnRecordsSent: with encrypted values, every record
// ApplyChanges sends carries the txt-encryption-nonce label, as with
// external-dns's TXT registry: a created record and the new side of an
// update the nonce of the TXT written beside it (or of the encrypted TXT
// that stays), the old side of an update and a deleted record the nonce of
// their TXT as read, or a fresh one when that TXT was plain. The ownership
// TXT records carry none; without encrypted writes no new record carries
// one.
func TestNonceLabelOnRecordsSent(t *testing.T) {
	readWrite := txt.Config{EncryptionKey: []byte(testKey)}
	decryptOnly := txt.Config{EncryptionKey: []byte(testKey), EncryptionMode: txt.EncryptionDecryptOnly}
	plain := txt.Config{}
	// Where the nonce label of a record sent comes from.
	const (
		newTXT  = "the TXT written in the same list pair (Create or UpdateNew)"
		oldTXT  = "the TXT replaced or deleted (UpdateOld or Delete)"
		zoneTXT = "the TXT in the zone before the call"
		fresh   = "a valid nonce of its own"
		none    = "no nonce label"
	)
	type want struct{ list, name, nonce string }
	tests := []struct {
		name    string
		start   *txt.Config // writes app (192.0.2.1) first; nil: empty zone
		orphan  bool        // then removes the A record, leaving its TXT
		cfg     txt.Config
		desired []*endpoint.Endpoint
		want    []want
	}{
		{
			name: "create", cfg: readWrite,
			desired: []*endpoint.Endpoint{svc("app", "192.0.2.1")},
			want:    []want{{"create", "app", newTXT}},
		},
		{
			name: "update of a record read encrypted", start: &readWrite, cfg: readWrite,
			desired: []*endpoint.Endpoint{svc("app", "192.0.2.2"), svc("new", "192.0.2.3")},
			want:    []want{{"updateOld", "app", oldTXT}, {"updateNew", "app", newTXT}, {"create", "new", newTXT}},
		},
		{
			name: "delete of a record read encrypted", start: &readWrite, cfg: readWrite,
			want: []want{{"delete", "app", oldTXT}},
		},
		{
			name: "update of a record read plain", start: &plain, cfg: readWrite,
			desired: []*endpoint.Endpoint{svc("app", "192.0.2.2")},
			want:    []want{{"updateOld", "app", fresh}, {"updateNew", "app", newTXT}},
		},
		{
			name: "delete of a record read plain", start: &plain, cfg: readWrite,
			want: []want{{"delete", "app", fresh}},
		},
		{
			name: "create reusing an encrypted TXT of ours", start: &readWrite, orphan: true, cfg: readWrite,
			desired: []*endpoint.Endpoint{svc("app", "192.0.2.1")},
			want:    []want{{"create", "app", zoneTXT}},
		},
		{
			name: "create reusing a plain TXT of ours", start: &plain, orphan: true, cfg: readWrite,
			desired: []*endpoint.Endpoint{svc("app", "192.0.2.1")},
			want:    []want{{"create", "app", fresh}},
		},
		{
			name: "decrypt-only: the old side as read, nothing on the new side", start: &readWrite, cfg: decryptOnly,
			desired: []*endpoint.Endpoint{svc("app", "192.0.2.2"), svc("new", "192.0.2.3")},
			want:    []want{{"updateOld", "app", oldTXT}, {"updateNew", "app", none}, {"create", "new", none}},
		},
		{
			name: "plain", start: &plain, cfg: plain,
			desired: []*endpoint.Endpoint{svc("app", "192.0.2.2"), svc("new", "192.0.2.3")},
			want:    []want{{"updateOld", "app", none}, {"updateNew", "app", none}, {"create", "new", none}},
		},
	}
	key, err := endpoint.ParseEncryptionKey([]byte(testKey))
	require.NoError(t, err)
	// nonceOf returns the nonce an ownership TXT value is encrypted with,
	// "" for a plain value.
	nonceOf := func(t *testing.T, value string) string {
		t.Helper()
		labels, err := endpoint.ParseLabelsWithKey(value, key)
		require.NoError(t, err)
		return labelValue(labels, endpoint.TxtEncryptionNonceLabelKey)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone()
			if tt.start != nil {
				_, err := cycle(ctx, newRegistry(t, zone, *tt.start), []*endpoint.Endpoint{svc("app", "192.0.2.1")})
				require.NoError(t, err)
			}
			if tt.orphan {
				require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1")}}))
			}
			before := txtValues(t, zone)
			rp := providertest.NewRecordingProvider(zone)
			_, err := cycle(ctx, newRegistry(t, rp, tt.cfg), tt.desired)
			require.NoError(t, err)
			got := lastApply(t, rp)
			lists := map[string][]*endpoint.Endpoint{"create": got.Create, "updateOld": got.UpdateOld, "updateNew": got.UpdateNew, "delete": got.Delete}
			// The ownership TXT of name in the lists given.
			txtIn := func(name string, in ...string) string {
				for _, l := range in {
					for _, ep := range lists[l] {
						if ep.RecordType == endpoint.RecordTypeTXT && ep.DNSName == "a-"+name+".example.com" {
							return ep.Targets[0]
						}
					}
				}
				t.Fatalf("no ownership TXT of %s in %v", name, in)
				return ""
			}
			n := 0
			for list, eps := range lists {
				for _, ep := range eps {
					if ep.RecordType == endpoint.RecordTypeTXT {
						assert.NotContains(t, maps.Collect(ep.Labels.All()), endpoint.TxtEncryptionNonceLabelKey, "%s %s: an ownership TXT", list, ep.DNSName)
						continue
					}
					n++
					name := strings.TrimSuffix(ep.DNSName, ".example.com")
					i := slices.IndexFunc(tt.want, func(w want) bool { return w.list == list && w.name == name })
					require.GreaterOrEqual(t, i, 0, "unexpected %s %s", list, ep.DNSName)
					nonce, has := ep.Labels.Get(endpoint.TxtEncryptionNonceLabelKey)
					switch w := tt.want[i]; w.nonce {
					case none:
						assert.False(t, has, "%s %s carries %q", list, name, nonce)
						continue
					case newTXT:
						assert.Equal(t, nonceOf(t, txtIn(name, "create", "updateNew")), nonce, "%s %s: %s", list, name, w.nonce)
					case oldTXT:
						assert.Equal(t, nonceOf(t, txtIn(name, "updateOld", "delete")), nonce, "%s %s: %s", list, name, w.nonce)
					case zoneTXT:
						assert.Equal(t, nonceOf(t, before["a-"+name+".example.com"]), nonce, "%s %s: %s", list, name, w.nonce)
					case fresh:
						n, err := base64.StdEncoding.DecodeString(nonce)
						require.NoError(t, err, "%s %s: %q", list, name, nonce)
						assert.Len(t, n, 12, "%s %s", list, name)
					}
					assert.NotEmpty(t, nonce, "%s %s: %s", list, name, tt.want[i].nonce)
				}
			}
			assert.Equal(t, len(tt.want), n, "records sent")
		})
	}
}
