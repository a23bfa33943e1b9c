package manifest

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// appendJSON writes the YAML parser's tree of a document (maps with string keys, lists,
// strings, integers, booleans, null) as JSON, as sigs.k8s.io/yaml would convert it but
// without building a second tree and sorting its keys: keys keep the document's order,
// which decoding does not look at. ok is false for anything else (a key that is not a string,
// a float, a value of another type): then the caller converts the document the usual way.
func appendJSON(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case float64:
		// Rare in manifests; encoding/json's own formatting (and its refusal of NaN and
		// infinities, as the usual way reports it).
		f, err := json.Marshal(v)
		if err != nil {
			return b, false
		}
		return append(b, f...), true
	case []any:
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, item); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[any]any:
		b = append(b, '{')
		first := true
		for k, item := range v {
			key, isString := k.(string)
			if !isString {
				return b, false
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONString(b, key)
			b = append(b, ':')
			var ok bool
			if b, ok = appendJSON(b, item); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string; invalid UTF-8 becomes U+FFFD, as
// encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
