package interop

import (
	"strconv"

	xendpoint "sigs.k8s.io/external-dns/endpoint"

	"github.com/zonesync/zonesync/endpoint"
)

// The workload W(N) of docs/benchmarks.md, built exactly as the
// zonesync module's internal/workload builds it: N names
// svc-<i>.bench.example.com with one A target each, owned by "bench", every
// ownership TXT carrying its own resource label.
const (
	// WorkloadOwner is the owner id of every record of W(N).
	WorkloadOwner = "bench"
	// WorkloadZone is the zone that holds W(N).
	WorkloadZone = "bench.example.com"
)

// WorkloadName returns the DNS name of record i.
func WorkloadName(i int) string { return "svc-" + strconv.Itoa(i) + "." + WorkloadZone }

// WorkloadTarget returns the A target of record i.
func WorkloadTarget(i int) string {
	return "10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255)
}

// WorkloadResource returns the resource label of record i.
func WorkloadResource(i int) string { return "service/default/svc-" + strconv.Itoa(i) }

// WorkloadTXTValue returns the ownership TXT value of record i, as
// external-dns writes it.
func WorkloadTXTValue(i int) string {
	return `"heritage=external-dns,external-dns/owner=` + WorkloadOwner + `,external-dns/resource=` + WorkloadResource(i) + `"`
}

// WorkloadZonesync returns the records of W(n) as a provider stores them:
// n A records and their n typed ownership TXT records.
func WorkloadZonesync(n int) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, 0, 2*n)
	for i := range n {
		out = append(out,
			endpoint.NewEndpoint(WorkloadName(i), endpoint.RecordTypeA, WorkloadTarget(i)),
			endpoint.NewEndpoint("a-"+WorkloadName(i), endpoint.RecordTypeTXT, WorkloadTXTValue(i)))
	}
	return out
}

// WorkloadExternalDNS is [WorkloadZonesync] in external-dns's types.
func WorkloadExternalDNS(n int) []*xendpoint.Endpoint {
	out := make([]*xendpoint.Endpoint, 0, 2*n)
	for i := range n {
		out = append(out,
			xendpoint.NewEndpoint(WorkloadName(i), xendpoint.RecordTypeA, WorkloadTarget(i)),
			xendpoint.NewEndpoint("a-"+WorkloadName(i), xendpoint.RecordTypeTXT, WorkloadTXTValue(i)))
	}
	return out
}

// WorkloadDesiredZonesync returns what a source reports for W(n): A
// endpoints with their resource label and no owner.
func WorkloadDesiredZonesync(n int) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, n)
	for i := range out {
		out[i] = endpoint.NewEndpoint(WorkloadName(i), endpoint.RecordTypeA, WorkloadTarget(i)).
			WithLabel(endpoint.ResourceLabelKey, WorkloadResource(i))
	}
	return out
}

// WorkloadDesiredExternalDNS is [WorkloadDesiredZonesync] in external-dns's
// types.
func WorkloadDesiredExternalDNS(n int) []*xendpoint.Endpoint {
	out := make([]*xendpoint.Endpoint, n)
	for i := range out {
		out[i] = xendpoint.NewEndpoint(WorkloadName(i), xendpoint.RecordTypeA, WorkloadTarget(i)).
			WithLabel(xendpoint.ResourceLabelKey, WorkloadResource(i))
	}
	return out
}

// WorkloadCurrentZonesync returns W(n) as the TXT registry reports it:
// the desired endpoints with the owner label added.
func WorkloadCurrentZonesync(n int) []*endpoint.Endpoint {
	out := WorkloadDesiredZonesync(n)
	for _, ep := range out {
		ep.Labels.Set(endpoint.OwnerLabelKey, WorkloadOwner)
	}
	return out
}

// WorkloadCurrentExternalDNS is [WorkloadCurrentZonesync] in external-dns's
// types.
func WorkloadCurrentExternalDNS(n int) []*xendpoint.Endpoint {
	out := WorkloadDesiredExternalDNS(n)
	for _, ep := range out {
		ep.Labels[xendpoint.OwnerLabelKey] = WorkloadOwner
	}
	return out
}
