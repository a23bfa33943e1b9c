package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/nodeplan/nodeplan/scheduling"
)

// WriteJSON writes doc as json.MarshalIndent(doc, "", "  ") and a newline would, byte for
// byte, without holding the indented document in memory: the compact JSON is indented as it
// is written. A PlanDocument's new nodes, most of a large plan, are marshalled a batch at a
// time on every CPU, so the whole document is never in memory either.
func WriteJSON(w io.Writer, doc any) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	ind := &indenter{w: bw}
	var err error
	if plan, ok := doc.(PlanDocument); ok && len(plan.NodeClaims) > 1 {
		err = writePlan(ind, plan)
	} else {
		var data []byte
		if data, err = json.Marshal(doc); err == nil {
			ind.write(data)
		}
	}
	if err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// writePlan writes the plan with one placeholder new node, and the new nodes' own JSON in its
// place. encoding/json marshals a slice's elements one by one, so the bytes are those of the
// whole document marshalled at once.
func writePlan(ind *indenter, doc PlanDocument) error {
	claims := doc.NodeClaims
	placeholder := scheduling.NodeClaim{Name: "\x00nodeplan: the new nodes go here\x00"}
	doc.NodeClaims = []scheduling.NodeClaim{placeholder}
	shell, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	mark, err := json.Marshal(placeholder)
	if err != nil {
		return err
	}
	at := bytes.Index(shell, mark)
	if at < 0 || bytes.Contains(shell[at+len(mark):], mark) {
		doc.NodeClaims = claims // cannot happen: strings cannot hold an unescaped object
		data, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		ind.write(data)
		return nil
	}
	ind.write(shell[:at])
	// The placeholder opens the new-node list, so each node starts one level deeper at a new
	// line and ends back there: workers write batches of nodes already indented, and the
	// batches are written in order. Otherwise the nodes' compact JSON is indented here.
	apart := ind.needIndent && !ind.inString
	depth := ind.depth + 1 // of each node
	const batch = 32
	workers := runtime.GOMAXPROCS(0)
	window := make([][]byte, workers*4) // batches written together, then written out in order
	errs := make([]error, len(window))
	for start := 0; start < len(claims); start += batch * len(window) {
		next := make(chan int, len(window))
		n := 0
		for b := range window {
			if start+b*batch >= len(claims) {
				break
			}
			next <- b
			n++
		}
		close(next)
		var wg sync.WaitGroup
		for range min(workers, n) {
			wg.Go(func() {
				for b := range next {
					from := start + b*batch
					window[b], errs[b] = appendNodeClaims(window[b][:0], claims[from:min(from+batch, len(claims))], from == 0, apart, depth)
				}
			})
		}
		wg.Wait()
		for b := range n {
			if errs[b] != nil {
				return errs[b]
			}
			if apart {
				ind.w.Write(window[b])
			} else {
				ind.write(window[b])
			}
		}
	}
	if apart {
		*ind = indenter{w: ind.w, depth: depth}
	}
	ind.write(shell[at+len(mark):])
	return nil
}

// appendNodeClaims appends the JSON of consecutive new nodes of the plan's list, first among
// them if the list starts with them: indented as nodes depth levels deep with each one's line
// break and indentation before it when indent is set, else compact.
func appendNodeClaims(b []byte, claims []scheduling.NodeClaim, first, indent bool, depth int) ([]byte, error) {
	for i := range claims {
		if i > 0 || !first {
			b = append(b, ',')
		}
		if indent {
			b = append(b, newline(depth)...)
		}
		if data, ok := appendNodeClaim(b, &claims[i], indent, depth); ok {
			if i == 0 {
				// Room for the batch, if its nodes are about as long as the first, so that
				// the buffer is not copied as it grows.
				data = slices.Grow(data, (len(data)-len(b))*len(claims)*5/4)
			}
			b = data
			continue
		}
		data, err := json.Marshal(claims[i])
		if err != nil {
			return b, err
		}
		if !indent {
			b = append(b, data...)
			continue
		}
		var out bytes.Buffer
		if err := json.Indent(&out, data, strings.Repeat("  ", depth), "  "); err != nil {
			return b, err
		}
		b = append(b, out.Bytes()...)
	}
	return b, nil
}

// indenter writes compact JSON (as json.Marshal makes it) indented as json.Indent does with
// no prefix and two spaces: a line per element, "key": value, and empty objects and lists
// kept as {} and []. It may be fed the document in pieces.
type indenter struct {
	w          *bufio.Writer
	depth      int
	inString   bool
	escaped    bool
	needIndent bool // after { or [: indent unless the next byte closes it
}

func (ind *indenter) newline() {
	ind.w.WriteString(newline(ind.depth)) // one write per line, not one per level
}

// newline returns a line break and the indentation of depth.
func newline(depth int) string {
	if depth < len(newlines) {
		return newlines[depth]
	}
	return "\n" + strings.Repeat("  ", depth)
}

// newlines[d] is a newline and the indentation of depth d.
var newlines = func() []string {
	out := make([]string, 16)
	for d := range out {
		out[d] = "\n" + strings.Repeat("  ", d)
	}
	return out
}()

func (ind *indenter) write(data []byte) {
	for len(data) > 0 {
		if ind.inString {
			// Copy the rest of the string at once.
			i := 0
			for ; i < len(data); i++ {
				c := data[i]
				if ind.escaped {
					ind.escaped = false
				} else if c == '\\' {
					ind.escaped = true
				} else if c == '"' {
					ind.inString = false
					i++
					break
				}
			}
			ind.w.Write(data[:i])
			data = data[i:]
			continue
		}
		c := data[0]
		data = data[1:]
		if ind.needIndent && c != '}' && c != ']' {
			ind.needIndent = false
			ind.depth++
			ind.newline()
		}
		switch c {
		case '"':
			ind.inString = true
			ind.w.WriteByte(c)
		case '{', '[':
			ind.needIndent = true
			ind.w.WriteByte(c)
		case ',':
			ind.w.WriteByte(c)
			ind.newline()
		case ':':
			ind.w.WriteString(": ")
		case '}', ']':
			if ind.needIndent {
				ind.needIndent = false
			} else {
				ind.depth--
				ind.newline()
			}
			ind.w.WriteByte(c)
		default:
			ind.w.WriteByte(c)
		}
	}
}
