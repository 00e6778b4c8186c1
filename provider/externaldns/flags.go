package externaldns

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
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
// environment variables for flags not given in args.
//
// ParseFlags never prints and never ends the process, which external-dns's
// parser does for some flags. It refuses, with an error that names the
// flag but not the argument's text: the flags that print help, a manual
// page, the version or shell completions (--help, --help-long, --help-man,
// --version, --completion-bash, --completion-script-bash,
// --completion-script-zsh), in any form the parser reads them (--help=…,
// --no-help); the environment variables for them (EXTERNAL_DNS_HELP, …);
// and arguments starting with "@", which the parser would replace with the
// lines of the file they name (and so could hold any of those flags).
// Other arguments are parsed as external-dns parses them; an argument
// that is merely like one of those flags, such as --help-me, is an unknown
// flag.
func ParseFlags(args []string) (*xconfig.Config, error) {
	// A dry run with a parser that cannot print or end the process, in case
	// it still finds a way to: only then does external-dns's own parsing
	// (which adds its handling of deprecated flags) run.
	args, _, err := probeFlags(args)
	if err != nil {
		return nil, err
	}
	cfg := xconfig.NewConfig()
	if err := cfg.ParseFlags(args); err != nil {
		return nil, fmt.Errorf("external-dns flags: %w", err)
	}
	return cfg, nil
}

// GivenFlags returns the names, without dashes, of the external-dns flags
// that args give, in any form external-dns's parser reads (--name=value,
// --name value, --no-name), and of those that EXTERNAL_DNS_<NAME>
// environment variables set, sorted: every flag given, whatever its value.
// It refuses what [ParseFlags] refuses, with the same errors.
//
// Give the result to [NewProgram] or [CheckFlags] in
// ProgramOptions.GivenFlags, for args that ParseFlags parsed: then a flag
// given with its default value that the program does not use
// (--metrics-address=:7979 in a program that serves no metrics, --txt-prefix=
// with --registry=noop) is reported as well, which the configuration alone
// cannot tell.
func GivenFlags(args []string) ([]string, error) {
	_, given, err := probeFlags(args)
	return given, err
}

// probeFlags parses args with external-dns's parser made unable to print
// or end the process, after refusing what ParseFlags refuses, and returns
// the arguments to parse (args, with --source=fake when no --source is
// given) and the flags given (see GivenFlags).
func probeFlags(args []string) ([]string, []string, error) {
	if err := refuseExitingArgs(args); err != nil {
		return nil, nil, fmt.Errorf("external-dns flags: %w", err)
	}
	hasSource := false
	for _, a := range args {
		if a == "--source" || strings.HasPrefix(a, "--source=") {
			hasSource = true
		}
	}
	if !hasSource {
		args = append(append([]string(nil), args...), "--source=fake")
	}
	probe := xconfig.App(xconfig.NewConfig())
	exited := false
	probe.Terminate(func(int) { exited = true }).Writer(io.Discard).UsageWriter(io.Discard).ErrorWriter(io.Discard)
	flags := probe.Model().Flags
	set := make([]bool, len(flags))
	for i, f := range flags {
		probe.GetFlag(f.Name).IsSetByUser(&set[i])
	}
	_, err := probe.Parse(args)
	if exited {
		return nil, nil, errors.New("external-dns flags: the arguments would make external-dns's parser print and end the process; they are not accepted here")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("external-dns flags: %w", err)
	}
	var given []string
	for i, f := range flags {
		if f.Name == "source" && !hasSource {
			continue // the fake source filled in above
		}
		if set[i] || probe.GetFlag(f.Name).HasEnvarValue() {
			given = append(given, f.Name)
		}
	}
	slices.Sort(given)
	return args, given, nil
}

// exitingFlags returns the flags of external-dns's parser that print
// something and end the process.
func exitingFlags() []string {
	return []string{"help", "help-long", "help-man", "version", "completion-bash", "completion-script-bash", "completion-script-zsh"}
}

// refuseExitingArgs returns an error for the first argument, or
// environment variable, that would make external-dns's parser print and
// end the process. The error names the flag or variable and the
// argument's position, never the argument's text.
func refuseExitingArgs(args []string) error {
	for i, a := range args {
		if a == "--" {
			break // the rest are positional arguments, not flags
		}
		if strings.HasPrefix(a, "@") {
			return fmt.Errorf("argument %d starts with @, which external-dns's parser reads as a file of further arguments; that is not accepted here: pass the arguments themselves", i+1)
		}
		name, isFlag := strings.CutPrefix(a, "--")
		if !isFlag {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		negated, isNegated := strings.CutPrefix(name, "no-")
		for _, f := range exitingFlags() {
			if name == f || isNegated && negated == f {
				return fmt.Errorf("argument %d is --%s, which makes external-dns's parser print and end the process; it is not accepted here", i+1, name)
			}
		}
	}
	for _, f := range exitingFlags() {
		env := "EXTERNAL_DNS_" + strings.ToUpper(strings.ReplaceAll(f, "-", "_"))
		if os.Getenv(env) != "" {
			return fmt.Errorf("the environment variable %s is set, which would make external-dns's parser print and end the process; unset it", env)
		}
	}
	return nil
}
