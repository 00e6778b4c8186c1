package sourcetest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/sourcetest"
)

func ExampleFake() {
	src := sourcetest.NewFake("example.com", 3, sourcetest.FakeOptions{Seed: 1})
	eps, _ := src.Endpoints(context.Background())
	for _, ep := range eps {
		fmt.Println(ep.RecordType, ep.Validate() == nil)
	}
	// Output:
	// A true
	// A true
	// A true
}

// A source author runs CheckSource on their source, with a way to change
// what it returns; here the source is a source.Static and Set changes it.
func ExampleCheckSource() {
	src := source.NewStatic(endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.10"))
	err := sourcetest.CheckSource(context.Background(), src, sourcetest.Options{
		Change: func(context.Context) error {
			src.Add(endpoint.NewEndpoint("api.example.com", endpoint.RecordTypeA, "192.0.2.11"))
			return nil
		},
	})
	fmt.Println("violations:", err)

	// A source that hands out the endpoints it holds breaks the contract.
	err = sourcetest.CheckSource(context.Background(), leaky{endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.10")}, sourcetest.Options{})
	var v *sourcetest.Violation
	if errors.As(err, &v) {
		fmt.Println("violation of", v.Rule)
	}
	// Output:
	// violations: <nil>
	// violation of SliceOwnership
}

// leaky returns the endpoints it holds instead of copies.
type leaky []*endpoint.Endpoint

func (l leaky) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return slices.Clone(l), nil
}

func (leaky) AddEventHandler(context.Context, func()) {}
