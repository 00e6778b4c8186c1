// Command importgraph rewrites the import diagrams of docs/architecture.md
// and of the root package's doc comment (doc.go) from the code's imports;
// see package internal/importgraph. Run it through go generate ./docs:
//
//	go run ./internal/importgraph/cmd/importgraph -root .
//
// It needs only the standard library and the go command, so it runs while
// other packages of the module do not build.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/zonesync/zonesync/internal/importgraph"
)

func main() {
	root := flag.String("root", ".", "root of the zonesync module")
	flag.Parse()
	written, err := importgraph.Write(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "importgraph:", err)
		os.Exit(1)
	}
	for _, p := range written {
		fmt.Println("importgraph: rewrote", p)
	}
}
