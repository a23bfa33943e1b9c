package scheduling

import (
	"strconv"
	"strings"
)

// repackKey is the memo's key of a packing: the group (NodePool and requirement set), the
// strategy and the classes (sorted by requests) with their counts.
func repackKey(group string, strategy int, classes []podClass) string {
	var b strings.Builder
	b.WriteString(group)
	b.WriteByte('|')
	b.WriteString(strconv.Itoa(strategy))
	for _, c := range classes {
		b.WriteByte('|')
		b.WriteString(c.key)
		b.WriteByte('x')
		b.WriteString(strconv.Itoa(len(c.pods)))
	}
	return b.String()
}
