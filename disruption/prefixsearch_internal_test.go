package disruption

import (
	"math/rand/v2"
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

// A prefix found too short to pay for its new nodes, at or above where Karpenter's search
// ended, sends the search above it once: a second binary search over the longer prefixes,
// whatever that search finds too short in turn.
func TestPrefixSearchSearchesOnceAboveTooShortPrefixes(t *testing.T) {
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
				if short[n] {
					tooShort = max(tooShort, n)
				}
				return valid[n]
			}, func() int { return tooShort })

			want := karpenterPrefixTries(top, MaxMultiNodeCandidates, valid)
			end, longestShort := 2, 0
			for _, n := range want {
				if valid[n] {
					end = n + 1
				}
				if short[n] {
					longestShort = max(longestShort, n)
				}
			}
			if longestShort >= end {
				// The second round is Karpenter's binary search over the lengths above.
				for lo, hi := longestShort+1, top; lo <= hi; {
					mid := (lo + hi) / 2
					want = append(want, mid)
					if valid[mid] {
						lo = mid + 1
					} else {
						hi = mid - 1
					}
				}
			}
			require.Equal(t, want, tries, "top %d, valid %v, too short %v", top, valid, short)
		}
	}
}
