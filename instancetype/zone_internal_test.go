package instancetype

import (
	"math/rand"
	"regexp"
	"testing"
)

// ZoneRegion must agree with the convention as a regular expression says it.
func TestZoneRegionAgreesWithZoneSuffix(t *testing.T) {
	zoneSuffix := regexp.MustCompile(`^([a-z]+-[a-z]+-[0-9]+)[a-z]$`)
	zones := []string{"us-west-2a", "eu-central-1b", "ap-southeast-10z", "us-gov-west-1a", "test-zone-a", "us-west-2", "us-west-2-lax-1a", "use1-az1", "a-b-1c", "-b-1c", "a--1c", "a-b-c", "a-b-1", "A-b-1c", "", "x"}
	r := rand.New(rand.NewSource(1))
	alphabet := "ab-12Z"
	for i := 0; i < 5000; i++ {
		b := make([]byte, r.Intn(9))
		for j := range b {
			b[j] = alphabet[r.Intn(len(alphabet))]
		}
		zones = append(zones, string(b))
	}
	for _, z := range zones {
		want, ok := "", false
		if m := zoneSuffix.FindStringSubmatch(z); m != nil {
			want, ok = m[1], true
		}
		got, gotOK := ZoneRegion(z)
		if got != want || gotOK != ok {
			t.Errorf("ZoneRegion(%q) = %q, %v; zoneSuffix says %q, %v", z, got, gotOK, want, ok)
		}
	}
}
