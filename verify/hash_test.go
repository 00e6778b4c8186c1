package verify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/verify"
)

func TestHash(t *testing.T) {
	base := []*endpoint.Endpoint{
		ep("www.example.org", "A", "192.0.2.1", "192.0.2.2"),
		ep("api.example.org", "CNAME", "www.example.org"),
	}
	h := verify.Hash(base)
	assert.Len(t, h, 64)
	// A fixed input has a fixed hash, across runs and releases (callers
	// store it). The value was computed independently from the encoding
	// documented on Hash (Python's hashlib over the length-prefixed
	// fields).
	assert.Equal(t, "45f5277eb22562385e0cd7ac7cd1cda4ee8d5e332720368655e6d9ae1158f251", verify.Hash(base), "golden hash changed")

	same := []*endpoint.Endpoint{
		ep("API.example.org.", "CNAME", "WWW.example.org."),
		nil,
		ep("www.example.org", "A", "192.0.2.2", "192.0.2.1").WithLabel("owner", "x"),
		ep("www.example.org", "A", "192.0.2.1", "192.0.2.2"),
	}
	assert.Equal(t, h, verify.Hash(same), "order, case, dots, labels and duplicates do not count")

	for name, other := range map[string][]*endpoint.Endpoint{
		"target": {ep("www.example.org", "A", "192.0.2.1", "192.0.2.3"), base[1]},
		"type":   {ep("www.example.org", "AAAA", "192.0.2.1", "192.0.2.2"), base[1]},
		"ttl":    {endpoint.NewEndpointWithTTL("www.example.org", "A", 60, "192.0.2.1", "192.0.2.2"), base[1]},
		"set id": {ep("www.example.org", "A", "192.0.2.1", "192.0.2.2").WithSetIdentifier("eu"), base[1]},
		"fewer":  {base[0]},
		"split":  {ep("www.example.org", "A", "192.0.2.1"), ep("www.example.org", "A", "192.0.2.2"), base[1]},
	} {
		assert.NotEqual(t, h, verify.Hash(other), name)
	}
	assert.Equal(t, verify.Hash(nil), verify.Hash([]*endpoint.Endpoint{}))
}
