package scheduling

import (
	"github.com/nodeplan/nodeplan/volume"
)

// volumeFits checks a pod's claims against a node: ReadWriteOnce claims already used on
// another node pin the pod there, a ReadWriteOncePod claim admits one pod, and the node's
// attach limits (limits nil: checked per instance type instead) must hold the new claims.
func (s *solver) volumeFits(p *podInfo, attach *volume.AttachCounter, limits map[string]int, nodeName string, explain bool) rejection {
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
		if !explain {
			return rejection{constraint: ConstraintVolume, stage: stageVolume}
		}
		if c.ReadWriteOncePod {
			return reject(true, ConstraintVolume, stageVolume, "claim %s is ReadWriteOncePod and already used by a pod on %s", c.Key, s.claimHolder(c, on))
		}
		return reject(true, ConstraintVolume, stageVolume, "claim %s is ReadWriteOnce and used on %s", c.Key, s.claimHolder(c, on))
	}
	if limits != nil && len(p.volumes.Claims) > 0 {
		if driver, fits := attach.CanAdd(p.volumes.Claims, limits); !fits {
			return reject(explain, ConstraintVolume, stageVolume, "node %s cannot attach more %s volumes (limit %d)", nodeName, driver, limits[driver])
		}
	}
	return ok
}

// claimHolder names the node a claim is used on for an explanation: an existing node by its
// name, a node of this plan without one, since new nodes are only named once the plan is final.
func (s *solver) claimHolder(c volume.Claim, on string) string {
	if c.InUseOn != "" {
		return "node " + on
	}
	for _, n := range s.existing {
		if n.name == on {
			return "node " + on
		}
	}
	return "a new node of this plan"
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
