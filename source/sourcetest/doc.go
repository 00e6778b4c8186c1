// Package sourcetest is the test kit for [source.Source] implementations:
// [CheckSource] checks a source against the contract written on
// [source.Source] and reports every violation, and [Fake] is a source of
// random endpoints for testing providers and pipelines.
//
// Library code does not import this package; tests and benchmarks do.
package sourcetest
