package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nodeplan/nodeplan/internal/textdist"
)

// The Go JSON decoder reports a bad value without saying where it is (a quantity's parse error
// has no path at all), and ignores unknown fields. These helpers walk the generic JSON tree
// beside the Go type to name the field, as the API server would: spec.containers[0].resources.

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// locateError decodes raw into a fresh value of target's type and, when that fails, returns
// the path of the innermost field whose value does not decode and the reason.
func locateError(raw []byte, target any) (field, msg string) {
	var tree any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return "", err.Error()
	}
	path, err := locate(tree, reflect.TypeOf(target).Elem(), "")
	if err == nil {
		// Should not happen: the whole failed but no part did. Report the whole.
		err = json.Unmarshal(raw, target)
		if err == nil {
			return "", "cannot decode"
		}
	}
	return path, describeError(err)
}

func locate(v any, t reflect.Type, path string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return path, err
	}
	if err := json.Unmarshal(b, reflect.New(t).Interface()); err == nil {
		return "", nil
	} else if isLeaf(t) {
		return path, err
	} else {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			if obj, ok := v.(map[string]any); ok {
				fields := fieldsOf(t)
				for _, key := range sortedKeys(obj) {
					f, ok := fields.lookup(key)
					if !ok {
						continue
					}
					if p, err := locate(obj[key], f.typ, joinField(path, key)); err != nil {
						return p, err
					}
				}
			}
		case reflect.Slice, reflect.Array:
			if list, ok := v.([]any); ok {
				for i, item := range list {
					if p, err := locate(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
						return p, err
					}
				}
			}
		case reflect.Map:
			if obj, ok := v.(map[string]any); ok {
				for _, key := range sortedKeys(obj) {
					if p, err := locate(obj[key], t.Elem(), joinKey(path, key)); err != nil {
						return p, err
					}
				}
			}
		}
		return path, err
	}
}

// unknownFields lists the paths of fields in raw that target's type does not have, sorted.
func unknownFields(raw []byte, target any) []string {
	var tree any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return nil
	}
	var out []string
	walkUnknown(tree, reflect.TypeOf(target).Elem(), "", &out)
	return out
}

func walkUnknown(v any, t reflect.Type, path string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isLeaf(t) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		fields := fieldsOf(t)
		for _, key := range sortedKeys(obj) {
			f, ok := fields.byName[key]
			if !ok {
				hint := ""
				if f, ok := fields.lookup(key); ok {
					hint = fmt.Sprintf(" (field names are case-sensitive: %q)", f.name)
				} else if near := fields.closest(key); near != "" {
					hint = fmt.Sprintf(" (did you mean %q?)", near)
				}
				*out = append(*out, fmt.Sprintf("%q%s", joinField(path, key), hint))
				continue
			}
			walkUnknown(obj[key], f.typ, joinField(path, key), out)
		}
	case reflect.Slice, reflect.Array:
		if list, ok := v.([]any); ok {
			for i, item := range list {
				walkUnknown(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), out)
			}
		}
	case reflect.Map:
		if obj, ok := v.(map[string]any); ok {
			for _, key := range sortedKeys(obj) {
				walkUnknown(obj[key], t.Elem(), joinKey(path, key), out)
			}
		}
	}
}

// isLeaf reports whether a type decodes itself (Quantity, Time, IntOrString, RawMessage…) or
// has no fields to walk.
func isLeaf(t reflect.Type) bool {
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
			return true
		}
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return false
	case reflect.Slice, reflect.Array:
		return t.Elem().Kind() == reflect.Uint8 // []byte is a base64 string
	default:
		return true
	}
}

type structField struct {
	name string
	typ  reflect.Type
}

type structFields struct {
	byName  map[string]structField
	byLower map[string]structField
	names   []string
}

func (s *structFields) lookup(key string) (structField, bool) {
	if f, ok := s.byName[key]; ok {
		return f, true
	}
	f, ok := s.byLower[strings.ToLower(key)]
	return f, ok
}

func (s *structFields) closest(key string) string {
	best, bestDist := "", 0
	for _, n := range s.names {
		d := editDistance(strings.ToLower(key), strings.ToLower(n))
		if best == "" || d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" || bestDist > 2 || bestDist*3 > len(key) {
		return ""
	}
	return best
}

var fieldCache sync.Map // reflect.Type → *structFields

// fieldsOf returns the JSON fields of a struct type as encoding/json sees them, with embedded
// structs without a name (json:",inline" or untagged) promoted.
func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	s := &structFields{byName: map[string]structField{}, byLower: map[string]structField{}}
	var collect func(t reflect.Type)
	collect = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					collect(ft)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := s.byName[name]; dup {
				continue
			}
			sf := structField{name: name, typ: f.Type}
			s.byName[name] = sf
			s.byLower[strings.ToLower(name)] = sf
			s.names = append(s.names, name)
		}
	}
	collect(t)
	sort.Strings(s.names)
	fieldCache.Store(t, s)
	return s
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func joinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

var simpleKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// joinKey appends a map key: ".cpu" for a plain word, "[app.kubernetes.io/name]" otherwise.
func joinKey(path, key string) string {
	if simpleKey.MatchString(key) {
		return joinField(path, key)
	}
	return path + "[" + key + "]"
}

// describeError turns a decoding error into a sentence without Go type names where possible.
func describeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("got %s, want %s", jsonValueName(te.Value), jsonTypeName(te.Type))
	}
	msg := err.Error()
	return strings.TrimPrefix(msg, "json: ")
}

// jsonValueName names the kind of JSON value encoding/json found ("string", "number 1.5"…).
func jsonValueName(v string) string {
	kind, rest, _ := strings.Cut(v, " ")
	article := map[string]string{"string": "a string", "bool": "a boolean", "array": "a list", "object": "an object", "number": "a number"}[kind]
	if article == "" {
		return v
	}
	if rest != "" {
		return article + " (" + rest + ")"
	}
	return article
}

func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int { return textdist.Levenshtein(a, b) }
