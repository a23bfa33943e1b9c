package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// quickScanSize is the size from which a YAML document is first scanned for duplicate keys:
// the parser builds a tree of some 40 bytes per input byte and a message per duplicate before
// it reports any, which for a file of millions of duplicates is gigabytes.
const quickScanSize = 1 << 20

// yamlToJSON converts one YAML document to JSON. Its error names lines of the file (part.line
// is the document's first) and lists at most MaxProblems problems.
func yamlToJSON(part yamlPart) ([]byte, error) {
	// The YAML kubectl and people write converts without the parser, ten times faster
	// (yamlfast.go); the parser takes the rest, with its errors.
	if raw, ok := fastYAMLToJSON(part.text); ok {
		return raw, nil
	}
	if len(part.text) >= quickScanSize {
		// Past MaxProblems duplicates the document is refused without the parser, even when
		// the scan stops following it further on: there are at least that many.
		if s := scanDuplicateKeys(part.text, part.line); s.count > MaxProblems {
			return nil, errors.New(unmarshalErrors(s.first, s.count, !s.ok))
		}
	}
	// The parser's tree is written as JSON directly (yamljson.go); sigs.k8s.io/yaml, which
	// converts it to a second tree and marshals that, is kept for what appendJSON leaves.
	var tree any
	err := yamlv2.UnmarshalStrict(part.text, &tree)
	if err == nil {
		if raw, ok := appendJSON(make([]byte, 0, len(part.text)), tree); ok {
			return raw, nil
		}
		var raw []byte
		if raw, err = yaml.YAMLToJSONStrict(part.text); err == nil {
			return raw, nil
		}
	}
	var te *yamlv2.TypeError
	if errors.As(err, &te) {
		lines := te.Errors[:min(len(te.Errors), MaxProblems)]
		for i, l := range lines {
			lines[i] = renumber(l, part.line)
		}
		return nil, errors.New(unmarshalErrors(lines, len(te.Errors), false))
	}
	return nil, errors.New(renumber(strings.TrimPrefix(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "), "yaml: "), part.line))
}

// unmarshalErrors words a list of problems as the YAML parser does, the first of total (of at
// least total, when atLeast).
func unmarshalErrors(first []string, total int, atLeast bool) string {
	var b strings.Builder
	b.WriteString("unmarshal errors:")
	for _, l := range first {
		b.WriteString("\n  ")
		b.WriteString(l)
	}
	switch {
	case atLeast:
		fmt.Fprintf(&b, "\n  … and at least %d more", total-len(first))
	case total > len(first):
		fmt.Fprintf(&b, "\n  … and %d more", total-len(first))
	}
	return b.String()
}

// renumber rewrites a YAML parser message so its line numbers count from the top of the file.
func renumber(msg string, start int) string {
	return yamlLineRE.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+start-1)
	})
}

// dupScan is what scanDuplicateKeys found: the first MaxProblems duplicates, worded and
// ordered as the YAML parser reports them, and their number. ok is false when the document
// uses YAML the scan does not follow; then only the duplicates before that point are known.
type dupScan struct {
	first []string
	count int
	ok    bool
}

// gaveUp is the scan stopped at YAML it does not follow.
func (s dupScan) gaveUp() dupScan {
	s.ok = false
	return s
}

// mappingFrame is a block mapping open at some indentation.
type mappingFrame struct {
	indent int
	keys   map[string]struct{}
	// dup is the duplicate key whose value is being read (when hasDup): the parser reports it
	// once the value ends, after the problems inside the value.
	dup    duplicate
	hasDup bool
}

// duplicate is a repeated key; key points into the document, so that a file of millions of
// duplicates allocates nothing per duplicate.
type duplicate struct {
	key  []byte
	line int // the line of the key's value, where the parser reports it
}

// scanDuplicateKeys reads a YAML document line by line, following block mappings and
// sequences with plain keys, and counts the keys a mapping repeats, in memory proportional to
// the document's distinct keys. It gives up (ok false) at anything it does not follow: flow
// collections or quoted strings over several lines, anchors, tags, merge keys, complex keys,
// tabs, directives. Only keys that read as strings are compared, so the count may miss a
// duplicate the parser finds but never has one it would not.
func scanDuplicateKeys(text []byte, firstLine int) dupScan {
	var s dupScan
	var stack []*mappingFrame
	emit := func(f *mappingFrame) {
		s.count++
		if len(s.first) < MaxProblems {
			s.first = append(s.first, fmt.Sprintf("line %d: key %q already set in map", f.dup.line, f.dup.key))
		}
		f.hasDup = false
	}
	pop := func(indent int) { // closes the mappings indented more than indent
		for len(stack) > 0 && stack[len(stack)-1].indent > indent {
			if f := stack[len(stack)-1]; f.hasDup {
				emit(f)
			}
			stack = stack[:len(stack)-1]
		}
	}
	opaque := -1 // while >= 0: skip lines indented more than this (a scalar's continuation)
	var awaiting *duplicate
	rootIndent := -1
	var unused duplicate // what awaiting points at for a key that is not a duplicate
	awaitIndent := 0
	line := firstLine - 1
	for len(text) > 0 {
		var l []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, nil
		}
		line++
		l = bytes.TrimRight(l, "\r")
		indent := 0
		for indent < len(l) && l[indent] == ' ' {
			indent++
		}
		content := l[indent:]
		if len(bytes.TrimSpace(content)) == 0 || content[0] == '#' {
			continue
		}
		if opaque >= 0 {
			if indent > opaque {
				continue
			}
			opaque = -1
		}
		if content[0] == '\t' || content[0] == '%' {
			return s.gaveUp()
		}
		if rootIndent < 0 {
			rootIndent = indent
		} else if indent < rootIndent {
			return s.gaveUp() // less indented than the document's first line: the parser's call
		}
		dash := len(content) >= 1 && content[0] == '-' && (len(content) == 1 || content[1] == ' ')
		if awaiting != nil {
			// A key without a value on its line: the value is what follows, nested, or null on
			// the key's line.
			if indent > awaitIndent || (indent == awaitIndent && dash) {
				awaiting.line = line
			}
			awaiting = nil
		}
		col := indent
		pop(indent)
		if dash {
			rest := bytes.TrimLeft(content[1:], " ")
			if len(rest) == 0 || rest[0] == '#' {
				continue
			}
			col = indent + len(content) - len(rest)
			content = rest
			switch content[0] {
			case '-':
				return s.gaveUp() // nested sequences on one line
			case '|', '>':
				opaque = indent
				continue
			}
			if _, value, isKey := splitKey(content); !isKey {
				if !plainValue(value) {
					return s.gaveUp()
				}
				opaque = indent
				continue
			}
		}
		key, value, isKey := splitKey(content)
		if !isKey {
			return s.gaveUp()
		}
		if len(stack) == 0 || stack[len(stack)-1].indent < col {
			stack = append(stack, &mappingFrame{indent: col, keys: map[string]struct{}{}})
		}
		top := stack[len(stack)-1]
		if top.hasDup {
			emit(top)
		}
		if !stringKey(key) {
			if string(key) == "<<" || len(key) == 0 || !plainKey(key) {
				return s.gaveUp()
			}
		} else if _, seen := top.keys[string(key)]; seen {
			top.dup, top.hasDup = duplicate{key: key, line: line}, true
		} else {
			top.keys[string(key)] = struct{}{}
		}
		switch {
		case len(value) == 0:
			awaiting, awaitIndent = &top.dup, col
			if !top.hasDup {
				awaiting = &unused // resolves nothing, keeps the rule in one place
			}
		case value[0] == '|' || value[0] == '>':
			opaque = col
		case !plainValue(value):
			return s.gaveUp()
		default:
			opaque = col // a plain scalar may go on over more-indented lines
		}
	}
	pop(-1)
	s.ok = true
	return s
}

// splitKey cuts "key: value # comment" into key and value (without the comment); isKey is
// false when the line is not a plain key and a value.
func splitKey(content []byte) (key, value []byte, isKey bool) {
	if strings.IndexByte("?:,[]{}#&*!|>'\"%@`", content[0]) >= 0 {
		return nil, stripComment(content), false
	}
	for i := 0; i < len(content); i++ {
		if content[i] == '#' && i > 0 && content[i-1] == ' ' {
			return nil, stripComment(content), false
		}
		if content[i] == ':' && (i+1 == len(content) || content[i+1] == ' ') {
			return bytes.TrimRight(content[:i], " "), stripComment(bytes.TrimLeft(content[i+1:], " ")), true
		}
	}
	return nil, stripComment(content), false
}

// stripComment removes a trailing " # comment" outside quotes.
func stripComment(v []byte) []byte {
	if len(v) > 0 && v[0] == '#' {
		return nil
	}
	var quote byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			if i == 0 {
				quote = c
			}
		case c == '#' && i > 0 && (v[i-1] == ' ' || v[i-1] == '\t'):
			return bytes.TrimRight(v[:i], " \t")
		}
	}
	return bytes.TrimRight(v, " \t")
}

// plainValue reports whether a value on a key's line is one the scan can step over: a plain
// or alias scalar, a quoted string closed on the line, or a flow collection closed on the line.
func plainValue(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '&', '!', '?', '%', '@', '`', '|', '>':
		return false
	case '"', '\'':
		end := closingQuote(v)
		return end == len(v)-1
	case '[', '{':
		depth := 0
		var quote byte
		for i := 0; i < len(v); i++ {
			c := v[i]
			switch {
			case quote == '"' && c == '\\':
				i++
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				depth--
				if depth == 0 {
					return i == len(v)-1
				}
			}
		}
		return false
	}
	return true
}

// closingQuote returns the index of the quote that closes the string v starts, or -1.
func closingQuote(v []byte) int {
	q := v[0]
	for i := 1; i < len(v); i++ {
		switch {
		case q == '"' && v[i] == '\\':
			i++
		case v[i] == q:
			if q == '\'' && i+1 < len(v) && v[i+1] == '\'' {
				i++ // '' is a quote inside a single-quoted string
				continue
			}
			return i
		}
	}
	return -1
}

// stringKey reports whether a plain key is certainly read as a string of the same text (a
// name, not a number, boolean or null), so that equal text means an equal key.
func stringKey(k []byte) bool {
	if len(k) == 0 || !plainKey(k) {
		return false
	}
	c := k[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	for _, word := range yaml11Words {
		if bytes.EqualFold(k, word) {
			return false
		}
	}
	return true
}

// yaml11Words are the plain words YAML 1.1 reads as booleans or null.
var yaml11Words = [][]byte{[]byte("y"), []byte("yes"), []byte("n"), []byte("no"), []byte("on"), []byte("off"), []byte("true"), []byte("false"), []byte("null")}

// plainKey reports whether a key uses only characters that need no quoting or escaping, and
// single spaces between words ("abc def"), which a plain scalar keeps as they are.
func plainKey(k []byte) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c == ' ' && i > 0 && i < len(k)-1 && k[i-1] != ' ' {
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/') {
			return false
		}
	}
	return true
}
