package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The document generated from a small tree with two core sources and two
// Kubernetes sources (testdata/good): one table per category, rows by name,
// then the options of the sources that name their config.
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
		cells := strings.Split(line, " | ")
		switch {
		case strings.HasPrefix(line, "| `") && len(cells) == 8:
			fmt.Println(cells[0], cells[1], cells[5], cells[6]) // name, type, namespaced, fqdn-template
		case strings.HasPrefix(line, "| `"), strings.HasPrefix(line, "### "):
			fmt.Println(line) // an option and its flags
		}
	}
	// Output:
	// ## core
	// | `empty` `source.Empty` no no
	// | `static` `source.Static` no no
	// ## kubernetes
	// | `ingress` `kubernetes.Ingress` yes yes
	// | `service` `kubernetes.Service` yes yes
	// ## Options
	// ### `service` (`kubernetes.ServiceConfig`)
	// | `Options.Namespace` | `--namespace` |
	// | `PublishInternal` | `--publish-internal-services` |
}
