package plan_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// TestValidatedVerdict: with Plan.Validated set the planner takes the
// caller's verdict and does not validate desired endpoints itself.
func TestValidatedVerdict(t *testing.T) {
	good := endpoint.NewEndpoint("good.example.org", endpoint.RecordTypeA, "192.0.2.1")
	bad := endpoint.NewEndpoint("bad.example.org", endpoint.RecordTypeA, "not-an-ip")
	require.Error(t, bad.Validate())
	refused := errors.New("refused by the caller")

	tests := []struct {
		name      string
		validated func(*endpoint.Endpoint) error
		creates   []string
		invalid   map[string]string // name -> detail
	}{
		{
			name:    "nil: the planner validates",
			creates: []string{"good.example.org"},
			invalid: map[string]string{"bad.example.org": bad.Validate().Error()},
		},
		{
			name: "the caller's verdict decides",
			validated: func(ep *endpoint.Endpoint) error {
				if ep == good {
					return refused
				}
				return nil
			},
			creates: []string{"bad.example.org"},
			invalid: map[string]string{"good.example.org": refused.Error()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := (&plan.Plan{Desired: []*endpoint.Endpoint{good, bad}, Validated: tt.validated}).Calculate()
			var creates []string
			for _, ep := range p.Changes.Create {
				creates = append(creates, ep.DNSName)
			}
			assert.Equal(t, tt.creates, creates)
			invalid := map[string]string{}
			for _, sk := range p.Skipped {
				if sk.Reason == plan.SkipInvalid {
					invalid[sk.Endpoint.DNSName] = sk.Detail
				}
			}
			assert.Equal(t, tt.invalid, invalid)
		})
	}
}
