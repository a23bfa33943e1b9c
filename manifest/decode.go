package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nodeplan/nodeplan/internal/parallel"
)

// document is one object of a file: a YAML document, a JSON value, or an item of a List; or
// one of the objects given to FromObjects, which have no source.
type document struct {
	source string
	// index is the 1-based position of the document among the file's non-empty documents.
	index int
	// item is the 1-based position inside a List document, 0 when the object is the document.
	item int
	// line is the file line the YAML document starts on (1-based), 0 for JSON.
	line int
	// raw is the object as JSON.
	raw []byte

	apiVersion, kind, namespace, name string
	// decoded is the typed object FromObjects was given, for a document without raw.
	decoded any
}

// where names the document for messages: `file: document 2, item 3 (Deployment default/web)`.
func (d *document) where() string {
	var b strings.Builder
	if d.source == "" {
		fmt.Fprintf(&b, "object %d", d.index)
	} else {
		fmt.Fprintf(&b, "%s: document %d", d.source, d.index)
	}
	if d.item > 0 {
		fmt.Fprintf(&b, ", item %d", d.item)
	}
	if d.kind != "" {
		b.WriteString(" (")
		b.WriteString(d.kind)
		if name := d.qualifiedName(); name != "" {
			b.WriteString(" ")
			b.WriteString(abbreviated(name))
		}
		b.WriteString(")")
	}
	return b.String()
}

func (d *document) qualifiedName() string {
	if d.namespace != "" {
		return d.namespace + "/" + d.name
	}
	return d.name
}

// errorf returns an error naming the document and, when not empty, the field.
func (d *document) errorf(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		return fmt.Errorf("%s: %s: %s", d.where(), field, msg)
	}
	return fmt.Errorf("%s: %s", d.where(), msg)
}

// header is what every Kubernetes object starts with.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// listItems is the body of a kind: List (or any *List kind) document.
type listItems struct {
	Items []json.RawMessage `json:"items"`
}

var utf8BOM = []byte("\xef\xbb\xbf")

// splitFile cuts a file's content into documents (not yet decoded past their header). Empty
// documents are skipped and do not count. Problems that do not stop the file are returned as
// warnings; a syntax error is an error.
func splitFile(data []byte, source string, w *warnings) ([]*document, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		var jw warnings
		docs, err := splitJSON(data, source, &jw)
		if err == nil || strings.EqualFold(filepath.Ext(source), ".json") {
			w.merge(&jw)
			return docs, err
		}
		// YAML flow style ({apiVersion: v1, …}) looks like JSON but is not: try it as YAML,
		// and report the JSON error if that fails too.
		var yw warnings
		if docs, yamlErr := splitYAMLFile(data, source, &yw); yamlErr == nil {
			w.merge(&yw)
			return docs, nil
		}
		return nil, err
	}
	return splitYAMLFile(data, source, w)
}

func splitYAMLFile(data []byte, source string, w *warnings) (docs []*document, err error) {
	// Converting to JSON is most of the reading, and each document's is its own: convert them
	// all on every CPU, then read them in order; the first bad one ends the file.
	parts := splitYAML(data)
	type converted struct {
		raw []byte
		err error
	}
	out := make([]converted, len(parts))
	parallel.Each(len(parts), func(i int) { out[i].raw, out[i].err = yamlToJSON(parts[i]) })
	index := 0
	for i, part := range parts {
		raw, err := out[i].raw, out[i].err
		if err != nil {
			return nil, fmt.Errorf("%s: document %d (starting at line %d): invalid YAML: %s", source, index+1, part.line, err)
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		index++
		doc := &document{source: source, index: index, line: part.line, raw: raw}
		ds, err := expandDocument(doc, w)
		if err != nil {
			return nil, err
		}
		docs = append(docs, ds...)
	}
	return docs, nil
}

func splitJSON(data []byte, source string, w *warnings) (docs []*document, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	index := 0
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			offset := dec.InputOffset()
			var se *json.SyntaxError
			if errors.As(err, &se) {
				offset = se.Offset
			}
			return nil, fmt.Errorf("%s: document %d: invalid JSON at line %d: %s", source, index+1, lineOf(data, offset), strings.TrimPrefix(err.Error(), "json: "))
		}
		index++
		if raw[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("%s: document %d: invalid JSON: %s", source, index, err)
			}
			for i, item := range items {
				ds, err := expandDocument(&document{source: source, index: index, item: i + 1, raw: item}, w)
				if err != nil {
					return nil, err
				}
				docs = append(docs, ds...)
			}
			continue
		}
		ds, err := expandDocument(&document{source: source, index: index, raw: raw}, w)
		if err != nil {
			return nil, err
		}
		docs = append(docs, ds...)
	}
	return docs, nil
}

// lineOf returns the 1-based line of a byte offset.
func lineOf(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// expandDocument reads a document's header; a List yields its items.
func expandDocument(doc *document, w *warnings) ([]*document, error) {
	return expandItem(doc, "", "", w)
}

// expandItem reads a document's header. An item of a typed list (PodList…) has no kind of its
// own: it takes the list's, given as apiVersion and kind.
func expandItem(doc *document, apiVersion, kind string, w *warnings) ([]*document, error) {
	if len(doc.raw) == 0 || doc.raw[0] != '{' {
		w.add(fmt.Sprintf("%s: not an object (a Kubernetes object is a mapping with apiVersion and kind), skipped", doc.where()))
		return nil, nil
	}
	h, items, fast := readHeader(doc.raw)
	if !fast {
		if err := json.Unmarshal(doc.raw, &h); err != nil {
			// Name what can be named before reporting the bad field.
			var k struct{ APIVersion, Kind any }
			_ = json.Unmarshal(doc.raw, &k)
			if s, ok := k.Kind.(string); ok {
				doc.kind = s
			}
			field, msg := locateError(doc.raw, &h)
			return nil, doc.errorf(field, "%s", msg)
		}
	}
	doc.apiVersion, doc.kind = cmpOr(h.APIVersion, apiVersion), cmpOr(h.Kind, kind)
	doc.namespace, doc.name = h.Metadata.Namespace, h.Metadata.Name
	if doc.item == 0 && isList(doc.apiVersion, doc.kind) {
		if !fast {
			var l listItems
			if err := json.Unmarshal(doc.raw, &l); err != nil {
				field, msg := locateError(doc.raw, &l)
				return nil, doc.errorf(field, "%s", msg)
			}
			items = make([][]byte, len(l.Items))
			for i, item := range l.Items {
				items[i] = item
			}
		}
		itemKind := strings.TrimSuffix(doc.kind, "List")
		itemAPIVersion := doc.apiVersion
		if itemKind == "" {
			itemAPIVersion = "" // a plain List: each item says what it is
		}
		var docs []*document
		for i, item := range items {
			ds, err := expandItem(&document{source: doc.source, index: doc.index, item: i + 1, line: doc.line, raw: bytes.TrimSpace(item)}, itemAPIVersion, itemKind, w)
			if err != nil {
				return nil, err
			}
			docs = append(docs, ds...)
		}
		return docs, nil
	}
	if err := checkExponents(doc); err != nil {
		return nil, err
	}
	return []*document{doc}, nil
}

type yamlPart struct {
	text []byte
	line int // first line of text in the file, 1-based
}

// splitYAML cuts a YAML stream at document markers: a line "---" (optionally followed by
// whitespace, a comment or the document's first content) or "...". The parts share data's
// memory, but for a document starting on its marker's line ("--- key: value").
func splitYAML(data []byte) []yamlPart {
	var parts []yamlPart
	start, startLine := 0, 1 // the current part: data[start:pos], from line startLine
	var head []byte          // content after "---" on the marker's line, put before the part
	end := func(pos int) {
		text := data[start:pos:pos]
		if head != nil {
			text = append(head, text...)
		}
		parts = append(parts, yamlPart{text: text, line: startLine})
		head = nil
	}
	line := 0
	for pos := 0; pos < len(data); {
		next := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		line++
		text := bytes.TrimRight(data[pos:next], "\r\n")
		switch {
		case isStartMarker(text):
			end(pos)
			start, startLine = next, line+1
			rest := bytes.TrimSpace(text[3:])
			if len(rest) > 0 && rest[0] != '#' {
				// "--- key: value" or "--- |": keep the content as the document's first line.
				head = append(bytes.Clone(rest), '\n')
				startLine = line
			}
		case bytes.Equal(text, []byte("...")):
			end(pos)
			start, startLine = next, line+1
		}
		pos = next
	}
	end(len(data))
	return parts
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)
