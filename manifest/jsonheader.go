package manifest

import "bytes"

// readHeader reads a document's header (apiVersion, kind, metadata.name and namespace) and
// the items of its "items" array, without decoding anything else and without copying: a List
// of thousands of pods is read once instead of once for the header, once for the items and
// once for each item's header. raw is valid JSON, as every document's is (the YAML
// conversion writes it, the JSON reader checks it); other input gives some answer without
// failing. ok is false for what json.Unmarshal
// into header and listItems is left to: values of another type (or null), escapes or
// non-ASCII text in those keys and values, and keys that match the fields only
// case-insensitively (which json.Unmarshal takes too).
func readHeader(raw []byte) (h header, items [][]byte, ok bool) {
	i := skipJSONSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return h, nil, false
	}
	i = skipJSONSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return h, nil, true
	}
	for {
		key, value, found := jsonMember(raw, i)
		if !found {
			return h, nil, false
		}
		var end int
		switch string(key) {
		case "apiVersion", "kind":
			s, after, isString := jsonPlainString(raw, value)
			if !isString {
				return h, nil, false
			}
			if key[0] == 'k' {
				h.Kind = string(s)
			} else {
				h.APIVersion = string(s)
			}
			end = after
		case "metadata":
			if end, ok = readMetadata(raw, value, &h); !ok {
				return h, nil, false
			}
		case "items":
			if raw[value] != '[' {
				return h, nil, false
			}
			items, end = jsonItems(raw, value, items[:0])
		default:
			if foldsToField(key, "apiVersion", "kind", "metadata", "items") {
				return h, nil, false
			}
			end = skipJSONValue(raw, value)
		}
		if i = skipJSONSpace(raw, end); i >= len(raw) {
			return h, nil, false
		}
		if raw[i] == '}' {
			return h, items, true
		}
		i = skipJSONSpace(raw, i+1) // past ','
	}
}

// readMetadata reads name and namespace from the metadata object at raw[i] into h, and
// returns the index after it.
func readMetadata(raw []byte, i int, h *header) (end int, ok bool) {
	if raw[i] != '{' {
		return 0, false
	}
	i = skipJSONSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return i + 1, true
	}
	for {
		key, value, found := jsonMember(raw, i)
		if !found {
			return 0, false
		}
		switch string(key) {
		case "name", "namespace":
			s, after, isString := jsonPlainString(raw, value)
			if !isString {
				return 0, false
			}
			if len(key) == len("name") {
				h.Metadata.Name = string(s)
			} else {
				h.Metadata.Namespace = string(s)
			}
			end = after
		default:
			if foldsToField(key, "name", "namespace") {
				return 0, false
			}
			end = skipJSONValue(raw, value)
		}
		if i = skipJSONSpace(raw, end); i >= len(raw) {
			return 0, false
		}
		if raw[i] == '}' {
			return i + 1, true
		}
		i = skipJSONSpace(raw, i+1)
	}
}

// foldsToField reports whether key is one of the fields but for case, which json.Unmarshal
// matches too (the exact names are handled before).
func foldsToField(key []byte, fields ...string) bool {
	for _, f := range fields {
		if bytes.EqualFold(key, []byte(f)) {
			return true
		}
	}
	return false
}

// jsonMember reads the key of the object member at raw[i] (a string without escapes, in
// ASCII) and returns it and the index of its value; found is false for any other key.
func jsonMember(raw []byte, i int) (key []byte, value int, found bool) {
	key, end, ok := jsonPlainString(raw, i)
	if !ok {
		return nil, 0, false
	}
	value = skipJSONSpace(raw, skipJSONSpace(raw, end)+1) // past ':'
	return key, value, value < len(raw)
}

// jsonPlainString returns the content of the string at raw[i] and the index after it; ok is
// false when raw[i] is not a string, or the string has escapes or non-ASCII bytes.
func jsonPlainString(raw []byte, i int) (s []byte, end int, ok bool) {
	if i >= len(raw) || raw[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; {
		case c == '"':
			return raw[i+1 : j], j + 1, true
		case c == '\\' || c >= 0x80:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// jsonItems appends the values of the array at raw[i] to items and returns the index after
// the array.
func jsonItems(raw []byte, i int, items [][]byte) ([][]byte, int) {
	i = skipJSONSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return items, i + 1
	}
	for i < len(raw) {
		end := skipJSONValue(raw, i)
		items = append(items, raw[i:end])
		if i = skipJSONSpace(raw, end); i < len(raw) && raw[i] == ']' {
			return items, i + 1
		}
		i = skipJSONSpace(raw, i+1)
	}
	return items, len(raw)
}

func skipJSONSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipJSONValue returns the index after the valid JSON value at raw[i].
func skipJSONValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return skipJSONString(raw, i)
	case '{', '[':
		depth := 0
		for ; i < len(raw); i++ {
			switch raw[i] {
			case '"':
				i = skipJSONString(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(raw)
	}
	for i < len(raw) && bytes.IndexByte([]byte(",}] \t\n\r"), raw[i]) < 0 {
		i++
	}
	return i
}

// skipJSONString returns the index after the string at raw[i].
func skipJSONString(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	return len(raw)
}
