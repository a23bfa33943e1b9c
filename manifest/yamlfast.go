package manifest

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// fastYAMLToJSON converts a YAML document to JSON without the YAML parser, for the block
// YAML kubectl and people write: block mappings and sequences, plain and quoted scalars on
// one line, flow collections on one line ({}, [a, b], {k: v}), comments.
// It reads each scalar as the parser does (YAML 1.1: yes/no/on/off are booleans, 0x1F and
// 017 integers), and writes keys in the document's order. ok is false for anything else —
// anchors, aliases, tags, block scalars (| >), scalars over several lines, floats, timestamps,
// keys that are not strings, duplicate keys, merge keys, tabs, control characters, and any
// error — which the parser then converts, so that what it accepts and its messages stay the
// parser's own.
func fastYAMLToJSON(text []byte) (raw []byte, ok bool) {
	if !printable(text) {
		return nil, false
	}
	// The JSON is about as long as the YAML, but a document left to the parser early (one of
	// millions of duplicate keys) should not cost its size: start small, and make room for
	// the whole once initialJSONSize of it has converted.
	c := converter{text: text, out: make([]byte, 0, min(jsonSizeFor(text), initialJSONSize))}
	if !c.advance() {
		return nil, false
	}
	if c.eof {
		return []byte("null"), true // only comments: an empty document
	}
	if !c.blockNode(c.col) || !c.eof {
		return nil, false
	}
	return c.out, true
}

// initialJSONSize is the most fastYAMLToJSON allocates before it has read that much.
const initialJSONSize = 64 << 10

// jsonSizeFor is room for the JSON of a YAML document: about as long, a little more for the
// quotes around strings.
func jsonSizeFor(text []byte) int { return len(text) + len(text)/8 + 16 }

// maxFastDepth is how deep the converter nests collections before leaving the document to
// the parser: its recursion stays shallow whatever the input.
const maxFastDepth = 200

// maxSimpleKey is the longest key the parser takes on a key's line ("simple key": 1024
// characters); longer ones are left to it, and its message.
const maxSimpleKey = 1000

// converter is the state of fastYAMLToJSON: the line being read and the JSON written.
type converter struct {
	text []byte
	next int // offset of the line after the current one
	// The current line, from column col on (past the "- " of sequence items already read),
	// without its line break. Blank and comment lines are skipped.
	col  int
	rest []byte
	eof  bool

	out []byte
	// keys are the keys of the open mappings as written in out, innermost last, to find a
	// duplicate.
	keys  []span
	depth int
}

// span is a range of out.
type span struct{ start, end int }

// printable reports whether text has only line feeds and the characters the parser takes
// within a line: printable ASCII, and valid UTF-8 from U+00A0 on but for U+FEFF (a byte
// order mark), U+FFFE and U+FFFF and the surrogates. Tabs, carriage returns, other control
// characters, and the parser's other line breaks (U+0085, U+2028, U+2029) are left to it.
func printable(text []byte) bool {
	for i := 0; i < len(text); {
		if i+8 <= len(text) && printableASCII8(binary.LittleEndian.Uint64(text[i:])) {
			i += 8
			continue
		}
		c := text[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff || (r == utf8.RuneError && size == 1) {
			return false
		}
		i += size
	}
	return true
}

// printableASCII8 reports whether the eight bytes of x are all from ' ' to '~' (a byte
// below ' ', as a line feed, makes it false: the caller looks at those one by one).
func printableASCII8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := (x - 0x20*ones) & ^x & highs // a byte below 0x20, when none is 0x80 or more
	del := (x ^ 0x7f*ones - ones) & ^(x ^ 0x7f*ones) & highs
	return x&highs == 0 && below == 0 && del == 0
}

// advance moves to the next line with content; eof is set past the last. ok is false at a
// line the converter does not read: a document marker or a directive.
func (c *converter) advance() bool {
	for c.next < len(c.text) {
		line := c.text[c.next:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			c.next += i + 1
		} else {
			c.next = len(c.text)
		}
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		content := line[indent:]
		if len(content) == 0 || content[0] == '#' {
			continue
		}
		if content[0] == '%' || (indent == 0 && (bytes.HasPrefix(content, []byte("---")) || bytes.HasPrefix(content, []byte("...")))) {
			return false
		}
		c.col, c.rest = indent, content
		if c.next > initialJSONSize && cap(c.out) < jsonSizeFor(c.text) {
			c.out = append(make([]byte, 0, jsonSizeFor(c.text)), c.out...)
		}
		return true
	}
	c.eof = true
	return true
}

// isSequenceEntry reports whether content starts a block sequence item ("- ", or "-" alone).
func isSequenceEntry(content []byte) bool {
	return len(content) > 0 && content[0] == '-' && (len(content) == 1 || content[1] == ' ')
}

// blockNode reads the collection whose first line is the current one, at column n.
func (c *converter) blockNode(n int) bool {
	if c.depth++; c.depth > maxFastDepth {
		return false
	}
	var ok bool
	if isSequenceEntry(c.rest) {
		ok = c.sequence(n)
	} else {
		ok = c.mapping(n)
	}
	c.depth--
	return ok
}

// smallMapping is how many keys a mapping has before its duplicates are looked up in a map
// rather than by comparing with each key.
const smallMapping = 16

// mapping reads a block mapping whose keys are at column n, from the current line on.
func (c *converter) mapping(n int) bool {
	c.out = append(c.out, '{')
	base := len(c.keys)
	var seen map[string]struct{} // the keys of a large mapping
	for {
		if isSequenceEntry(c.rest) {
			return false // a sequence item where a key belongs: the parser's error
		}
		if len(c.keys) > base {
			c.out = append(c.out, ',')
		}
		start := len(c.out)
		value, found := c.key(c.rest)
		if found != keyFound {
			return false
		}
		key := span{start, len(c.out)}
		if c.duplicate(base, key, &seen) {
			return false
		}
		c.keys = append(c.keys, key)
		c.out = append(c.out, ':')
		if !c.value(n, value, true) {
			return false
		}
		if c.eof || c.col < n {
			break
		}
		if c.col > n {
			return false
		}
	}
	c.keys = c.keys[:base]
	c.out = append(c.out, '}')
	return true
}

// duplicate reports whether key (written in out) is already a key of the mapping whose keys
// start at keys[base]. Keys are compared as JSON: the same string always encodes the same way.
func (c *converter) duplicate(base int, key span, seen *map[string]struct{}) bool {
	k := c.out[key.start:key.end]
	if *seen == nil && len(c.keys)-base < smallMapping {
		for _, other := range c.keys[base:] {
			if bytes.Equal(c.out[other.start:other.end], k) {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*smallMapping)
		for _, other := range c.keys[base:] {
			(*seen)[string(c.out[other.start:other.end])] = struct{}{}
		}
	}
	if _, dup := (*seen)[string(k)]; dup {
		return true
	}
	(*seen)[string(k)] = struct{}{}
	return false
}

// sequence reads a block sequence whose "-" are at column n, from the current line on.
func (c *converter) sequence(n int) bool {
	c.out = append(c.out, '[')
	for first := true; !c.eof && c.col == n && isSequenceEntry(c.rest); first = false {
		if !first {
			c.out = append(c.out, ',')
		}
		spaces := 1
		for spaces < len(c.rest) && c.rest[spaces] == ' ' {
			spaces++
		}
		item := c.rest[spaces:]
		if len(item) == 0 || item[0] == '#' {
			if !c.value(n, nil, false) {
				return false
			}
			continue
		}
		if isSequenceEntry(item) {
			return false // "- - a": left to the parser
		}
		start := len(c.out)
		if _, found := c.key(item); found == keyFailed {
			return false
		} else if found == keyFound {
			// "- key: value": a mapping at the key's column.
			c.out = c.out[:start]
			c.col, c.rest = n+spaces, item
			if c.depth++; c.depth > maxFastDepth || !c.mapping(c.col) {
				return false
			}
			c.depth--
			continue
		}
		c.out = c.out[:start]
		if !c.value(n, item, false) {
			return false
		}
	}
	if !c.eof && c.col > n {
		return false
	}
	c.out = append(c.out, ']')
	return true
}

// value reads the value of a key of a mapping at column n (inMapping), or of an item of a
// sequence at column n: rest is what follows the key's ": " or the item's "- ". A value on
// the line is a scalar or flow collection; without one, the value is the block collection on
// the lines below, more indented (or, for a key, a sequence at the key's column), or null.
// It leaves the converter at the line after the value.
func (c *converter) value(n int, rest []byte, inMapping bool) bool {
	if len(rest) == 0 || rest[0] == '#' {
		if !c.advance() {
			return false
		}
		switch {
		case c.eof || c.col < n || (c.col == n && !(inMapping && isSequenceEntry(c.rest))):
			c.out = append(c.out, "null"...)
			return true
		case c.col == n:
			c.depth++
			ok := c.depth <= maxFastDepth && c.sequence(n)
			c.depth--
			return ok
		}
		return c.blockNode(c.col)
	}
	if !c.inlineValue(rest) || !c.advance() {
		return false
	}
	return c.eof || c.col <= n // more indented: a scalar going on over lines, left to the parser
}

// inlineValue writes the scalar or flow collection that is the rest of a line, up to an
// optional comment.
func (c *converter) inlineValue(rest []byte) bool {
	switch rest[0] {
	case '"', '\'', '{', '[':
		end, ok := c.flowNode(rest, 0)
		return ok && lineEnds(rest, end)
	}
	v, ok := blockPlain(rest)
	return ok && c.plainScalar(v, false)
}

// lineEnds reports whether nothing but spaces and a comment follows s[i:].
func lineEnds(s []byte, i int) bool {
	j := i
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return j == len(s) || (s[j] == '#' && j > i)
}

// blockPlain returns the plain scalar that is the rest of a line (up to a comment, without
// trailing spaces); ok is false for what is not one the converter reads: an indicator the
// scalar cannot start with, or ": " inside (a mapping where the parser allows none).
func blockPlain(rest []byte) (v []byte, ok bool) {
	if !plainStart(rest) {
		return nil, false
	}
	end := len(rest)
	for i := 1; i < len(rest); i++ {
		if rest[i] == '#' && rest[i-1] == ' ' {
			end = i
			break
		}
		if rest[i] == ':' && (i+1 == len(rest) || rest[i+1] == ' ') {
			return nil, false
		}
	}
	return bytes.TrimRight(rest[:end], " "), true
}

// plainStart reports whether s starts a plain scalar the converter reads: not with an
// indicator (flow, quote, anchor, alias, tag, block scalar, directive, reserved, comment),
// nor with "- ", "?" or ":".
func plainStart(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	switch s[0] {
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '?', ':', ' ':
		return false
	case '-':
		return len(s) > 1 && s[1] != ' '
	}
	return true
}

// keyStatus is what key found at the start of a line.
type keyStatus int

const (
	keyFound  keyStatus = iota
	notAKey             // a scalar without ": " after it
	keyFailed           // something the converter does not read
)

// key writes the key that starts content (a plain or quoted scalar followed by ":" and a
// space or the line's end) as a JSON string, and returns what follows the ":" and its spaces.
func (c *converter) key(content []byte) (rest []byte, status keyStatus) {
	var end int // index of the ':'
	switch content[0] {
	case '{', '[':
		return nil, notAKey // a flow collection, or a complex key left to the parser by its reader
	case '"', '\'':
		closed, ok := c.quoted(content, 0)
		if !ok {
			return nil, keyFailed
		}
		end = closed
		for end < len(content) && content[end] == ' ' {
			end++
		}
		if end == len(content) || content[end] == '#' {
			return nil, notAKey
		}
		if content[end] != ':' || (end+1 < len(content) && content[end+1] != ' ') {
			return nil, keyFailed
		}
	default:
		if !plainStart(content) {
			return nil, keyFailed
		}
		end = -1
		for i := 1; i < len(content); i++ {
			if content[i] == '#' && content[i-1] == ' ' {
				break
			}
			if content[i] == ':' && (i+1 == len(content) || content[i+1] == ' ') {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, notAKey
		}
		if !c.plainScalar(bytes.TrimRight(content[:end], " "), true) {
			return nil, keyFailed
		}
	}
	if end > maxSimpleKey {
		return nil, keyFailed
	}
	rest = content[end+1:]
	for len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	return rest, keyFound
}
