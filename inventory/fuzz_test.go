package inventory_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/zonesync/zonesync/inventory"
)

// FuzzParseQuery feeds raw query strings, as a request carries them, to
// ParseQuery: it must never panic, must fail only with ErrBadQuery, and a
// query it accepts must survive its own encoding (the links of the page
// and the ETag are built from it).
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"", "group=web&status=applied", "status=sync&limit=500&offset=1000", "name=b%C3%BCcher&source=ingress",
		"format=json", "format=xml", "limit=-1", "limit=99999999999999999999", "status=a&status=b",
		"group=%3Cscript%3E", "name=%FF", "offset=007", "limit=+1", "limit=0x10",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		values, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := inventory.ParseQuery(values)
		if err != nil {
			if !errors.Is(err, inventory.ErrBadQuery) {
				t.Fatalf("ParseQuery(%q): error without ErrBadQuery: %v", raw, err)
			}
			return
		}
		if q.Offset < 0 || q.Limit < 0 {
			t.Fatalf("ParseQuery(%q): negative offset or limit: %+v", raw, q)
		}
		again, err := inventory.ParseQuery(q.Values())
		if err != nil {
			t.Fatalf("ParseQuery(%q) = %+v, whose Values %v do not parse: %v", raw, q, q.Values(), err)
		}
		if again != q {
			t.Fatalf("ParseQuery(%q) = %+v, but its Values parse to %+v", raw, q, again)
		}
	})
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		raw  string
		want inventory.Query
		bad  bool
	}{
		{raw: "", want: inventory.Query{}},
		{raw: "group=web&source=service&status=notsync&name=shop&offset=10&limit=20&format=json&utm=x",
			want: inventory.Query{Filter: inventory.Filter{Group: "web", SourceType: "service", Status: "notsync", Name: "shop", Offset: 10, Limit: 20}, Format: "json"}},
		{raw: "status=", want: inventory.Query{}},
		{raw: "status=unverified", want: inventory.Query{Filter: inventory.Filter{Status: "unverified"}}},
		{raw: "status=bogus", bad: true},
		{raw: "group=a&group=b", bad: true},
		{raw: "limit=-1", bad: true},
		{raw: "limit=1e3", bad: true},
		{raw: "offset=1073741825", bad: true},
		{raw: "format=xml", bad: true},
		{raw: "name=%FF", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			values, err := url.ParseQuery(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err := inventory.ParseQuery(values)
			if tt.bad {
				if !errors.Is(err, inventory.ErrBadQuery) {
					t.Fatalf("want ErrBadQuery, got %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
