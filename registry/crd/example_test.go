package crd_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/crd"
)

// A create writes a DNSRecord, Programmed once the provider has applied
// it; a registry started later reads the record as owned. A program gets
// its client from dynamic.NewForConfig; the example uses client-go's fake.
func ExampleNew() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var client dynamic.Interface = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{crd.GroupVersionResource(): "DNSRecordList"})
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	cfg := crd.Config{OwnerID: "my-operator", Namespace: "dns"}

	reg, err := crd.New(zone, client, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := reg.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	app := endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, "192.0.2.10").
		WithLabel(endpoint.ResourceLabelKey, "service/default/app")
	if err := reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{app}}); err != nil {
		fmt.Println(err)
		return
	}

	list, err := client.Resource(crd.GroupVersionResource()).Namespace("dns").List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range list.Items {
		conds, _, _ := unstructuredConditions(o.Object)
		fmt.Println(o.GetName(), o.GetLabels()[crd.OwnerLabel], conds)
	}

	later, err := crd.New(zone, client, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := later.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	recs, err := later.Records(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range recs {
		owner, _ := r.Labels.Get(endpoint.OwnerLabelKey)
		resource, _ := r.Labels.Get(endpoint.ResourceLabelKey)
		fmt.Println(r.DNSName, r.RecordType, r.Targets, "owner="+owner, "resource="+resource)
	}
	// Output:
	// app-example-com-ae3e8df6 my-operator Ready=True/Programmed
	// app.example.com A 192.0.2.10 owner=my-operator resource=service/default/app
}

// unstructuredConditions renders the Ready condition of a DNSRecord.
func unstructuredConditions(obj map[string]any) (string, bool, error) {
	status, _ := obj["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == crd.ReadyCondition {
			return fmt.Sprintf("Ready=%v/%v", m["status"], m["reason"]), true, nil
		}
	}
	return "no Ready condition", false, nil
}

// Object names are readable and unique per name, type and set identifier.
func ExampleObjectName() {
	fmt.Println(crd.ObjectName("app.example.com", "A", ""))
	fmt.Println(crd.ObjectName("App.Example.com.", "a", ""))
	fmt.Println(crd.ObjectName("weighted.example.com", "A", "blue"))
	fmt.Println(crd.ObjectName("*.example.com", "CNAME", ""))
	// Output:
	// app-example-com-ae3e8df6
	// app-example-com-ae3e8df6
	// weighted-example-com-26a8b85a
	// example-com-16cc6a1d
}
