package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/internal/textdist"
)

// nearest returns the candidate closest to word when it is close enough to be a slip, as
// cobra judges it: at most two edits away (and fewer than word has letters), or starting with
// word; "" when none is. Ties go to the earlier candidate.
func nearest(word string, candidates []string) string {
	word = strings.ToLower(word)
	best, bestDist := "", 3
	for _, c := range candidates {
		d := textdist.Levenshtein(word, strings.ToLower(c))
		if d >= len(word) && !(len(word) >= 2 && strings.HasPrefix(strings.ToLower(c), word)) {
			continue
		}
		if strings.HasPrefix(strings.ToLower(c), word) && len(word) >= 2 {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean is " (did you mean X?)" for the nearest candidate, or "".
func didYouMean(word string, candidates []string) string {
	if n := nearest(word, candidates); n != "" {
		return fmt.Sprintf(" (did you mean %s?)", n)
	}
	return ""
}

// parseShort parses a subcommand's flags and reports a bad one in two lines, the name of
// the nearest flag and where to find the rest, as kubectl does, instead of the whole usage.
// -h still prints the usage.
func parseShort(fset *flag.FlagSet, args []string) error {
	out := fset.Output()
	fset.SetOutput(io.Discard)
	err := fset.Parse(args)
	fset.SetOutput(out)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fset.Usage()
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fset.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = fmt.Sprintf("unknown flag --%s", strings.TrimLeft(name, "-"))
		if n := nearest(strings.TrimLeft(name, "-"), names); n != "" {
			msg += fmt.Sprintf("\nDid you mean %s?", flagName(n))
		}
	}
	fmt.Fprintf(out, "%s: %s\nRun \"%s -h\" for usage.\n", fset.Name(), msg, fset.Name())
	return err
}

// flagName writes a flag as users type it: -f for one letter, --explain for longer names.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// unknownCommand reports a command that does not exist, naming the nearest one.
func (p Program) unknownCommand(stderr io.Writer, name string) int {
	var names []string
	for _, c := range p.Commands {
		names = append(names, c.Name)
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n", p.Name, name)
	if n := nearest(name, names); n != "" {
		fmt.Fprintf(stderr, "Did you mean %s?\n", n)
	}
	fmt.Fprintf(stderr, "Run \"%s help\" for the commands.\n", p.Name)
	return ExitUsage
}

// check says what is wrong with --catalog and --region before any input is read: a bad
// value is a bad command line (exit 2), not unusable input. A region the input implies is
// checked later, with the input.
func (f *catalogFlags) check() string {
	switch f.catalog {
	case "":
		return "--catalog is empty: use aws, synthetic or the path of a catalog file"
	case "aws":
		if f.region != "" && !slices.Contains(aws.Regions(), f.region) {
			return fmt.Sprintf("invalid --region %q: the embedded aws catalog has %s%s", f.region, strings.Join(aws.Regions(), ", "), didYouMean(f.region, aws.Regions()))
		}
	case "synthetic":
		if errs := validation.IsValidLabelValue(f.region); f.region != "" && len(errs) > 0 {
			return fmt.Sprintf("invalid --region %q: not a valid region name: %s", f.region, strings.Join(errs, "; "))
		}
	default:
		if _, err := os.Stat(f.catalog); errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("invalid --catalog %q: no such file; use aws, synthetic or the path of a catalog file%s", f.catalog, didYouMean(f.catalog, []string{"aws", "synthetic"}))
		}
	}
	return ""
}
