package instancetype

import "github.com/nodeplan/nodeplan/requirements"

// OfferingRegions returns the regions of the type's available offerings when every zone names
// its region (see ZoneRegion), else nil.
func (it *InstanceType) OfferingRegions() []string {
	out := make([]string, 0, len(it.Offerings))
	for _, o := range it.Offerings {
		if !o.Available {
			continue
		}
		region, ok := ZoneRegion(o.Zone)
		if !ok {
			return nil
		}
		out = append(out, region)
	}
	return out
}

// ZoneRegion returns the region of a zone named by the cloud convention <region><letter>,
// the region being <letters>-<letters>-<digits> (us-west-2a: us-west-2); false for other
// names. It uses no regular expression: it runs for every offering of every type.
func ZoneRegion(zone string) (string, bool) {
	n := len(zone)
	if n < 2 || !isLower(zone[n-1]) {
		return "", false
	}
	part, length := 0, 0
	for i := 0; i < n-1; i++ {
		c := zone[i]
		switch {
		case c == '-':
			if length == 0 || part == 2 {
				return "", false
			}
			part, length = part+1, 0
		case part < 2 && isLower(c), part == 2 && c >= '0' && c <= '9':
			length++
		default:
			return "", false
		}
	}
	if part != 2 || length == 0 {
		return "", false
	}
	return zone[:n-1], true
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// NodeRegion returns the region a node with these labels lands in zone: its region label when
// set, else the cloud convention of a zone named <region><letter> (ZoneRegion), else "".
func NodeRegion(labels map[string]string, zone string) string {
	if r, ok := labels[requirements.LabelTopologyRegion]; ok {
		return r
	}
	region, _ := ZoneRegion(zone)
	return region
}
