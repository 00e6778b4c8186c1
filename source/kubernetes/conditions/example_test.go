package conditions_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
	"github.com/zonesync/zonesync/source/kubernetes/conditions"
)

// printConditions prints the conditions of one object.
func printConditions(ctx context.Context, client dynamic.Interface, gvr schema.GroupVersionResource, ns, name string) {
	obj, err := client.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, item := range list {
		c := item.(map[string]any)
		line := fmt.Sprint(c["type"], " ", c["status"], " ", c["reason"], " ", c["observedGeneration"])
		if msg, _ := c["message"].(string); msg != "" {
			line += " " + msg
		}
		fmt.Println(line)
	}
}

// A Reconciler over the DNSEndpoint source reports on each DNSEndpoint
// through the writer, its Observer. In a cluster, the client is
// dynamic.NewForConfig's and the DNSEndpoint CRD the one with
// status.conditions.
func ExampleNewForDNSEndpoints() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{kubernetes.DNSEndpointGVR: "DNSEndpointList"})
	for name, host := range map[string]string{"web": "www.example.com", "elsewhere": "www.example.org"} {
		err := client.Tracker().Create(kubernetes.DNSEndpointGVR, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "externaldns.k8s.io/v1alpha1",
			"kind":       "DNSEndpoint",
			"metadata":   map[string]any{"namespace": "shop", "name": name, "generation": int64(1)},
			"spec": map[string]any{"endpoints": []any{
				map[string]any{"dnsName": host, "recordType": "A", "targets": []any{"192.0.2.10"}},
			}},
		}}, "shop")
		if err != nil {
			fmt.Println(err)
			return
		}
	}

	src, err := kubernetes.NewDNSEndpointSource(ctx, client, kubernetes.DNSEndpointConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := src.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	w, err := conditions.NewForDNSEndpoints(client, src)
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.org"}}), txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &zonesync.Reconciler{
		Source:   src,
		Registry: reg,
		Observer: w,
		// www.example.org is left to somebody else.
		DomainFilter: endpoint.NewDomainFilter([]string{"example.com"}),
	}
	if _, err := r.RunOnce(ctx); err != nil {
		fmt.Println(err)
		return
	}
	printConditions(ctx, client, kubernetes.DNSEndpointGVR, "shop", "web")
	printConditions(ctx, client, kubernetes.DNSEndpointGVR, "shop", "elsewhere")
	// Output:
	// Accepted True Accepted 1
	// Programmed True Programmed 1
	// Accepted True Accepted 1
	// Programmed False FilteredOut 1 www.example.org/A: skipped (filtered-out): name not matched by the domain filter
}

// A writer for a custom resource of an operator's own: Websites, whose
// source keys them "website/namespace/name". A program that runs cycles
// itself writes the conditions of each cycle with Write.
func ExampleWriter_Write() {
	ctx := context.Background()
	websites := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "websites"}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{websites: "WebsiteList"})
	err := client.Tracker().Create(websites, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Website",
		"metadata":   map[string]any{"namespace": "shop", "name": "web", "generation": int64(4)},
		"spec":       map[string]any{"host": "www.example.com"},
	}}, "shop")
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := conditions.New(client, conditions.Options{GVR: websites, Kind: "website"})
	if err != nil {
		fmt.Println(err)
		return
	}

	reg, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &zonesync.Reconciler{
		// In the operator, the source reading the Websites.
		Source: source.NewStatic(endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.10").
			WithLabel(endpoint.ResourceLabelKey, "website/shop/web")),
		Registry: reg,
		DryRun:   true,
	}
	cycle, err := r.RunOnce(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Write(ctx, cycle); err != nil {
		fmt.Println(err)
		return
	}
	printConditions(ctx, client, websites, "shop", "web")
	// Output:
	// Accepted True Accepted 4
	// Programmed False Pending 4 www.example.com/A: pending
}
