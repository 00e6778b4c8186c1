package txt

import (
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// parseValue parses the first target of a TXT record into ownership
// labels, with the rules of [endpoint.ParseLabelsWithKey]. Plain values
// without a key take a fast path that allocates the map and nothing else; everything else (encrypted values, errors) goes through
// endpoint.ParseLabelsWithKey, so both give the same result (the fuzz test
// FuzzParseLabels checks it).
func parseValue(text string, key []byte) (endpoint.Labels, error) {
	if len(key) == 0 {
		if labels, ok := parsePlainFast(text); ok {
			return labels, nil
		}
	}
	return endpoint.ParseLabelsWithKey(text, key)
}

const (
	heritageValue = "external-dns"
	labelPrefix   = "external-dns/"
)

// parsePlainFast parses a plain ownership value. ok is false when the value
// is not one (the caller then reports the error through the endpoint
// package).
func parsePlainFast(text string) (endpoint.Labels, bool) {
	s := strings.Trim(text, `"`)
	var labels endpoint.Labels
	sawHeritage := false
	for {
		token, rest, more := strings.Cut(s, ",")
		key, value, ok := strings.Cut(token, "=")
		switch {
		case !ok:
		case key == "heritage":
			if value != heritageValue {
				return nil, false
			}
			sawHeritage = true
		case strings.HasPrefix(key, heritageValue):
			if labels == nil {
				// Up to 8 entries fit the map's first group: one
				// allocation for the table whatever the hint below 9.
				labels = make(endpoint.Labels, 8)
			}
			labels[strings.TrimPrefix(key, labelPrefix)] = value
		}
		if !more {
			break
		}
		s = rest
	}
	if !sawHeritage {
		return nil, false
	}
	if labels == nil {
		labels = endpoint.Labels{}
	}
	return labels, true
}
