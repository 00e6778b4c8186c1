// Command providertest shows how a provider author proves a provider with
// zonesync's conformance suite, without any cloud account: it runs
// providertest.CheckProvider against mapProvider, a small provider written in
// this example, and prints the result.
//
// In tests, use providertest.TestProvider instead (see provider_test.go): it
// runs the same rules and reports each violation with t.Error.
//
// Run it from the repository root:
//
//	go run ./examples/providertest
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
)

func run(ctx context.Context, w io.Writer) error {
	p := newMapProvider("example.org")
	err := providertest.CheckProvider(ctx, p, providertest.Options{Zone: "example.org"})
	if err != nil {
		var v *providertest.Violation
		n := 0
		for _, e := range provider.ErrorParts(err) {
			if errors.As(e, &v) {
				n++
			}
			fmt.Fprintln(w, "violation:", e)
		}
		return fmt.Errorf("mapProvider failed the conformance suite (%d violations)", n)
	}
	recs, err := p.Records(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "mapProvider passes the zonesync conformance suite")
	fmt.Fprintf(w, "records left behind by the suite: %d\n", len(recs))
	return nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "providertest:", err)
		os.Exit(1)
	}
}
