package source_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/source"
)

var webRef = source.ObjectRef{Kind: "Service", Namespace: "default", Name: "web"}

func TestObjectRef(t *testing.T) {
	tests := []struct {
		ref       source.ObjectRef
		key, name string
	}{
		{webRef, "service/default/web", "Service default/web"},
		{source.ObjectRef{Kind: "Node", Name: "worker-1"}, "node/worker-1", "Node worker-1"},
		{source.ObjectRef{Kind: "HTTPRoute", Namespace: "team", Name: "r"}, "httproute/team/r", "HTTPRoute team/r"},
		{source.ObjectRef{Namespace: "ns", Name: "x"}, "/ns/x", "object ns/x"},
		// Names the API server did not check (a reference in a spec, an
		// annotation value) are escaped in errors, not in keys.
		{source.ObjectRef{Kind: "Ingress", Namespace: "ns\x1b[31m", Name: "a\nFORGED"}, "ingress/ns\x1b[31m/a\nFORGED", `Ingress "ns\x1b[31m"/"a\nFORGED"`},
		{source.ObjectRef{Kind: "Node\x00", Name: "n"}, "node\x00/n", `"Node\x00" n`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.key, tt.ref.Key())
		assert.Equal(t, tt.name, tt.ref.String())
	}
}

func TestObjectRefKey(t *testing.T) {
	tests := []struct {
		name string
		ref  source.ObjectRef
		want string
	}{
		{"namespaced kind in lower case", source.ObjectRef{Kind: "Service", Namespace: "default", Name: "web"}, "service/default/web"},
		{"cluster-scoped", source.ObjectRef{Kind: "Node", Name: "worker-1"}, "node/worker-1"},
		{"resource as external-dns spells it", source.ObjectRef{Kind: "DNSEndpoint", Namespace: "ns", Name: "x", Resource: "crd/ns/x"}, "crd/ns/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.ref.Key())
		})
	}
}
