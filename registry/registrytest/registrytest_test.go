package registrytest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/registrytest"
	"github.com/zonesync/zonesync/registry/txt"
)

// txtRegistry returns a NewRegistry building TXT registries with cfg and
// the owner id the checker gives.
func txtRegistry(cfg txt.Config) registrytest.NewRegistry {
	return func(p provider.Provider, ownerID string) (registry.Registry, error) {
		cfg.OwnerID = ownerID
		return txt.New(p, cfg)
	}
}

func TestTXTRegistry(t *testing.T) {
	for name, cfg := range map[string]txt.Config{
		"default":          {},
		"prefix":           {Prefix: "own-"},
		"templated prefix": {Prefix: "%{record_type}-own."},
		"suffix":           {Suffix: "-own"},
		"encryption":       {EncryptionKey: []byte("0123456789abcdef0123456789abcdef")},
		"old owner":        {OldOwnerID: "previous-owner"},
		"shared":           {Shared: &txt.SharedConfig{}},
		"shared encrypted": {Shared: &txt.SharedConfig{}, EncryptionKey: []byte("0123456789abcdef0123456789abcdef")},
		"shared prefix":    {Shared: &txt.SharedConfig{}, Prefix: "%{record_type}-own."},
	} {
		t.Run(name, func(t *testing.T) {
			registrytest.TestRegistry(t, txtRegistry(cfg), registrytest.Options{PerZone: true, Shared: cfg.Shared != nil})
		})
	}
}

func TestNoopRegistry(t *testing.T) {
	registrytest.TestRegistry(t, func(p provider.Provider, _ string) (registry.Registry, error) {
		return noop.New(p), nil
	}, registrytest.Options{NoOwnership: true})
}

func TestNoopBreaksOwnershipRules(t *testing.T) {
	err := registrytest.CheckRegistry(context.Background(), func(p provider.Provider, _ string) (registry.Registry, error) {
		return noop.New(p), nil
	}, registrytest.Options{})
	require.Error(t, err)
}

// A registry declared to keep its ownership data outside the provider must
// write nothing beside its records there: the TXT registry does.
func TestOwnershipOutsideProviderFlagsDataInProvider(t *testing.T) {
	err := registrytest.CheckRegistry(context.Background(), txtRegistry(txt.Config{}),
		registrytest.Options{OwnershipOutsideProvider: true, PerZone: true})
	var rules []string
	for _, e := range provider.ErrorParts(err) {
		var v *registrytest.Violation
		if errors.As(e, &v) {
			rules = append(rules, v.Rule+": "+v.Msg)
		}
	}
	require.Equal(t, []string{registrytest.RuleOwnershipTravelsWithRecord +
		": wrote 1 record(s) beside it that Records does not report; a registry that keeps its ownership data outside the provider writes none"}, rules)
}

// A registry that declares PerZone but hands the provider the whole change
// set in one call fails the optional check; without the declaration it is
// not checked, as the contract does not ask for it.
func TestPerZoneIsOptional(t *testing.T) {
	newNoop := func(p provider.Provider, _ string) (registry.Registry, error) { return noop.New(p), nil }
	require.NoError(t, registrytest.CheckRegistry(context.Background(), newNoop, registrytest.Options{NoOwnership: true}))
	err := registrytest.CheckRegistry(context.Background(), newNoop, registrytest.Options{NoOwnership: true, PerZone: true})
	var v *registrytest.Violation
	require.ErrorAs(t, err, &v)
	require.Equal(t, registrytest.RulePerZoneErrors, v.Rule)
}

// A TXT registry not in shared mode fails the shared-mode checks: a second
// owner's create is skipped, not merged.
func TestSharedIsOptional(t *testing.T) {
	err := registrytest.CheckRegistry(context.Background(), txtRegistry(txt.Config{}), registrytest.Options{PerZone: true, Shared: true})
	var rules []string
	for _, e := range provider.ErrorParts(err) {
		var v *registrytest.Violation
		if errors.As(e, &v) {
			rules = append(rules, v.Rule)
		}
	}
	require.Contains(t, rules, registrytest.RuleSharedContributions)
	require.NotContains(t, rules, registrytest.RuleSharedForeignNotJoined)
}
