package events_test

import (
	"strings"
	"testing"

	"github.com/zonesync/zonesync/source/kubernetes/events"
)

// FuzzDefaultResolver: resource keys come from TXT records in DNS, so any
// string may reach the resolver. It must not panic, and what it resolves
// must name the object of the key.
func FuzzDefaultResolver(f *testing.F) {
	for _, s := range []string{"service/ns/web", "crd/ns/x", "node/n1", "", "/", "//", "service//", "HTTPProxy/a/b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		ref, ok := events.DefaultResolver(key)
		if !ok {
			if ref != nil {
				t.Fatalf("%q: a reference without ok", key)
			}
			return
		}
		parts := strings.Split(key, "/")
		if ref.Name == "" || ref.Name != parts[len(parts)-1] || ref.Kind == "" || ref.APIVersion == "" {
			t.Fatalf("%q resolved to %+v", key, ref)
		}
		if len(parts) == 3 && ref.Namespace != parts[1] {
			t.Fatalf("%q: namespace %q", key, ref.Namespace)
		}
	})
}
