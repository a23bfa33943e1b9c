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

// exponentHint reports whether text may hold a large exponent: a digit or '.', then 'e' or
// 'E', an optional sign and four digits. Most documents have none and are not walked at all
// (hex digests do match, and are then walked and let through). A loop, not a regular
// expression: the expression, which has no literal to look for, took a twelfth of loading.
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
		for ; j < len(text) && digits < 4 && text[j] >= '0' && text[j] <= '9'; j++ {
			digits++
		}
		if digits == 4 {
			return true
		}
	}
	return false
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
