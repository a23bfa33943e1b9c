package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"runtime"
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
	// line and ends back there: a batch can be indented on its own, by the worker that
	// marshals it, from the state the first node finds (the list just opened) or the one
	// every later node finds (after a node). Otherwise the nodes are indented here, in order.
	first := *ind
	first.w = nil
	apart := ind.needIndent && !ind.inString
	after := indenter{depth: ind.depth + 1}
	const batch = 64
	workers := runtime.GOMAXPROCS(0)
	window := make([]bytes.Buffer, workers*4) // batches marshalled together, written in order
	errs := make([]error, len(window))
	// Each worker keeps its compact JSON and its writer into the window from batch to batch.
	type scratch struct {
		compact bytes.Buffer
		bw      *bufio.Writer
	}
	scratches := make([]scratch, workers)
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
		for w := range min(workers, n) {
			wg.Go(func() {
				compact := &scratches[w].compact
				for b := range next {
					buf := &window[b]
					buf.Reset()
					if apart {
						compact.Reset()
						buf = compact
					}
					enc := json.NewEncoder(buf) // as json.Marshal, plus a newline to drop
					from := start + b*batch
					for i := from; i < min(from+batch, len(claims)); i++ {
						if i > 0 {
							buf.WriteByte(',')
						}
						if data, ok := appendNodeClaim(buf.AvailableBuffer(), &claims[i]); ok {
							buf.Write(data)
							continue
						}
						if errs[b] = enc.Encode(claims[i]); errs[b] != nil {
							break
						}
						buf.Truncate(buf.Len() - 1)
					}
					if apart && errs[b] == nil {
						if scratches[w].bw == nil {
							scratches[w].bw = bufio.NewWriterSize(&window[b], 64<<10)
						}
						bw := scratches[w].bw
						bw.Reset(&window[b])
						bi := after
						if from == 0 {
							bi = first
						}
						bi.w = bw
						bi.write(compact.Bytes())
						bw.Flush()
					}
				}
			})
		}
		wg.Wait()
		for b := range n {
			if errs[b] != nil {
				return errs[b]
			}
			if apart {
				ind.w.Write(window[b].Bytes())
			} else {
				ind.write(window[b].Bytes())
			}
		}
	}
	if apart {
		*ind = indenter{w: ind.w, depth: after.depth}
	}
	ind.write(shell[at+len(mark):])
	return nil
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
	if ind.depth < len(newlines) {
		ind.w.WriteString(newlines[ind.depth]) // one write per line, not one per level
		return
	}
	ind.w.WriteByte('\n')
	for range ind.depth {
		ind.w.WriteString("  ")
	}
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
