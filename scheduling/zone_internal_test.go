package scheduling

import (
	"math/rand"
	"testing"
)

// zoneRegion must agree with the zoneSuffix convention the plan's region labels use.
func TestZoneRegionAgreesWithZoneSuffix(t *testing.T) {
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
		got, gotOK := zoneRegion(z)
		if got != want || gotOK != ok {
			t.Errorf("zoneRegion(%q) = %q, %v; zoneSuffix says %q, %v", z, got, gotOK, want, ok)
		}
	}
}
