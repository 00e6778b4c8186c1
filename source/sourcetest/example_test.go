package sourcetest_test

import (
	"context"
	"fmt"

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
