package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The document generated from a small tree with two core sources and two
// Kubernetes sources (testdata/good): one table per category, rows by name.
func Example() {
	doc, err := generate(filepath.Join("testdata", "good"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "## ") {
			fmt.Println(line)
		}
		if cells := strings.Split(line, " | "); strings.HasPrefix(line, "| `") {
			fmt.Println(cells[0], cells[1], cells[5], cells[6]) // name, type, namespaced, fqdn-template
		}
	}
	// Output:
	// ## core
	// | `empty` `source.Empty` no no
	// | `static` `source.Static` no no
	// ## kubernetes
	// | `ingress` `kubernetes.Ingress` yes yes
	// | `service` `kubernetes.Service` yes yes
}
