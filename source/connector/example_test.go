package connector_test

import (
	"context"
	"fmt"
	"net"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source/connector"
)

// ExampleNew builds a connector source: an empty address means
// external-dns's default, and an address without a port is refused.
func ExampleNew() {
	c, err := connector.New("", connector.Options{})
	fmt.Println(c, err)
	_, err = connector.New("localhost", connector.Options{})
	fmt.Println(err)
	// Output:
	// connector localhost:8080 <nil>
	// connector: address "localhost" is not host:port
}

// ExampleServe serves endpoints on a loopback port in external-dns's
// connector format and reads them back with a Connector. (It is compiled
// but not run by go test, because it opens a port; TestEndToEnd runs the
// same exchange.) It prints:
//
//	web.example.com 0 A 192.0.2.10;192.0.2.11
//	server stopped: <nil>
func ExampleServe() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	served := make(chan error, 1)
	go func() {
		served <- connector.Serve(ctx, l, func(context.Context) ([]*endpoint.Endpoint, error) {
			return []*endpoint.Endpoint{
				endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.10"),
				endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.11"),
			}, nil
		}, connector.ServeOptions{})
	}()

	c, err := connector.New(l.Addr().String(), connector.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	eps, err := c.Endpoints(ctx)
	if err != nil {
		fmt.Println("error:", err)
	}
	for _, ep := range eps {
		fmt.Println(ep.DNSName, ep.RecordTTL, ep.RecordType, ep.Targets)
	}
	cancel()
	fmt.Println("server stopped:", <-served)
}
