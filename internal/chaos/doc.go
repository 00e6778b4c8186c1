// Package chaos holds the chaos tests of issue 21: the Reconciler with the
// TXT registry runs for many cycles against a real named behind a proxy
// that cuts DNS-over-TCP connections at message boundaries, and against
// the in-memory provider behind fault-injecting interceptors, while a
// second writer adds, changes and deletes foreign records. After every
// cycle the tests check that no foreign record was touched and that every
// record zonesync owns is one it meant to write; once the faults stop,
// that two clean cycles bring the zone to exactly the desired records.
//
// The package itself is [Proxy], the fault-injecting DNS-over-TCP proxy
// the named test puts between the rfc2136 provider and the server.
//
// The tests are seeded: ZONESYNC_CHAOS_SEED sets the seed (a decimal
// uint64); without it a fixed default seed keeps runs reproducible. The
// seed is logged, and every failure names it and the cycle.
package chaos
