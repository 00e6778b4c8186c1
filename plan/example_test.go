package plan_test

import (
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

func ExamplePlan_Calculate() {
	current := []*endpoint.Endpoint{
		endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, "192.0.2.1").
			WithLabel(endpoint.OwnerLabelKey, "my-operator"),
		endpoint.NewEndpoint("old.example.com", endpoint.RecordTypeA, "192.0.2.2").
			WithLabel(endpoint.OwnerLabelKey, "my-operator"),
		endpoint.NewEndpoint("db.example.com", endpoint.RecordTypeA, "192.0.2.3").
			WithLabel(endpoint.OwnerLabelKey, "someone-else"),
	}
	desired := []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("app.example.com", endpoint.RecordTypeA, 300, "192.0.2.10"),
		endpoint.NewEndpoint("new.example.com", endpoint.RecordTypeCNAME, "app.example.com"),
		endpoint.NewEndpoint("db.example.com", endpoint.RecordTypeA, "192.0.2.30"),
	}
	p := &plan.Plan{Current: current, Desired: desired, OwnerID: "my-operator"}
	calculated := p.Calculate()
	fmt.Println(calculated)
	fmt.Println("has changes:", calculated.Changes.HasChanges())
	// Output:
	// ACTION  NAME             TYPE   SET  TTL       TARGETS                  WHY
	// create  new.example.com  CNAME  -    -         app.example.com          -
	// update  app.example.com  A      -    - -> 300  192.0.2.1 -> 192.0.2.10  targets,ttl
	// delete  old.example.com  A      -    -         192.0.2.2                -
	// skipped:
	// ACTION  NAME            TYPE  SET  REASON         DETAIL
	// update  db.example.com  A     -    foreign-owner  the record is owned by "someone-else", not "my-operator"
	// has changes: true
}

func ExamplePerResource() {
	// Two Ingresses ask for the same name. The record already belongs to
	// ingress b, so b keeps it even though a has the smaller target.
	current := []*endpoint.Endpoint{
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "192.0.2.20").
			WithLabel(endpoint.ResourceLabelKey, "ingress/default/b"),
	}
	desired := []*endpoint.Endpoint{
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "192.0.2.10").
			WithLabel(endpoint.ResourceLabelKey, "ingress/default/a"),
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "192.0.2.21").
			WithLabel(endpoint.ResourceLabelKey, "ingress/default/b"),
	}
	res := (&plan.Plan{Current: current, Desired: desired, Resolver: plan.PerResource{}}).Calculate()
	fmt.Println(res.Changes)
	for _, s := range res.Skipped {
		fmt.Println(s)
	}
	// Output:
	// ACTION  NAME              TYPE  SET  TTL  TARGETS                   WHY
	// update  shop.example.com  A     -    -    192.0.2.20 -> 192.0.2.21  targets
	// update shop.example.com/A: lost-conflict (ingress/default/b wins with targets 192.0.2.21)
}

func ExampleMergeTargets() {
	desired := []*endpoint.Endpoint{
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "192.0.2.20").
			WithLabel(endpoint.ResourceLabelKey, "ingress/default/b"),
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "192.0.2.10").
			WithLabel(endpoint.ResourceLabelKey, "ingress/default/a"),
	}
	res := (&plan.Plan{Desired: desired, Resolver: plan.MergeTargets{}}).Calculate()
	fmt.Println(res.Changes.Create[0].Targets)
	// Output:
	// 192.0.2.10;192.0.2.20
}

func ExampleSafetyThreshold_Check() {
	var changes plan.Changes
	for i := range 8 {
		changes.Delete = append(changes.Delete, endpoint.NewEndpoint(fmt.Sprintf("svc-%d.example.com", i), endpoint.RecordTypeA, "192.0.2.1"))
	}
	// 20 records are ours; deleting 8 of them is more than 30%.
	unsafe := plan.SafetyThreshold{}.Check(&changes, plan.Owned{Total: 20})
	fmt.Println(unsafe)
	fmt.Println(errors.Is(unsafe, plan.ErrUnsafePlan))
	fmt.Println(plan.SafetyThreshold{MaxChangeRatio: 0.5}.Check(&changes, plan.Owned{Total: 20}) == nil)
	// Output:
	// unsafe plan refused: it would delete 8 and update 0 of 20 owned records, more than the allowed 30% (threshold applies from 10 owned records, in total and in each zone)
	// true
	// true
}
