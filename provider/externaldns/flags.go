package externaldns

import (
	"fmt"
	"strings"

	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
)

// ParseFlags returns the configuration external-dns's binary would build
// from the same command-line arguments, with every flag's default filled
// in, so a team moving from external-dns can pass the provider flags it
// runs with today:
//
//	cfg, err := externaldns.ParseFlags([]string{"--provider=aws", "--aws-zone-type=public"})
//
// --provider is required. Source flags are irrelevant here; --source
// defaults to "fake" so that external-dns's parser, which requires it, is
// satisfied. Like external-dns, the parser also reads EXTERNAL_DNS_<FLAG>
// environment variables for flags not given in args. Arguments that would
// make the parser print and exit the process (--help, --version,
// --completion-...) are refused with an error instead.
func ParseFlags(args []string) (*xconfig.Config, error) {
	hasSource := false
	for _, a := range args {
		switch {
		case a == "-h" || strings.HasPrefix(a, "--help") || a == "--version" || strings.HasPrefix(a, "--completion"):
			return nil, fmt.Errorf("external-dns flags: %q would print and exit; it is not accepted here", a)
		case a == "--source" || strings.HasPrefix(a, "--source="):
			hasSource = true
		}
	}
	if !hasSource {
		args = append(append([]string(nil), args...), "--source=fake")
	}
	cfg := xconfig.NewConfig()
	if err := cfg.ParseFlags(args); err != nil {
		return nil, fmt.Errorf("external-dns flags: %w", err)
	}
	return cfg, nil
}
