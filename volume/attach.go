package volume

import storagev1 "k8s.io/api/storage/v1"

// AttachCounter counts the unique claims each CSI driver attaches to one node, so that a
// node's attach limits are never exceeded. A claim is counted once however many of the node's
// pods use it; claims without a driver are not counted. The zero value is an empty node.
type AttachCounter struct {
	byDriver map[string]map[string]struct{}
}

// NewAttachCounter returns a counter for a node with nothing attached.
func NewAttachCounter() *AttachCounter { return &AttachCounter{} }

// AttachedOn returns a counter holding the claims the bound pods of an existing node use.
func (ix *Index) AttachedOn(node string) *AttachCounter {
	c := &AttachCounter{}
	c.Add(ix.attached[node])
	return c
}

// Count returns how many unique claims of driver the node uses.
func (c *AttachCounter) Count(driver string) int {
	if c == nil {
		return 0
	}
	return len(c.byDriver[driver])
}

// CanAdd reports whether the node can take claims without any driver going over its limit
// (limits maps driver → most volumes; a driver not in limits is unlimited). When it cannot, it
// returns the first driver, in claim order, that would go over. It does not allocate.
func (c *AttachCounter) CanAdd(claims []Claim, limits map[string]int) (driver string, ok bool) {
	if len(limits) == 0 {
		return "", true
	}
	for i, cl := range claims {
		limit, limited := limits[cl.Driver]
		if cl.Driver == "" || !limited || seenDriver(claims[:i], cl.Driver) {
			continue
		}
		if c.Count(cl.Driver)+c.adding(claims[i:], cl.Driver) > limit {
			return cl.Driver, false
		}
	}
	return "", true
}

// Check is CanAdd with an *AttachLimitError that gives the numbers.
func (c *AttachCounter) Check(claims []Claim, limits map[string]int) error {
	driver, ok := c.CanAdd(claims, limits)
	if ok {
		return nil
	}
	return &AttachLimitError{Driver: driver, Attached: c.Count(driver), Adding: c.adding(claims, driver), Limit: limits[driver]}
}

// adding counts the claims of driver in claims that the node does not use yet, each once.
func (c *AttachCounter) adding(claims []Claim, driver string) int {
	n := 0
	for i, cl := range claims {
		if cl.Driver != driver || c.has(driver, cl.Key) || seenKey(claims[:i], cl.Key) {
			continue
		}
		n++
	}
	return n
}

func (c *AttachCounter) has(driver, key string) bool {
	if c == nil {
		return false
	}
	_, ok := c.byDriver[driver][key]
	return ok
}

func seenDriver(claims []Claim, driver string) bool {
	for _, cl := range claims {
		if cl.Driver == driver {
			return true
		}
	}
	return false
}

func seenKey(claims []Claim, key string) bool {
	for _, cl := range claims {
		if cl.Key == key {
			return true
		}
	}
	return false
}

// Fits reports whether a node with these attach limits (nil: none) can attach the claims counted
// so far plus claims.
func (c *AttachCounter) Fits(claims []Claim, limits map[string]int) bool {
	if len(claims) == 0 || limits == nil {
		return true
	}
	_, fits := c.CanAdd(claims, limits)
	return fits
}

// Add records claims as used on the node. It does not check limits.
func (c *AttachCounter) Add(claims []Claim) {
	for _, cl := range claims {
		if cl.Driver == "" {
			continue
		}
		if c.byDriver == nil {
			c.byDriver = map[string]map[string]struct{}{}
		}
		set := c.byDriver[cl.Driver]
		if set == nil {
			set = map[string]struct{}{}
			c.byDriver[cl.Driver] = set
		}
		set[cl.Key] = struct{}{}
	}
}

// Clone returns an independent copy, for trying placements without committing them.
func (c *AttachCounter) Clone() *AttachCounter {
	out := &AttachCounter{}
	if c == nil || c.byDriver == nil {
		return out
	}
	out.byDriver = make(map[string]map[string]struct{}, len(c.byDriver))
	for d, set := range c.byDriver {
		cp := make(map[string]struct{}, len(set))
		for k := range set {
			cp[k] = struct{}{}
		}
		out.byDriver[d] = cp
	}
	return out
}

// ExistingNodeLimits returns an existing node's attach limits from its CSINode:
// spec.drivers[].allocatable.count per driver. Drivers without a count are unlimited; a nil
// CSINode gives nil (no limits known).
func ExistingNodeLimits(csiNode *storagev1.CSINode) map[string]int {
	if csiNode == nil {
		return nil
	}
	var out map[string]int
	for _, d := range csiNode.Spec.Drivers {
		if d.Allocatable == nil || d.Allocatable.Count == nil {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[d.Name] = int(*d.Allocatable.Count)
	}
	return out
}
