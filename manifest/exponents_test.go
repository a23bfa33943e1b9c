package manifest

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestExponentHint(t *testing.T) {
	for text, want := range map[string]bool{
		`{"cpu":"1e1000"}`:             true,
		`{"cpu":"1.e-0001"}`:           true,
		`{"cpu":".E+12345"}`:           true,
		`{"cpu":"1e999"}`:              false,
		`{"cpu":"1e+99"}`:              false,
		`{"image":"sha256:0e1234abc"}`: false, // a digest: not a whole value
		`{"uid":"7e5e2912-69ab"}`:      false,
		`{"uid":"ab-7e5e2912"}`:        false,
		`{"cpu":1e1000}`:               true,
		`["-1.5E+01000"]`:              true,
		`{"cpu": 2e1000 }`:             true,
		`{"name":"the1234"}`:           false,
		`{"name":"e1234"}`:             false,
		`1e12`:                         false,
		`9e1234`:                       true,
		``:                             false,
	} {
		if got := exponentHint([]byte(text)); got != want {
			t.Errorf("exponentHint(%q) = %v, want %v", text, got, want)
		}
	}
}

// exponentHint never misses a value findHugeExponent finds, wherever it is.
func FuzzExponentHint(f *testing.F) {
	for _, s := range []string{`{"cpu":"1e1000"}`, `[1e1000]`, `{"a":{"b":["x","-.5E-12345"]}}`, `{"uid":"7e5e2912-69ab"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // a document's JSON is always one valid value
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var tree any
		if dec.Decode(&tree) != nil {
			return
		}
		if field, value, found := findHugeExponent(tree, "", true); found && !exponentHint(raw) {
			t.Fatalf("%s: %s has %s, exponentHint misses it", raw, field, value)
		}
	})
}
