package volume

import "fmt"

// Pins holds, for each claim only one node may use (ReadWriteOnce, ReadWriteOncePod), the node
// its first planned user went to, so that every later user goes there too. The zero value pins
// nothing.
type Pins struct {
	node map[string]string
}

// Record pins the single-node claims among claims to node, unless already pinned.
func (p *Pins) Record(claims []Claim, node string) {
	for _, c := range claims {
		if (c.ReadWriteOnce || c.ReadWriteOncePod) && p.node[c.Key] == "" {
			if p.node == nil {
				p.node = map[string]string{}
			}
			p.node[c.Key] = node
		}
	}
}

// Problem is a claim a pod cannot use on a node: used on another node (On), or beyond the
// node's attach limit for Driver.
type Problem struct {
	Claim  Claim
	On     string
	Driver string
	Limit  int
}

// Problem checks a pod's claims against the node called node: ReadWriteOnce claims already used
// on another node pin the pod there, a ReadWriteOncePod claim admits one pod, and the node's
// attach limits (limits nil: checked per instance type instead) must hold the new claims.
func (p *Pins) Problem(claims []Claim, attach *AttachCounter, limits map[string]int, node string) (Problem, bool) {
	for _, c := range claims {
		if !c.ReadWriteOnce && !c.ReadWriteOncePod {
			continue
		}
		on := c.InUseOn
		if on == "" {
			on = p.node[c.Key]
		}
		if on == "" {
			continue
		}
		if !c.ReadWriteOncePod && on == node {
			continue
		}
		return Problem{Claim: c, On: on}, true
	}
	if limits != nil && len(claims) > 0 {
		if driver, fits := attach.CanAdd(claims, limits); !fits {
			return Problem{Driver: driver, Limit: limits[driver]}, true
		}
	}
	return Problem{}, false
}

// Describe says what the problem on the node called node is.
func (v Problem) Describe(node string) string {
	switch {
	case v.Driver != "":
		return fmt.Sprintf("node %s cannot attach more %s volumes (limit %d)", node, v.Driver, v.Limit)
	case v.Claim.ReadWriteOncePod:
		return fmt.Sprintf("claim %s is ReadWriteOncePod and already used by a pod on node %s", v.Claim.Key, v.On)
	default:
		return fmt.Sprintf("claim %s is ReadWriteOnce and used on node %s", v.Claim.Key, v.On)
	}
}
