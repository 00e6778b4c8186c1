package verify_test

import (
	"context"
	"fmt"
	"net"

	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/verify"
)

// Verify asks a name server (here a tiny in-process one on a loopback
// port) for each endpoint and reports whether it is in sync.
func ExampleVerifier_Verify() {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	zone := map[string]string{"www.example.org.": "192.0.2.1", "api.example.org.": "192.0.2.9"}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		if ip, ok := zone[q.Question[0].Name]; ok {
			rr, _ := dns.NewRR(q.Question[0].Name + " 300 IN A " + ip)
			m.Answer = append(m.Answer, rr)
		} else {
			m.Rcode = dns.RcodeNameError
		}
		_ = w.WriteMsg(m)
	})}
	go func() { _ = srv.ActivateAndServe() }()
	defer func() { _ = srv.Shutdown() }()

	v, err := verify.New(verify.Options{Nameserver: pc.LocalAddr().String()})
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := v.Verify(context.Background(), []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1"),
		endpoint.NewEndpoint("api.example.org", endpoint.RecordTypeA, "192.0.2.2"),
		endpoint.NewEndpoint("gone.example.org", endpoint.RecordTypeA, "192.0.2.3"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Println(r.Endpoint.DNSName, r.Status, r.Seen)
	}
	// Output:
	// api.example.org notsync [192.0.2.9]
	// gone.example.org notavailable []
	// www.example.org sync [192.0.2.1]
}

// Hash does not depend on the order of the endpoints or of their targets.
func ExampleHash() {
	a := verify.Hash([]*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1", "192.0.2.2"),
		endpoint.NewEndpoint("api.example.org", endpoint.RecordTypeCNAME, "www.example.org"),
	})
	b := verify.Hash([]*endpoint.Endpoint{
		endpoint.NewEndpoint("api.example.org", endpoint.RecordTypeCNAME, "www.example.org"),
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.2", "192.0.2.1"),
	})
	fmt.Println(a == b, len(a))
	// Output: true 64
}
