package source

// docs/sources.md lists every source type from its doc markers
// (//zonesync:source:...); see internal/sourcedocs.
//go:generate go run ../internal/sourcedocs -root .. -out ../docs/sources.md
