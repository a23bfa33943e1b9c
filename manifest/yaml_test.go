package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
)

// parserDuplicates returns the duplicate-key problems the YAML parser reports, or ok false when
// it fails otherwise.
func parserDuplicates(text []byte) (dups []string, ok bool) {
	var v any
	err := yamlv2.UnmarshalStrict(text, &v)
	if err == nil {
		return nil, true
	}
	var te *yamlv2.TypeError
	if !errors.As(err, &te) {
		return nil, false
	}
	for _, e := range te.Errors {
		if !strings.Contains(e, "already set in map") {
			return nil, false
		}
	}
	return te.Errors, true
}

// checkScan compares the quick scan with the parser: when the scan follows the document, it
// finds the parser's duplicates, in the parser's order and words, or fewer (keys that are not
// plain strings), never others.
func checkScan(t *testing.T, text []byte) dupScan {
	t.Helper()
	s := scanDuplicateKeys(text, 1)
	if !s.ok {
		return s
	}
	want, ok := parserDuplicates(text)
	if !ok {
		return s // a syntax error the parser reports first
	}
	if s.count > len(want) {
		t.Fatalf("the scan finds %d duplicates, the parser %d:\n%q\nscan: %q\nparser: %q", s.count, len(want), text, s.first, want)
	}
	if s.count == len(want) {
		for i, l := range s.first {
			if l != want[i] {
				t.Fatalf("duplicate %d: scan %q, parser %q in\n%s", i, l, want[i], text)
			}
		}
	}
	return s
}

func TestScanDuplicateKeys(t *testing.T) {
	cases := []struct {
		yaml  string
		count int // -1: the scan gives up
	}{
		{"a: 1\nb: 2\n", 0},
		{"a: 1\na: 2\na: 3\n", 2},
		{"a: 1\na:\n  b: 1\n  b: 2\n", 2},
		{"a:\na:\nb: 1\n", 1},
		{"a: 1\na:\n\n  # c\n  - x\n", 1},
		{"a: 1\na:\n- x\n", 1},
		{"a: |\n  a: 1\n  a: 2\nb: 1\n", 0},
		{"a: >-\n  x: 1\n\n  x: 1\na: 2\n", 1},
		{"a: some\n  long text: here\n  long text: here\n", 0},
		{"- a: 1\n  a: 2\n- a: 3\n  b: 1\n", 1},
		{"items:\n- name: x\n  env:\n  - name: A\n    value: 1\n  - name: A\n  name: y\n", 1},
		{"x:\n  a: 1\n  a:\ny: 1\n", 1},
		{"a: 'it''s: x'\na: \"q: #\" # c\n", 1},
		{"a: {b: 1, b: 2}\n", 0}, // flow: the parser's, not the scan's
		{"a: [1, 2]\nb: {c: d}\nb: 1\n", 1},
		{"a: 'multi\n  line'\n", -1},
		{"a: &x 1\nb: *x\n", -1},
		{"<<: {a: 1}\n", -1},
		{"? a\n: 1\n", -1},
		{"1: a\n1: b\n", 0}, // numbers are not compared
		{"yes: a\non: b\n", 0},
		{"- - a\n", -1},
		{"- |\n  a: 1\n  a: 1\n- b\n", 0},
		{"a: 1 # a: 2\na: 3\n", 1},
		{"kind: Pod\nmetadata:\n  labels:\n    app: web\n    app: web\n  name: x\n", 1},
		{"abc def: ghi\nabc def: ghi\nabc def: ghi\n", 2}, // plain keys of several words
		{"yes sir: 1\nyes sir: 2\n", 1},
		{"1 a: x\n1 a: y\n", 0},
		{"a  b: 1\na  b: 2\n", -1}, // two spaces: not followed
	}
	for _, c := range cases {
		s := checkScan(t, []byte(c.yaml))
		switch {
		case c.count < 0 && s.ok:
			t.Errorf("%q: the scan should give up, found %d", c.yaml, s.count)
		case c.count >= 0 && !s.ok:
			t.Errorf("%q: the scan gave up", c.yaml)
		case c.count >= 0 && s.count != c.count:
			t.Errorf("%q: %d duplicates, want %d (%q)", c.yaml, s.count, c.count, s.first)
		}
	}
}

// The scan follows the test manifests and agrees with the parser on them.
func TestScanDuplicateKeysOnTestdata(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("testdata/*.yaml")
	followed := 0
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range splitYAML(data) {
			if checkScan(t, p.text).ok {
				followed++
			}
		}
	}
	if followed == 0 {
		t.Fatal("the scan gave up on every document")
	}
}

// FuzzScanDuplicateKeys: the scan never reports a duplicate the parser does not.
func FuzzScanDuplicateKeys(f *testing.F) {
	f.Add([]byte("a: 1\na:\n  b: 1\n  b: 2\n"))
	f.Add([]byte("- a: 1\n  a: 2\n- a: 3\n  b: |\n    b: 1\n"))
	f.Add([]byte("kind: Pod\nmetadata:\n  labels:\n    app: web\n    app: web\n  name: x\n"))
	f.Add([]byte("abc def: ghi\nabc def:\n  x y: 1\n  x y: 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		checkScan(t, data)
	})
}
