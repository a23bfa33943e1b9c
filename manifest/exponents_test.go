package manifest

import "testing"

func TestExponentHint(t *testing.T) {
	for text, want := range map[string]bool{
		`{"cpu":"1e1000"}`:             true,
		`{"cpu":"1.e-0001"}`:           true,
		`{"cpu":".E+12345"}`:           true,
		`{"cpu":"1e999"}`:              false,
		`{"cpu":"1e+99"}`:              false,
		`{"image":"sha256:0e1234abc"}`: true, // a digest: walked, then let through
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
