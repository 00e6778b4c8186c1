package importgraph

import (
	"strings"
	"testing"
)

func TestLayersAndReduction(t *testing.T) {
	g := &Graph{Imports: map[string][]string{
		"endpoint": nil,
		"plan":     {"endpoint"},
		"provider": {"endpoint", "plan"},
		"registry": {"endpoint", "plan", "provider"},
		"source":   {"endpoint"},
		Root:       {"endpoint", "plan", "registry", "source"},
	}}
	layers, err := g.Layers()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"endpoint"}, {"plan", "source"}, {"provider"}, {"registry"}, {Root}}
	if len(layers) != len(want) {
		t.Fatalf("layers = %v, want %v", layers, want)
	}
	for i := range want {
		if strings.Join(layers[i], " ") != strings.Join(want[i], " ") {
			t.Fatalf("layers = %v, want %v", layers, want)
		}
	}
	if got := strings.Join(g.Reduced(Root, nil), " "); got != "registry source" {
		t.Errorf("Reduced(root) = %q, want %q", got, "registry source")
	}
	if got := strings.Join(g.Reduced(Root, []string{"endpoint", "plan", "source"}), " "); got != "plan source" {
		t.Errorf("Reduced(root, subset) = %q, want %q", got, "plan source")
	}
}

func TestCycle(t *testing.T) {
	g := &Graph{Imports: map[string][]string{"a": {"b"}, "b": {"a"}}}
	if _, err := g.Layers(); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("Layers of a cycle: err = %v", err)
	}
}

func TestSplice(t *testing.T) {
	md := "x\n" + Begin + "\nold\n" + End + "\ny\n"
	got, err := SpliceMarkdown(md, "new\n")
	if err != nil || got != "x\n"+Begin+"\nnew\n"+End+"\ny\n" {
		t.Fatalf("SpliceMarkdown = %q, %v", got, err)
	}
	src := "// Doc (" + GoDocAnchor + "):\n//\n//\ta\n//\n//\tb\n//\n// After.\npackage p\n"
	got, err = SpliceGoDoc(src, "c\n\nd\n")
	want := "// Doc (" + GoDocAnchor + "):\n//\n//\tc\n//\n//\td\n//\n// After.\npackage p\n"
	if err != nil || got != want {
		t.Fatalf("SpliceGoDoc = %q, %v; want %q", got, err, want)
	}
}
