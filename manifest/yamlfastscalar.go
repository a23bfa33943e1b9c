package manifest

import (
	"bytes"
	"strconv"
)

// flowNode writes the flow collection or scalar starting at s[i] (a line's content), and
// returns the index after it. Everything must close on the line.
func (c *converter) flowNode(s []byte, i int) (end int, ok bool) {
	if c.depth++; c.depth > maxFastDepth {
		return 0, false
	}
	switch s[i] {
	case '{':
		end, ok = c.flowMapping(s, i+1)
	case '[':
		end, ok = c.flowSequence(s, i+1)
	case '"', '\'':
		end, ok = c.quoted(s, i)
	default:
		var v []byte
		if v, end = flowPlain(s, i); v == nil || (end < len(s) && s[end] == ':') {
			return 0, false
		}
		ok = c.plainScalar(v, false)
	}
	c.depth--
	return end, ok
}

// flowPlain returns the plain scalar starting at s[i] inside a flow collection (without
// trailing spaces) and the index where it stops: at ",[]{}", at ":" followed by a space or
// one of those, or at the line's end. v is nil for what the converter does not read there.
func flowPlain(s []byte, i int) (v []byte, end int) {
	if !plainStart(s[i:]) {
		return nil, 0
	}
	j := i
	for ; j < len(s); j++ {
		switch s[j] {
		case ',', '[', ']', '{', '}':
		case '#', '?':
			return nil, 0
		case ':':
			if j+1 < len(s) && bytes.IndexByte([]byte(" ,[]{}"), s[j+1]) < 0 {
				continue
			}
		default:
			continue
		}
		break
	}
	if j == len(s) {
		return nil, 0 // the collection goes on past the line
	}
	return bytes.TrimRight(s[i:j], " "), j
}

// skipSpaces returns the index of the first byte from i on that is not a space.
func skipSpaces(s []byte, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// flowMapping writes the flow mapping whose "{" is before s[i], up to its "}".
func (c *converter) flowMapping(s []byte, i int) (int, bool) {
	c.out = append(c.out, '{')
	base := len(c.keys)
	var seen map[string]struct{}
	if i = skipSpaces(s, i); i < len(s) && s[i] == '}' {
		c.out = append(c.out, '}')
		return i + 1, true
	}
	for i < len(s) {
		if len(c.keys) > base {
			c.out = append(c.out, ',')
		}
		start := len(c.out)
		switch s[i] {
		case '"', '\'':
			end, ok := c.quoted(s, i)
			if !ok {
				return 0, false
			}
			i = end
		default:
			v, end := flowPlain(s, i)
			if v == nil || !c.plainScalar(v, true) {
				return 0, false
			}
			i = end
		}
		key := span{start, len(c.out)}
		if i+1 >= len(s) || s[i] != ':' || s[i+1] != ' ' || c.duplicate(base, key, &seen) {
			return 0, false
		}
		c.keys = append(c.keys, key)
		c.out = append(c.out, ':')
		if i = skipSpaces(s, i+1); i == len(s) || s[i] == ',' || s[i] == '}' {
			return 0, false // a key without a value
		}
		end, ok := c.flowNode(s, i)
		if !ok {
			return 0, false
		}
		next, closed, ok := flowAfterEntry(s, end, '}')
		if !ok {
			return 0, false
		}
		if closed {
			c.keys = c.keys[:base]
			c.out = append(c.out, '}')
			return next, true
		}
		i = next
	}
	return 0, false
}

// flowSequence writes the flow sequence whose "[" is before s[i], up to its "]".
func (c *converter) flowSequence(s []byte, i int) (int, bool) {
	c.out = append(c.out, '[')
	if i = skipSpaces(s, i); i < len(s) && s[i] == ']' {
		c.out = append(c.out, ']')
		return i + 1, true
	}
	for first := true; i < len(s); first = false {
		if !first {
			c.out = append(c.out, ',')
		}
		end, ok := c.flowNode(s, i)
		if !ok {
			return 0, false
		}
		next, closed, ok := flowAfterEntry(s, end, ']')
		if !ok {
			return 0, false
		}
		if closed {
			c.out = append(c.out, ']')
			return next, true
		}
		i = next
	}
	return 0, false
}

// flowAfterEntry reads what follows an entry of a flow collection ending at s[end]: its
// closing bracket (closed, next is past it) or a comma and the next entry's start. A trailing
// comma, or anything else, is not ok.
func flowAfterEntry(s []byte, end int, closing byte) (next int, closed, ok bool) {
	i := skipSpaces(s, end)
	switch {
	case i == len(s):
		return 0, false, false
	case s[i] == closing:
		return i + 1, true, true
	case s[i] != ',':
		return 0, false, false
	}
	if i = skipSpaces(s, i+1); i < len(s) && s[i] == closing {
		return 0, false, false // a trailing comma
	}
	return i, false, true
}

// quoted writes the single- or double-quoted scalar starting at s[i] as a JSON string and
// returns the index after its closing quote. It must close on the line; the double-quoted
// escapes \x, \u, \U, \N, \_, \L and \P are left to the parser.
func (c *converter) quoted(s []byte, i int) (end int, ok bool) {
	q := s[i]
	c.out = append(c.out, '"')
	for j := i + 1; j < len(s); j++ {
		b := s[j]
		switch {
		case b == q && q == '\'' && j+1 < len(s) && s[j+1] == '\'':
			j++ // '' is a quote
		case b == q:
			c.out = append(c.out, '"')
			return j + 1, true
		case b == '\\' && q == '"':
			if j+1 == len(s) {
				return 0, false // an escaped line break
			}
			j++
			if b = doubleQuotedEscape(s[j]); b == 0xff {
				return 0, false
			}
		}
		c.out = appendJSONByte(c.out, b)
	}
	return 0, false
}

// doubleQuotedEscape is the byte a double-quoted escape "\e" stands for, or 0xff for one
// the converter leaves to the parser (or the parser refuses).
func doubleQuotedEscape(e byte) byte {
	switch e {
	case '0':
		return 0
	case 'a':
		return '\a'
	case 'b':
		return '\b'
	case 't':
		return '\t'
	case 'n':
		return '\n'
	case 'v':
		return '\v'
	case 'f':
		return '\f'
	case 'r':
		return '\r'
	case 'e':
		return 0x1b
	case ' ', '"', '\'', '\\':
		return e
	}
	return 0xff
}

// appendJSONByte writes a byte inside a JSON string, escaped one way only, so that equal
// strings are equal JSON. Bytes of UTF-8 sequences are written as they are.
func appendJSONByte(b []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(b, '\\', c)
	case c >= 0x20:
		return append(b, c)
	case c == '\n':
		return append(b, '\\', 'n')
	case c == '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// plainScalar writes a plain scalar as the YAML parser reads it (go.yaml.in/yaml/v2's
// resolve, YAML 1.1): null, a boolean, an integer or a string. ok is false for a float, a
// possible timestamp or binary integer, a number with "_", and, for a key (asKey), anything
// but a string or the merge key "<<": those are left to the parser.
func (c *converter) plainScalar(v []byte, asKey bool) bool {
	switch string(v) {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		c.out = append(c.out, "true"...)
		return !asKey
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		c.out = append(c.out, "false"...)
		return !asKey
	case "~", "null", "Null", "NULL":
		c.out = append(c.out, "null"...)
		return !asKey
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return false
	case "<<":
		if asKey {
			return false
		}
	}
	switch first := v[0]; {
	case first == '.':
		if _, err := strconv.ParseFloat(string(v), 64); err == nil {
			return false
		}
	case first == '+' || first == '-' || (first >= '0' && first <= '9'):
		out, isNumber, known := appendNumber(c.out, v)
		if !known {
			return false
		}
		if isNumber {
			c.out = out
			return !asKey
		}
	}
	c.out = append(c.out, '"')
	c.out = appendJSONText(c.out, v)
	c.out = append(c.out, '"')
	return true
}

// appendJSONText writes text inside a JSON string as appendJSONByte writes each byte, copying
// the runs that need no escape at once.
func appendJSONText(b, text []byte) []byte {
	start := 0
	for i, c := range text {
		if c < 0x20 || c == '"' || c == '\\' {
			b = appendJSONByte(append(b, text[start:i]...), c)
			start = i + 1
		}
	}
	return append(b, text[start:]...)
}

// appendNumber reads a plain scalar starting with a sign or digit as the parser does: an
// integer (appended to b in decimal), or a string (isNumber false). known is false for what
// the converter leaves to the parser: what may be a timestamp (four digits and "-"), contains
// "_", or is a float.
func appendNumber(b, v []byte) (out []byte, isNumber, known bool) {
	if len(v) > 4 && v[4] == '-' && digits(v[:4]) {
		return nil, false, false
	}
	if bytes.IndexByte(v, '_') >= 0 {
		return nil, false, false
	}
	if !intSyntax(v) {
		// Not an integer (a quantity such as 500m or 4Gi, an id): no need to ask ParseInt,
		// whose error costs an allocation. Octal "0777" is decimal digits, which it reads.
	} else if n, err := strconv.ParseInt(string(v), 0, 64); err == nil {
		return strconv.AppendInt(b, n, 10), true, true
	} else if n, err := strconv.ParseUint(string(v), 0, 64); err == nil {
		return strconv.AppendUint(b, n, 10), true, true
	}
	if yamlStyleFloat(v) {
		return nil, false, false
	}
	// What ParseInt did not take after "0b" the parser reads once more in base 2.
	if bits, ok := bytes.CutPrefix(v, []byte("0b")); ok {
		if n, err := strconv.ParseInt(string(bits), 2, 64); err == nil {
			return strconv.AppendInt(b, n, 10), true, true
		}
		if n, err := strconv.ParseUint(string(bits), 2, 64); err == nil {
			return strconv.AppendUint(b, n, 10), true, true
		}
	} else if bits, ok := bytes.CutPrefix(v, []byte("-0b")); ok {
		if n, err := strconv.ParseInt("-"+string(bits), 2, 64); err == nil {
			return strconv.AppendInt(b, n, 10), true, true
		}
	}
	return b, false, true
}

// intSyntax reports whether v is written as strconv.ParseInt reads an integer in base 0
// (without "_"): a sign, then decimal digits, or 0x, 0o or 0b and digits of that base.
func intSyntax(v []byte) bool {
	if len(v) > 0 && (v[0] == '+' || v[0] == '-') {
		v = v[1:]
	}
	base := 10
	if len(v) > 2 && v[0] == '0' {
		switch v[1] {
		case 'x', 'X':
			base, v = 16, v[2:]
		case 'o', 'O':
			base, v = 8, v[2:]
		case 'b', 'B':
			base, v = 2, v[2:]
		}
	}
	if len(v) == 0 {
		return false
	}
	for _, c := range v {
		d := 99
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		}
		if d >= base {
			return false
		}
	}
	return true
}

// yamlStyleFloat reports whether v has the shape the parser reads as a float:
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ (go.yaml.in/yaml/v2's yamlStyleFloat).
func yamlStyleFloat(v []byte) bool {
	i := 0
	if i < len(v) && (v[i] == '+' || v[i] == '-') {
		i++
	}
	if i < len(v) && v[i] == '.' {
		n := digitRun(v[i+1:])
		if n == 0 {
			return false
		}
		i += 1 + n
	} else {
		n := digitRun(v[i:])
		if n == 0 {
			return false
		}
		if i += n; i < len(v) && v[i] == '.' {
			i += 1 + digitRun(v[i+1:])
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		n := digitRun(v[i:])
		if n == 0 {
			return false
		}
		i += n
	}
	return i == len(v)
}

// digitRun is the number of decimal digits v starts with.
func digitRun(v []byte) int {
	n := 0
	for n < len(v) && v[n] >= '0' && v[n] <= '9' {
		n++
	}
	return n
}

func digits(v []byte) bool { return digitRun(v) == len(v) }
