package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
)

// maxExponent is the largest decimal exponent a number in a manifest may carry. The API
// machinery parses quantities such as "1e111011010110" by computing the power of ten, which
// takes hours; nothing a Kubernetes object holds needs an exponent past a few dozen.
const maxExponent = 1000

// exponentHint reports whether text may hold a large exponent: a whole JSON string or
// number of digits and '.', an optional sign, then 'e' or 'E', an optional sign and four
// digits or more. Most documents have none and are not walked at all; ids and digests
// ("7e5e2912-69ab-…") have such an 'e' inside a longer word, which is not a whole value. A
// loop, not a regular expression: the expression, which has no literal to look for, took a
// twelfth of loading.
func exponentHint(text []byte) bool {
	for i := 1; i < len(text); i++ {
		if c := text[i]; c != 'e' && c != 'E' {
			continue
		}
		if p := text[i-1]; (p < '0' || p > '9') && p != '.' {
			continue
		}
		j := i + 1
		if j < len(text) && (text[j] == '+' || text[j] == '-') {
			j++
		}
		digits := 0
		for ; j < len(text) && text[j] >= '0' && text[j] <= '9'; j++ {
			digits++
		}
		if digits >= 4 && (j == len(text) || valueEnds(text[j])) && mantissaStartsValue(text[:i]) {
			return true
		}
	}
	return false
}

// mantissaStartsValue reports whether text ends with digits and '.', and an optional sign,
// that start a JSON value: at the start of text, after a quote, ':', ',', '[' or a space.
func mantissaStartsValue(text []byte) bool {
	i := len(text)
	for i > 0 && (text[i-1] >= '0' && text[i-1] <= '9' || text[i-1] == '.') {
		i--
	}
	if i > 0 && (text[i-1] == '+' || text[i-1] == '-') {
		i--
	}
	return i == 0 || bytes.IndexByte([]byte("\":,[ \t\r\n"), text[i-1]) >= 0
}

// valueEnds reports whether c may follow a JSON string's content or a number.
func valueEnds(c byte) bool {
	return bytes.IndexByte([]byte("\",}] \t\r\n"), c) >= 0
}

// hugeExponent is a whole quantity in scientific notation whose exponent has four digits or
// more.
var hugeExponent = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?0*([0-9]{4,})$`)

// quantityKeys are the keys under which Kubernetes, Karpenter and EC2NodeClass objects hold
// quantities; values elsewhere (an environment variable, an annotation) are text.
var quantityKeys = map[string]bool{
	"requests": true, "limits": true, "capacity": true, "allocatable": true, "overhead": true,
	"systemReserved": true, "kubeReserved": true, "evictionHard": true, "evictionSoft": true,
	"evictionMinimumReclaim": true, "volumeSize": true, "hard": true,
	"default": true, "defaultRequest": true, "max": true, "min": true, "maxLimitRequestRatio": true,
}

// checkExponents refuses a document with a quantity in scientific notation whose exponent is
// past maxExponent, naming its field, before anything parses it.
func checkExponents(doc *document) error {
	if !exponentHint(doc.raw) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(doc.raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil // the typed decoding reports it
	}
	field, value, found := findHugeExponent(tree, "", false)
	if !found {
		return nil
	}
	return doc.errorf(field, "%s has a decimal exponent past %d", value, maxExponent)
}

// findHugeExponent walks a decoded JSON value, maps in key order, for the first quantity
// (a value under one of quantityKeys) in scientific notation with an exponent past
// maxExponent.
func findHugeExponent(v any, path string, quantities bool) (string, string, bool) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if f, s, ok := findHugeExponent(v[k], joinKey(path, k), quantities || quantityKeys[k]); ok {
				return f, s, true
			}
		}
	case []any:
		for i, item := range v {
			if f, s, ok := findHugeExponent(item, fmt.Sprintf("%s[%d]", path, i), quantities); ok {
				return f, s, true
			}
		}
	case string:
		return path, v, quantities && tooLargeExponent(v)
	case json.Number:
		return path, v.String(), quantities && tooLargeExponent(v.String())
	}
	return "", "", false
}

func tooLargeExponent(s string) bool {
	m := hugeExponent.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	e, err := strconv.ParseInt(m[2], 10, 64)
	return err != nil || e > maxExponent
}
