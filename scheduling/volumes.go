package scheduling

import (
	"fmt"

	"github.com/nodeplan/nodeplan/volume"
)

// volumeProblem is a claim a pod cannot use on a node: used on another node (on), or beyond
// the node's attach limit for driver.
type volumeProblem struct {
	claim  volume.Claim
	on     string
	driver string
	limit  int
}

// findVolumeProblem checks a pod's claims against a node: ReadWriteOnce claims already used on
// another node pin the pod there, a ReadWriteOncePod claim admits one pod, and the node's
// attach limits (limits nil: checked per instance type instead) must hold the new claims.
func (s *solver) findVolumeProblem(p *podInfo, attach *volume.AttachCounter, limits map[string]int, nodeName string) (volumeProblem, bool) {
	for _, c := range p.volumes.Claims {
		if !c.ReadWriteOnce && !c.ReadWriteOncePod {
			continue
		}
		on := c.InUseOn
		if on == "" {
			on = s.claimNode[c.Key]
		}
		if on == "" {
			continue
		}
		if !c.ReadWriteOncePod && on == nodeName {
			continue
		}
		return volumeProblem{claim: c, on: on}, true
	}
	if limits != nil && len(p.volumes.Claims) > 0 {
		if driver, fits := attach.CanAdd(p.volumes.Claims, limits); !fits {
			return volumeProblem{driver: driver, limit: limits[driver]}, true
		}
	}
	return volumeProblem{}, false
}

// describeVolumeProblem says what a volumeProblem on the named node is. Nodes are named when
// they join the plan, so a planned node's name is the one the plan shows.
func describeVolumeProblem(v volumeProblem, nodeName string) string {
	switch {
	case v.driver != "":
		return fmt.Sprintf("node %s cannot attach more %s volumes (limit %d)", nodeName, v.driver, v.limit)
	case v.claim.ReadWriteOncePod:
		return fmt.Sprintf("claim %s is ReadWriteOncePod and already used by a pod on node %s", v.claim.Key, v.on)
	default:
		return fmt.Sprintf("claim %s is ReadWriteOnce and used on node %s", v.claim.Key, v.on)
	}
}

// attachFits reports whether a node of type t can attach the claims counted so far plus the
// pod's.
func attachFits(t *typeOption, attach *volume.AttachCounter, claims []volume.Claim) bool {
	if len(claims) == 0 || t.it.VolumeAttachLimits == nil {
		return true
	}
	_, fits := attach.CanAdd(claims, t.it.VolumeAttachLimits)
	return fits
}

// recordVolumes pins the pod's single-node claims to the node it was placed on.
func (s *solver) recordVolumes(p *podInfo, nodeName string) {
	for _, c := range p.volumes.Claims {
		if (c.ReadWriteOnce || c.ReadWriteOncePod) && s.claimNode[c.Key] == "" {
			s.claimNode[c.Key] = nodeName
		}
	}
}

// countExistingVolumes counts the claims of pods already running on existing nodes against
// those nodes' attach limits.
func (s *solver) countExistingVolumes() {
	for _, n := range s.existing {
		n.attach = s.volumes.AttachedOn(n.name)
	}
}
