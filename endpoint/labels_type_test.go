package endpoint_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

// checkSorted fails t unless l yields strictly increasing keys, as many as
// Len says, and is the zero value when empty.
func checkSorted(t testing.TB, l endpoint.Labels) {
	t.Helper()
	n, prev := 0, ""
	for k := range l.All() {
		if n > 0 && k <= prev {
			t.Fatalf("labels %v: key %q after %q", l, k, prev)
		}
		prev = k
		n++
	}
	if n != l.Len() {
		t.Fatalf("labels %v: All yields %d labels, Len says %d", l, n, l.Len())
	}
	if n == 0 && !reflect.DeepEqual(l, endpoint.Labels{}) {
		t.Fatalf("empty labels %#v are not the zero value", l)
	}
}

// pairsOf lists the labels of l in the order All yields them.
func pairsOf(l endpoint.Labels) [][2]string {
	var out [][2]string
	for k, v := range l.All() {
		out = append(out, [2]string{k, v})
	}
	return out
}

func TestLabelsSetGetDelete(t *testing.T) {
	type op struct {
		del        bool
		key, value string
	}
	set := func(k, v string) op { return op{key: k, value: v} }
	del := func(k string) op { return op{del: true, key: k} }
	tests := []struct {
		name string
		ops  []op
		want [][2]string
	}{
		{"zero value", nil, nil},
		{"one label", []op{set("owner", "a")}, [][2]string{{"owner", "a"}}},
		{"kept in byte order", []op{set("resource", "r"), set("owner", "o"), set("Z", "z"), set("ownedRecord", "x"), set("", "e")},
			[][2]string{{"", "e"}, {"Z", "z"}, {"ownedRecord", "x"}, {"owner", "o"}, {"resource", "r"}}},
		{"set replaces", []op{set("owner", "a"), set("resource", "r"), set("owner", "b")}, [][2]string{{"owner", "b"}, {"resource", "r"}}},
		{"set of the same value", []op{set("owner", "a"), set("owner", "a")}, [][2]string{{"owner", "a"}}},
		{"empty value is a value", []op{set("owner", "")}, [][2]string{{"owner", ""}}},
		{"delete first, middle, last", []op{set("a", "1"), set("b", "2"), set("c", "3"), set("d", "4"), del("a"), del("c"), del("d")},
			[][2]string{{"b", "2"}}},
		{"delete of a missing key", []op{set("a", "1"), del("b"), del("")}, [][2]string{{"a", "1"}}},
		{"delete on the zero value", []op{del("a")}, nil},
		{"delete of the last label gives the zero value", []op{set("a", "1"), set("b", "2"), del("b"), del("a")}, nil},
		{"set after emptying", []op{set("a", "1"), del("a"), set("b", "2")}, [][2]string{{"b", "2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l endpoint.Labels
			ref := map[string]string{}
			for _, o := range tt.ops {
				if o.del {
					l.Delete(o.key)
					delete(ref, o.key)
				} else {
					l.Set(o.key, o.value)
					ref[o.key] = o.value
				}
				checkSorted(t, l)
			}
			assert.Equal(t, tt.want, pairsOf(l))
			assert.Equal(t, len(tt.want), l.Len())
			for _, p := range tt.want {
				v, ok := l.Get(p[0])
				assert.True(t, ok, p[0])
				assert.Equal(t, p[1], v, p[0])
			}
			_, ok := l.Get("not-set")
			assert.False(t, ok)
			assert.Equal(t, endpoint.LabelsFromMap(ref), l, "the same labels as LabelsFromMap gives, field for field")
			assert.True(t, endpoint.LabelsFromMap(ref).Equal(l))
		})
	}
}

func TestLabelsFromMap(t *testing.T) {
	assert.Equal(t, endpoint.Labels{}, endpoint.LabelsFromMap(nil))
	assert.Equal(t, endpoint.Labels{}, endpoint.LabelsFromMap(map[string]string{}))
	l := endpoint.LabelsFromMap(map[string]string{"owner": "o", "a": "1", "resource": "r"})
	checkSorted(t, l)
	assert.Equal(t, [][2]string{{"a", "1"}, {"owner", "o"}, {"resource", "r"}}, pairsOf(l))
	assert.Equal(t, map[string]string{"owner": "o", "a": "1", "resource": "r"}, maps.Collect(l.All()))
}

func TestLabelsAllStopsEarly(t *testing.T) {
	l := endpoint.LabelsFromMap(map[string]string{"a": "1", "b": "2", "c": "3"})
	var seen []string
	for k := range l.All() {
		seen = append(seen, k)
		if k == "b" {
			break
		}
	}
	assert.Equal(t, []string{"a", "b"}, seen)
	for range (endpoint.Labels{}).All() {
		t.Fatal("the zero value yields nothing")
	}
}

func TestLabelsEqual(t *testing.T) {
	a := endpoint.LabelsFromMap(map[string]string{"owner": "o", "resource": "r"})
	tests := []struct {
		name string
		b    endpoint.Labels
		want bool
	}{
		{"same", endpoint.LabelsFromMap(map[string]string{"resource": "r", "owner": "o"}), true},
		{"value differs", endpoint.LabelsFromMap(map[string]string{"owner": "o", "resource": "x"}), false},
		{"key differs", endpoint.LabelsFromMap(map[string]string{"Owner": "o", "resource": "r"}), false},
		{"fewer", endpoint.LabelsFromMap(map[string]string{"owner": "o"}), false},
		{"empty", endpoint.Labels{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, a.Equal(tt.b))
			assert.Equal(t, tt.want, tt.b.Equal(a))
		})
	}
	assert.True(t, endpoint.Labels{}.Equal(endpoint.Labels{}))
}

// TestLabelsCopiesAreIndependent: a Labels copied by assignment, by
// DeepCopy or by DeepCopyAll never sees a Set or Delete on another copy.
func TestLabelsCopiesAreIndependent(t *testing.T) {
	orig := map[string]string{"owner": "o", "resource": "r"}
	mutations := []struct {
		name string
		f    func(*endpoint.Labels)
	}{
		{"replace a value", func(l *endpoint.Labels) { l.Set("owner", "other") }},
		{"insert before", func(l *endpoint.Labels) { l.Set("a", "x") }},
		{"insert after", func(l *endpoint.Labels) { l.Set("z", "x") }},
		{"delete", func(l *endpoint.Labels) { l.Delete("owner") }},
		{"delete all", func(l *endpoint.Labels) { l.Delete("owner"); l.Delete("resource") }},
	}
	copies := []struct {
		name string
		f    func(*endpoint.Endpoint) *endpoint.Endpoint
	}{
		{"assignment", func(e *endpoint.Endpoint) *endpoint.Endpoint { c := *e; return &c }},
		{"DeepCopy", (*endpoint.Endpoint).DeepCopy},
		{"DeepCopyAll", func(e *endpoint.Endpoint) *endpoint.Endpoint {
			return endpoint.DeepCopyAll([]*endpoint.Endpoint{e, e})[1]
		}},
	}
	for _, c := range copies {
		for _, m := range mutations {
			t.Run(c.name+"/"+m.name, func(t *testing.T) {
				ep := &endpoint.Endpoint{DNSName: "a.example.com", Labels: endpoint.LabelsFromMap(orig)}
				cp := c.f(ep)
				require.Equal(t, ep, cp)
				m.f(&cp.Labels)
				assert.Equal(t, orig, maps.Collect(ep.Labels.All()), "the original is unchanged")
				m.f(&ep.Labels)
				assert.Equal(t, ep, cp, "the same mutation gives equal endpoints")
				checkSorted(t, cp.Labels)
			})
		}
	}
	t.Run("DeepCopyAll copies do not share with each other", func(t *testing.T) {
		eps := []*endpoint.Endpoint{
			{DNSName: "a", Labels: endpoint.LabelsFromMap(map[string]string{"k": "1"})},
			{DNSName: "b"},
			{DNSName: "c", Labels: endpoint.LabelsFromMap(map[string]string{"k": "3"})},
		}
		out := endpoint.DeepCopyAll(eps)
		out[0].Labels.Set("l", "x")
		out[1].Labels.Set("k", "2")
		assert.Equal(t, [][2]string{{"k", "1"}, {"l", "x"}}, pairsOf(out[0].Labels))
		assert.Equal(t, [][2]string{{"k", "2"}}, pairsOf(out[1].Labels))
		assert.Equal(t, [][2]string{{"k", "3"}}, pairsOf(out[2].Labels))
		assert.Equal(t, endpoint.Labels{}, eps[1].Labels)
	})
}

// labelsJSONCases are label sets whose JSON must be what a map gives.
var labelsJSONCases = []map[string]string{
	nil,
	{},
	{"owner": "default"},
	{"owner": "o", "resource": "service/default/app", "ownedRecord": "a.example.com", "Z": "", "": "empty key"},
	{"html": "<a&b>", "quote": `say "hi" \ back`, "ctl": "\x00\x01\b\f\n\r\t\x1f\x7f", "uni": "bücher \u2028\u2029 😀"},
	{"bad\xffutf8": "x\xc3", "é": "\xed\xa0\x80"},
}

func TestLabelsJSON(t *testing.T) {
	for _, m := range labelsJSONCases {
		l := endpoint.LabelsFromMap(m)
		want, err := json.Marshal(m)
		require.NoError(t, err)
		if m == nil {
			want = []byte(`{}`) // labels have no null form
		}
		got, err := json.Marshal(l)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "json.Marshal of %q", m)

		var mapBuf, labelsBuf bytes.Buffer
		me, le := json.NewEncoder(&mapBuf), json.NewEncoder(&labelsBuf)
		me.SetEscapeHTML(false)
		le.SetEscapeHTML(false)
		require.NoError(t, me.Encode(maps.Collect(l.All())))
		require.NoError(t, le.Encode(l))
		assert.Equal(t, mapBuf.String(), labelsBuf.String(), "without HTML escaping, %q", m)

		direct, err := l.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, strings.TrimSuffix(mapBuf.String(), "\n"), string(direct), "MarshalJSON writes no HTML escapes itself")

		var back endpoint.Labels
		require.NoError(t, json.Unmarshal(got, &back))
		checkSorted(t, back)
		var mapBack map[string]string
		require.NoError(t, json.Unmarshal(got, &mapBack))
		assert.Equal(t, endpoint.LabelsFromMap(mapBack), back, "decoding %s gives what the map gives", got)
		if utf8.ValidString(fmt.Sprint(m)) {
			assert.Equal(t, l, back, "round trip of %s", got)
		}
	}
}

func TestLabelsUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    [][2]string
		wantErr bool
	}{
		{"object", `{"resource":"r","owner":"o"}`, [][2]string{{"owner", "o"}, {"resource", "r"}, {"stale", "x"}}, false},
		{"a key already set is replaced", `{"stale":"y"}`, [][2]string{{"stale", "y"}}, false},
		{"empty object adds nothing", `{}`, [][2]string{{"stale", "x"}}, false},
		{"null is the zero value", `null`, nil, false},
		{"a repeated key keeps its last value", `{"a":"1","b":"2","a":"3"}`, [][2]string{{"a", "3"}, {"b", "2"}, {"stale", "x"}}, false},
		{"escapes decoded", `{"\u003c":"\n\u00e9\ud83d\ude00"}`, [][2]string{{"<", "\né😀"}, {"stale", "x"}}, false},
		{"white space", " { \"a\" : \"1\" } ", [][2]string{{"a", "1"}, {"stale", "x"}}, false},
		{"number value", `{"a":1}`, nil, true},
		{"null value", `{"a":null}`, [][2]string{{"a", ""}, {"stale", "x"}}, false}, // as encoding/json decodes a map
		{"object value", `{"a":{}}`, nil, true},
		{"array", `[]`, nil, true},
		{"string", `"a"`, nil, true},
		{"truncated", `{"a":"1"`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := map[string]string{"stale": "x"}
			refErr := json.Unmarshal([]byte(tt.in), &ref)
			assert.Equal(t, tt.wantErr, refErr != nil, "the case agrees with encoding/json on a map: %v", refErr)

			l := endpoint.LabelsFromMap(map[string]string{"stale": "x"})
			err := json.Unmarshal([]byte(tt.in), &l)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			checkSorted(t, l)
			assert.Equal(t, tt.want, pairsOf(l), "decoding adds to the labels, as for a map")
			assert.Equal(t, nilIfEmpty(ref), nilIfEmpty(maps.Collect(l.All())))
		})
	}
	t.Run("in an endpoint", func(t *testing.T) {
		var ep endpoint.Endpoint
		require.NoError(t, json.Unmarshal([]byte(`{"dnsName":"a","labels":{}}`), &ep))
		assert.Equal(t, endpoint.Endpoint{DNSName: "a"}, ep)
		require.NoError(t, json.Unmarshal([]byte(`{"labels":{"owner":"o"}}`), &ep))
		require.NoError(t, json.Unmarshal([]byte(`{"labels":null}`), &ep))
		assert.Equal(t, endpoint.Endpoint{DNSName: "a"}, ep)
		// A key named twice: the second object adds to the first, as with
		// external-dns's map.
		require.NoError(t, json.Unmarshal([]byte(`{"labels":{"a":"1","b":"2"},"Labels":{"b":"3"}}`), &ep))
		assert.Equal(t, [][2]string{{"a", "1"}, {"b", "3"}}, pairsOf(ep.Labels))
		var m struct{ Labels map[string]string }
		require.NoError(t, json.Unmarshal([]byte(`{"labels":{"a":"1","b":"2"},"Labels":{"b":"3"}}`), &m))
		assert.Equal(t, m.Labels, maps.Collect(ep.Labels.All()))
	})
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// FuzzLabelsJSON decodes arbitrary bytes as labels and as a
// map[string]string: both must succeed or fail together, hold the same
// entries, and encode to the same bytes (with and without HTML escaping).
func FuzzLabelsJSON(f *testing.F) {
	for _, m := range labelsJSONCases {
		data, err := json.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{`null`, `{"a":"1","a":"2"}`, `{"a":1}`, `{"a":null}`, `[]`, `{"\ud800":"\udc00x"}`, ` {"b":"","a":"\/"} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ref map[string]string
		refErr := json.Unmarshal(data, &ref)
		var l endpoint.Labels
		err := json.Unmarshal(data, &l)
		if (err == nil) != (refErr == nil) {
			t.Fatalf("decoding %q: labels error %v, map error %v", data, err, refErr)
		}
		if err != nil {
			return
		}
		checkSorted(t, l)
		if !maps.Equal(ref, maps.Collect(l.All())) {
			t.Fatalf("decoding %q: labels %v, map %q", data, l, ref)
		}
		if ref == nil {
			ref = map[string]string{}
		}
		want, err := json.Marshal(ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(l)
		if err != nil {
			t.Fatalf("marshal %v: %v", l, err)
		}
		if !bytes.Equal(want, got) {
			t.Fatalf("decoded from %q: labels encode as %s, the map as %s", data, got, want)
		}
		var mapBuf, labelsBuf bytes.Buffer
		me, le := json.NewEncoder(&mapBuf), json.NewEncoder(&labelsBuf)
		me.SetEscapeHTML(false)
		le.SetEscapeHTML(false)
		if err := me.Encode(ref); err != nil {
			t.Fatal(err)
		}
		if err := le.Encode(l); err != nil {
			t.Fatal(err)
		}
		if mapBuf.String() != labelsBuf.String() {
			t.Fatalf("without HTML escaping: labels %s, map %s", labelsBuf.Bytes(), mapBuf.Bytes())
		}
	})
}
