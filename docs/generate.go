// Package docs holds the project's documentation as Markdown, and tests
// (package docs_test) that keep it true to the code: the Go of the guide
// from external-dns, and the parts derived from the code (derived_test.go).
package docs

// The import diagrams of docs/architecture.md and of the root package's
// doc comment are generated from the code (internal/importgraph).
//go:generate go run ../internal/importgraph/cmd/importgraph -root ..
