package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/cli"
)

// nodeplan runs the CLI as main would and returns its exit code and output.
func nodeplan(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunDispatch(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring; "" means stdout must be empty
		wantStderr string // substring; "" means stderr must be empty
	}{
		{"no command", nil, exitUsage, "", "Usage:\n  nodeplan <command>"},
		{"unknown command", []string{"plant"}, exitUsage, "", `unknown command "plant"`},
		{"help", []string{"help"}, exitOK, "Commands:\n  plan", ""},
		{"-h", []string{"-h"}, exitOK, "Commands:", ""},
		{"--help", []string{"--help"}, exitOK, "Commands:", ""},
		{"help for a command", []string{"help", "catalog"}, exitOK, "nodeplan catalog [--catalog aws|synthetic|FILE]", ""},
		{"help for an unknown command", []string{"help", "plant"}, exitUsage, "", `unknown command "plant"`},
		{"command -h", []string{"catalog", "-h"}, exitOK, "", "Flags:"},
		{"unknown flag", []string{"catalog", "--nope"}, exitUsage, "", "unknown flag --nope"},
		{"flag without its value", []string{"catalog", "-l"}, exitUsage, "", "flag needs an argument: -l"},
		{"stray argument", []string{"catalog", "--catalog", "synthetic", "m5.large"}, exitUsage, "", `unexpected argument "m5.large"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := nodeplan(tt.args...)
			require.Equal(t, tt.wantCode, code, "stderr: %s", stderr)
			if tt.wantStdout == "" {
				require.Empty(t, stdout)
			} else {
				require.Contains(t, stdout, tt.wantStdout)
			}
			if tt.wantStderr == "" {
				require.Empty(t, stderr)
			} else {
				require.Contains(t, stderr, tt.wantStderr)
			}
		})
	}
}

func TestUsageListsEveryCommand(t *testing.T) {
	_, stdout, _ := nodeplan("help")
	for _, c := range cli.Nodeplan().Commands {
		require.Contains(t, stdout, "  "+c.Name+" ")
	}
}

// A misspelt command or flag gets a short error naming the nearest one, as kubectl's do, not
// the whole usage; bad --catalog and --region values are a bad command line (exit 2) too.
func TestSuggestions(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"plann"}, "nodeplan: unknown command \"plann\"\nDid you mean plan?\nRun \"nodeplan help\" for the commands.\n"},
		{[]string{"help", "consolidat"}, "Did you mean consolidate?\n"},
		{[]string{"xyz"}, "nodeplan: unknown command \"xyz\"\nRun \"nodeplan help\" for the commands.\n"},
		{[]string{"plan", "-f", statefulEBS, "--explian", "shop/catalog-1"}, "nodeplan plan: unknown flag --explian\nDid you mean --explain?\nRun \"nodeplan plan -h\" for usage.\n"},
		{[]string{"consolidate", "-f", scaledToZero, "--nwo", "2026-01-12T10:00:00Z"}, "Did you mean --now?\n"},
		{[]string{"plan", "-f", statefulEBS, "--region", "us-west2"}, "invalid --region \"us-west2\": the embedded aws catalog has eu-central-1, eu-west-1, eu-west-2, us-east-1, us-east-2, us-west-2 (did you mean us-west-2?)\n"},
		{[]string{"plan", "-f", statefulEBS, "--catalog", "awss"}, "invalid --catalog \"awss\": no such file; use aws, synthetic or the path of a catalog file (did you mean aws?)\n"},
		{[]string{"consolidate", "-f", scaledToZero, "--catalog", "synthetc"}, "(did you mean synthetic?)\n"},
		{[]string{"catalog", "--region", "eu-west-3"}, "invalid --region \"eu-west-3\""},
	}
	for _, tt := range tests {
		code, stdout, stderr := nodeplan(tt.args...)
		require.Equal(t, exitUsage, code, "%v: %s", tt.args, stderr)
		require.Empty(t, stdout)
		require.Contains(t, stderr, tt.want, "%v", tt.args)
		require.LessOrEqual(t, strings.Count(stderr, "\n"), 3, "%v: the error must be short: %s", tt.args, stderr)
	}
}
