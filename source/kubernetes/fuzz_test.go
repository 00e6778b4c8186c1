package kubernetes

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"

	"github.com/zonesync/zonesync/endpoint"
)

// FuzzDNSEndpointSpec feeds arbitrary JSON as a DNSEndpoint object: the
// source must never panic, and what it accepts must be valid endpoints
// labelled with the object.
func FuzzDNSEndpointSpec(f *testing.F) {
	f.Add(`{"spec":{"endpoints":[{"dnsName":"a.example.com","recordType":"A","targets":["192.0.2.1"],"recordTTL":60}]}}`)
	f.Add(`{"spec":{"endpoints":[{"dnsName":"t.example.com","recordType":"TXT","targets":["x"],"labels":{"a":"b"},"providerSpecific":[{"name":"alias","value":"true"}]}]}}`)
	f.Add(`{"spec":{"endpoints":[null]}}`)
	f.Add(`{"spec":{"endpoints":"nope"}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var m map[string]any
		if json.Unmarshal([]byte(doc), &m) != nil {
			return
		}
		u := &unstructured.Unstructured{Object: m}
		ref := objectRef(u, "DNSEndpoint")
		eps, err := dnsEndpointEndpoints(ref, u)
		if err != nil {
			if !strings.Contains(err.Error(), "DNSEndpoint") {
				t.Fatalf("error does not name the object: %v", err)
			}
			return
		}
		for _, ep := range eps {
			if err := ep.Validate(); err != nil {
				t.Fatalf("accepted an invalid endpoint %v: %v", ep, err)
			}
			if labelValue(ep.Labels, endpoint.ResourceLabelKey) != ref.Key() {
				t.Fatalf("endpoint %v lacks the resource label", ep)
			}
		}
	})
}

// FuzzJSONPathValues runs a fixed JSON path over arbitrary objects: it
// returns strings or an error, never panics.
func FuzzJSONPathValues(f *testing.F) {
	f.Add(`{"status":{"addresses":[{"ip":"192.0.2.1"},{"ip":"2001:db8::1"}]}}`)
	f.Add(`{"status":{"addresses":[{"ip":7}]}}`)
	f.Add(`{"status":{"addresses":"a,b"}}`)
	p := jsonpath.New("t").AllowMissingKeys(true)
	if err := p.Parse("{.status.addresses[*].ip}"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var m map[string]any
		if json.Unmarshal([]byte(doc), &m) != nil {
			return
		}
		vals, err := jsonPathValues(p, m)
		if err != nil {
			return
		}
		for _, v := range vals {
			if v == "" || strings.Contains(v, ",") {
				t.Fatalf("value %q not split or trimmed", v)
			}
		}
	})
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}
