// Package chaos holds the chaos tests of issue 21 and the harness they
// share with the chaos test of provider/externaldns: the Reconciler with
// the TXT registry runs for many cycles against a provider under injected
// faults while a second writer adds, changes and deletes foreign records
// between cycles and races with the cycles. After every cycle the harness
// checks that no foreign record was touched and that every record
// zonesync owns is one it meant to write; once the faults stop, that two
// clean cycles bring the zone to exactly the desired records.
//
// The package's own tests run the harness against a real named behind
// [Proxy], a proxy that cuts DNS-over-TCP connections at message
// boundaries, and against the in-memory provider behind fault-injecting
// interceptors. provider/externaldns runs it against PowerDNS through the
// adapter, an upsert provider on which the TXT registry re-reads the zone
// before creating.
//
// [Harness] is the harness: [New] over a provider that reads and writes
// the zone without faults, [Harness.Reconciler] over the faulty provider
// under test, [Harness.Run] for the cycles. [Config] says where the second
// writer races: after the plan, before the registry's ApplyChanges (so
// before its re-read); at the start of the re-read; or in the provider's
// ApplyChanges ([Harness.RacingApply]), after it.
//
// The runs are seeded: ZONESYNC_CHAOS_SEED sets the seed (a decimal
// uint64); without it a fixed default seed keeps runs reproducible. The
// seed is logged, and every failure names it and the cycle.
package chaos
