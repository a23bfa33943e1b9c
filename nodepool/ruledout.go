package nodepool

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nodeplan/nodeplan/requirements"
)

// describeExclusion names the requirement on key, saying so when it is the NodePool's default
// (the very requirement of poolReqs) rather than something the user wrote.
func (np *NodePool) describeExclusion(poolReqs, reqs requirements.Requirements, key string) string {
	text := reqs[key].String()
	if pr, ok := poolReqs[key]; ok && pr == reqs[key] && slices.Contains(np.DefaultedKeys, key) {
		text += " (v1alpha5 default: the Provisioner does not name " + key + ")"
	}
	return text
}

// RuledOutBy says which requirements of reqs (a node's, narrowed from the NodePool's own
// requirements poolReqs) rule out the NodePool's instance types, most eliminations first, as
// " (of N instance types: ... rules out K; ...)", or "" when none is ruled out. A reason then
// names the NodePool requirement that excludes the type a pod pins, not only the pod's own
// asks.
func (np *NodePool) RuledOutBy(poolReqs, reqs requirements.Requirements) string {
	counts := map[string]int{}
	for _, it := range np.InstanceTypes {
		if it == nil {
			continue
		}
		var err *requirements.ConflictError
		if e := it.Requirements().Intersects(reqs); e != nil && errors.As(e, &err) {
			counts[np.describeExclusion(poolReqs, reqs, err.Key)]++
			continue
		}
		if len(it.CompatibleOfferings(reqs)) == 0 {
			counts["an available offering in the allowed zones and capacity types"]++
		}
	}
	if len(counts) == 0 {
		return ""
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > 3 {
		keys = keys[:3]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s rules out %d", k, counts[k])
	}
	return " (of " + strconv.Itoa(len(np.InstanceTypes)) + " instance types: " + strings.Join(parts, "; ") + ")"
}
