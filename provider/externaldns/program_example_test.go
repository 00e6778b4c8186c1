package externaldns_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync/provider/externaldns"
)

// An external-dns command line run by zonesync: the Service source, the TXT
// registry with a prefix, one cycle (--once), over external-dns's in-memory
// provider and a fake cluster so that the example runs offline. A program
// gives NewProgram the clients of its cluster and the constructors of its
// providers (intree.Constructors for all of them).
func ExampleNewProgram() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the source's informers

	cfg, err := externaldns.ParseFlags([]string{
		"--source=service", "--provider=inmemory", "--inmemory-zone=example.org", "--policy=upsert-only",
		"--registry=txt", "--txt-owner-id=prod", "--txt-prefix=edns-", "--once", "--log-level=debug",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	kube := kubefake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
			Annotations: map[string]string{"external-dns.kubernetes.io/hostname": "web.example.org"}},
		Spec:   corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}}},
	})
	prog, err := externaldns.NewProgram(ctx, cfg, externaldns.ProgramOptions{
		Kube:         kube,
		Constructors: map[string]externaldns.Constructor{"inmemory": xinmemory.New},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range prog.Warnings {
		fmt.Println("warning:", w.Flag)
	}
	if err := prog.Run(ctx); err != nil {
		fmt.Println(err)
		return
	}
	recs, err := prog.Provider.Records(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range recs {
		fmt.Println(r.DNSName, r.RecordType, r.Targets)
	}
	// Output:
	// warning: --log-level
	// edns-a-web.example.org TXT "heritage=external-dns,external-dns/owner=prod,external-dns/resource=service/shop/web"
	// web.example.org A 192.0.2.10
}
