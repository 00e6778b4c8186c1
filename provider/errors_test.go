package provider_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/provider"
)

func TestErrorParts(t *testing.T) {
	e1, e2, e3 := errors.New("one"), errors.New("two"), errors.New("three")
	wrapped := fmt.Errorf("zone b: %w", e2)
	soft := provider.NewSoftError(e3)
	for _, tc := range []struct {
		name string
		err  error
		want []error
	}{
		{name: "nil", err: nil, want: nil},
		{name: "single", err: e1, want: []error{e1}},
		{name: "joined", err: errors.Join(e1, wrapped), want: []error{e1, wrapped}},
		{name: "nested", err: errors.Join(e1, errors.Join(wrapped, soft)), want: []error{e1, wrapped, soft}},
		{name: "multi %w", err: fmt.Errorf("%w and %w", e1, e3), want: []error{e1, e3}},
		{name: "soft error stays whole", err: soft, want: []error{soft}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, provider.ErrorParts(tc.err))
		})
	}
}

func TestWalkErrors(t *testing.T) {
	e1, e2 := errors.New("one"), errors.New("two")
	wrapped := fmt.Errorf("w: %w", e2)
	tree := errors.Join(e1, wrapped)
	var all []error
	provider.WalkErrors(tree, func(e error) bool { all = append(all, e); return true })
	assert.Equal(t, []error{tree, e1, wrapped, e2}, all, "depth first, in order")

	var top []error
	provider.WalkErrors(tree, func(e error) bool { top = append(top, e); return e == tree })
	assert.Equal(t, []error{tree, e1, wrapped}, top, "false stops the descent below an error")

	provider.WalkErrors(nil, func(error) bool { t.Fatal("nil is not visited"); return true })
}
