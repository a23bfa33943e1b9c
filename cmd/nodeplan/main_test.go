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
		{"unknown flag", []string{"catalog", "--nope"}, exitUsage, "", "flag provided but not defined: -nope"},
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
