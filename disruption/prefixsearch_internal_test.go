package disruption

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// karpenterPrefixTries is the prefix lengths Karpenter's firstNConsolidationOption simulates
// for candidates candidates, at most max of them, when the prefix of length n is valid[n]:
// its binary search over the last index, mid, of candidates[0:mid+1].
func karpenterPrefixTries(candidates, max int, valid []bool) []int {
	var tries []int
	lo := 1
	if candidates <= max {
		max = candidates - 1
	}
	for lo <= max {
		mid := (lo + max) / 2
		tries = append(tries, mid+1)
		if valid[mid+1] {
			lo = mid + 1
		} else {
			max = mid - 1
		}
	}
	return tries
}

// The multi-node search's first round tries the prefixes Karpenter's binary search tries, in
// its order, whichever prefixes are valid: about half of the candidates first, not all of
// them. Without a prefix found too short there is no other round.
func TestPrefixSearchIsKarpentersBinarySearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for candidates := 2; candidates <= MaxMultiNodeCandidates; candidates++ {
		for pattern := range 20 {
			valid := make([]bool, candidates+1)
			switch pattern {
			case 0: // none valid
			case 1: // all valid
				for n := range valid {
					valid[n] = true
				}
			case 2: // valid up to a length, as when the ranked nodes get fuller
				upTo := r.IntN(candidates + 1)
				for n := range valid {
					valid[n] = n <= upTo
				}
			default:
				for n := range valid {
					valid[n] = r.IntN(2) == 0
				}
			}
			var tries []int
			searchPrefixLengths(min(candidates, MaxMultiNodeCandidates), func(n, _ int) bool {
				tries = append(tries, n)
				return valid[n]
			}, func() int { return 0 })
			want := karpenterPrefixTries(candidates, MaxMultiNodeCandidates, valid)
			require.Equal(t, want, tries, "%d candidates, valid %v", candidates, valid)
		}
	}
}

// A prefix found too short to pay for its new nodes sends the search above it again, round
// after round, each starting above the last: every try stays within 2 and top, never below
// where the search goes down to, and the search ends.
func TestPrefixSearchSearchesAboveTooShortPrefixes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for top := 2; top <= MaxMultiNodeCandidates; top++ {
		for range 10 {
			valid, short := make([]bool, top+1), make([]bool, top+1)
			for n := 2; n <= top; n++ {
				valid[n] = r.IntN(4) == 0
				short[n] = !valid[n] && r.IntN(3) == 0
			}
			tooShort := 0
			var tries []int
			searchPrefixLengths(top, func(n, lo int) bool {
				require.LessOrEqual(t, lo, n, "top %d: tried %d going down to %d", top, n, lo)
				tries = append(tries, n)
				require.LessOrEqual(t, len(tries), 4*top, "top %d: the search does not end: %v", top, tries)
				if short[n] {
					tooShort = max(tooShort, n)
				}
				return valid[n]
			}, func() int { return tooShort })
			for _, n := range tries {
				require.True(t, n >= 2 && n <= top, "top %d: tried %d", top, n)
			}
			// The longest length found too short has been searched above.
			if tooShort > 0 && tooShort < top {
				above := slices.ContainsFunc(tries, func(n int) bool { return n > tooShort })
				require.True(t, above, "top %d: nothing tried above %d, found too short: %v", top, tooShort, tries)
			}
		}
	}
}
