// Package source defines [Source], the origin of desired DNS records, and
// small sources that programs and tests can use directly.
//
// A Source answers one question — which records should exist? — with
// [Source.Endpoints], and tells its consumer when the answer may have changed
// through handlers registered with [Source.AddEventHandler]. Everything else
// (ownership, conflict resolution, policies, providers) is done by the other
// packages of zonesync, so a source of one's own is two methods.
//
// # Usage
//
// [InMemory] holds a list of endpoints that the program replaces with
// [InMemory.Set]; every Set notifies the registered handlers:
//
//	src := source.NewInMemory(endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, "192.0.2.10"))
//	rec := &zonesync.Reconciler{Source: src, Registry: reg}
//	go rec.Run(ctx)                 // Run registers a handler on src
//	src.Set(newEndpoints...)        // schedules a cycle
//
// A source of one's own looks like this (a static list from a map):
//
//	type hostsSource struct{ hosts map[string]string } // name -> IPv4
//
//	func (s hostsSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
//		if err := ctx.Err(); err != nil {
//			return nil, err
//		}
//		eps := make([]*endpoint.Endpoint, 0, len(s.hosts))
//		for _, name := range slices.Sorted(maps.Keys(s.hosts)) {
//			eps = append(eps, endpoint.NewEndpoint(name, endpoint.RecordTypeA, s.hosts[name]))
//		}
//		return eps, nil
//	}
//
//	func (hostsSource) AddEventHandler(context.Context, func()) {} // static: never fires
//
// # Contract
//
//   - Endpoints returns a new slice on every call, sorted by (DNSName,
//     SetIdentifier, RecordType); the caller may modify it and its endpoints.
//   - Errors wrap their cause with %w and name the object at fault.
//   - Handlers passed to AddEventHandler are cheap and non-blocking; a source
//     stops calling a handler once the context it was registered with is done.
//   - Informer-backed sources register their handlers before the informers
//     start and stop with the context.
//
// # Concurrency
//
// Every Source in this package is safe for concurrent use.
package source
