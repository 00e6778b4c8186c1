package externaldns_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider/externaldns"
)

// The environment of TestParseFlagsChild: the arguments (JSON) and the file
// it writes ParseFlags's outcome to.
const (
	parseFlagsArgsEnv   = "ZONESYNC_TEST_PARSEFLAGS_ARGS"
	parseFlagsResultEnv = "ZONESYNC_TEST_PARSEFLAGS_RESULT"
)

// TestParseFlagsChild is run by TestParseFlagsNeverPrintsNorExits in a
// process of its own: it calls ParseFlags and writes its outcome to a file,
// so that the process's output holds only what ParseFlags printed, and a
// missing file shows that the process ended inside ParseFlags.
func TestParseFlagsChild(t *testing.T) {
	argsJSON := os.Getenv(parseFlagsArgsEnv)
	if argsJSON == "" {
		t.Skip("run by TestParseFlagsNeverPrintsNorExits")
	}
	var args []string
	require.NoError(t, json.Unmarshal([]byte(argsJSON), &args))
	outcome := "ok"
	if _, err := externaldns.ParseFlags(args); err != nil {
		outcome = "error: " + err.Error()
	}
	require.NoError(t, os.WriteFile(os.Getenv(parseFlagsResultEnv), []byte(outcome), 0o600))
}

// TestParseFlagsNeverPrintsNorExits is the regression test of a finding of
// issue 33: external-dns's parser prints help, a version or completions
// and ends the process for some flags, in forms the former check missed
// (--no-help, an @file holding --help, EXTERNAL_DNS_COMPLETION_BASH), and
// the former check echoed a refused argument whole (--help-me=<secret>).
// Each case runs in a child process (the cases that made the former code
// exit, print or echo, and one accepted): it must return (not exit), print
// nothing of the help or the secret, and refuse or accept as listed,
// without the secret in its error. TestParseFlagsRefusals covers the other
// forms in this process.
func TestParseFlagsNeverPrintsNorExits(t *testing.T) {
	const secret = "s3cr3t-value"
	argFile := filepath.Join(t.TempDir(), "args")
	require.NoError(t, os.WriteFile(argFile, []byte("--help\n"), 0o600))
	tests := []struct {
		name   string
		args   []string
		env    []string
		accept bool
	}{
		{name: "an unknown flag that starts with --help", args: []string{"--help-me=" + secret}},
		{name: "--no-help", args: []string{"--no-help"}},
		{name: "--no-version", args: []string{"--no-version=" + secret}},
		{name: "a file of arguments holding --help", args: []string{"@" + argFile}},
		{name: "EXTERNAL_DNS_COMPLETION_BASH", env: []string{"EXTERNAL_DNS_COMPLETION_BASH=true"}},
		{name: "a value that starts with --help", args: []string{"--pdns-api-key=--help-" + secret}, accept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, err := json.Marshal(append([]string{"--provider=pdns", "--pdns-server=http://127.0.0.1:8081"}, tt.args...))
			require.NoError(t, err)
			result := filepath.Join(t.TempDir(), "result")
			cmd := exec.Command(os.Args[0], "-test.run=^TestParseFlagsChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), parseFlagsArgsEnv+"="+string(args), parseFlagsResultEnv+"="+result)
			cmd.Env = append(cmd.Env, tt.env...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			runErr := cmd.Run()
			outcome, readErr := os.ReadFile(result)
			require.NoError(t, readErr, "ParseFlags did not return (exit: %v); output:\n%s", runErr, out.String())
			require.NoError(t, runErr, "output:\n%s", out.String())
			assert.NotContains(t, out.String(), secret, "printed the secret")
			assert.NotContains(t, out.String(), "usage:", "printed help")
			assert.NotContains(t, out.String(), "ExternalDNS synchronizes", "printed help")
			assert.NotContains(t, string(outcome), secret, "the error echoes the secret")
			if tt.accept {
				assert.Equal(t, "ok", string(outcome))
			} else {
				assert.Contains(t, string(outcome), "error: external-dns flags: ")
			}
		})
	}
}

// TestParseFlagsRefusals checks, in this process, every form of the flags
// that make external-dns's parser print and exit: each is refused with an
// error that names the flag and its position but not the argument's text,
// and arguments that merely look like them are parsed as usual.
func TestParseFlagsRefusals(t *testing.T) {
	const secret = "s3cr3t-value"
	tests := []struct {
		name string
		arg  string
		want string // in the error; "" when the argument is accepted
	}{
		{"--help", "--help", "argument 2 is --help, which makes external-dns's parser print and end the process"},
		{"--help with a value", "--help=" + secret, "argument 2 is --help,"},
		{"--no-help with a value", "--no-help=" + secret, "argument 2 is --no-help,"},
		{"--help-long", "--help-long", "argument 2 is --help-long,"},
		{"--help-man", "--help-man", "argument 2 is --help-man,"},
		{"--version", "--version", "argument 2 is --version,"},
		{"--completion-bash", "--completion-bash=" + secret, "argument 2 is --completion-bash,"},
		{"--completion-script-bash", "--completion-script-bash", "argument 2 is --completion-script-bash,"},
		{"--completion-script-zsh", "--completion-script-zsh", "argument 2 is --completion-script-zsh,"},
		{"a file of arguments", "@" + secret, "argument 2 starts with @"},
		{"an unknown flag like --help", "--help-me=" + secret, "unknown long flag '--help-me'"},
		{"an unknown flag like --version", "--versions=" + secret, "unknown long flag '--versions'"},
		{"a value like --help", "--txt-prefix=--help-" + secret, ""},
		{"a value like a file of arguments", "--txt-prefix=@" + secret, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := externaldns.ParseFlags([]string{"--provider=pdns", tt.arg})
			if tt.want == "" {
				require.NoError(t, err)
				assert.Contains(t, cfg.TXTPrefix, secret)
				return
			}
			require.ErrorContains(t, err, tt.want)
			assert.NotContains(t, err.Error(), secret)
		})
	}
	t.Run("environment", func(t *testing.T) {
		t.Setenv("EXTERNAL_DNS_HELP_MAN", "1")
		_, err := externaldns.ParseFlags([]string{"--provider=pdns"})
		require.ErrorContains(t, err, "the environment variable EXTERNAL_DNS_HELP_MAN is set")
	})
}

// TestGivenFlagsFromArgs: every flag given, in any form the parser reads and
// through the environment, whatever its value, sorted; the refusals of
// ParseFlags.
func TestGivenFlagsFromArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    []string
		wantErr string
	}{
		{name: "required flags", args: []string{"--provider=aws", "--source=service"}, want: []string{"provider", "source"}},
		{name: "no --source: the fake one filled in is not given", args: []string{"--provider=aws"}, want: []string{"provider"}},
		{
			name: "default values count",
			args: []string{"--provider=aws", "--source=service", "--interval=1m", "--txt-owner-id=default", "--log-level=info"},
			want: []string{"interval", "log-level", "provider", "source", "txt-owner-id"},
		},
		{
			name: "every form, repeated flags once",
			args: []string{"--provider", "aws", "--source=service", "--source", "ingress", "--no-aws-evaluate-target-health", "--once", "--domain-filter=a.example", "--domain-filter=b.example"},
			want: []string{"aws-evaluate-target-health", "domain-filter", "once", "provider", "source"},
		},
		{
			name: "environment variables",
			args: []string{"--provider=aws", "--source=service"},
			env:  map[string]string{"EXTERNAL_DNS_TXT_PREFIX": "edns-", "EXTERNAL_DNS_METRICS_ADDRESS": ":7979", "EXTERNAL_DNS_LOG_FORMAT": ""},
			want: []string{"metrics-address", "provider", "source", "txt-prefix"},
		},
		{name: "after --", args: []string{"--provider=aws", "--source=service", "--", "--once"}, wantErr: "unexpected --once"},
		{name: "refused like ParseFlags", args: []string{"--provider=aws", "--help"}, wantErr: "argument 2 is --help, which makes external-dns's parser print and end the process"},
		{name: "unknown flag", args: []string{"--provider=aws", "--nope"}, wantErr: "unknown long flag '--nope'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			got, err := externaldns.GivenFlags(tt.args)
			_, parseErr := externaldns.ParseFlags(tt.args)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.ErrorContains(t, parseErr, tt.wantErr, "the same refusal as ParseFlags")
				return
			}
			require.NoError(t, err)
			require.NoError(t, parseErr)
			assert.Equal(t, tt.want, got)
		})
	}
}
