package policy_test

import (
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
)

func ExampleByName() {
	pol, err := policy.ByName("upsert-only")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := &plan.Plan{
		Current:  []*endpoint.Endpoint{endpoint.NewEndpoint("old.example.com", endpoint.RecordTypeA, "192.0.2.1")},
		Desired:  []*endpoint.Endpoint{endpoint.NewEndpoint("new.example.com", endpoint.RecordTypeA, "192.0.2.2")},
		Policies: []plan.Policy{pol},
	}
	fmt.Println(p.Calculate())

	_, err = policy.ByName("delete-all")
	fmt.Println(err)
	// Output:
	// ACTION  NAME             TYPE  SET  TTL  TARGETS    WHY
	// create  new.example.com  A     -    -    192.0.2.2  -
	// skipped:
	// ACTION  NAME             TYPE  SET  REASON  DETAIL
	// delete  old.example.com  A     -    policy  dropped by policy upsert-only
	// unknown policy "delete-all": valid policies are sync, upsert-only, create-only
}
