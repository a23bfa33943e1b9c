package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// checkReadHeader checks that when readHeader reads a document, json.Unmarshal into header
// and listItems reads the same header and items. It reports whether readHeader read it.
func checkReadHeader(t *testing.T, raw []byte) bool {
	t.Helper()
	h, items, ok := readHeader(raw)
	if !ok {
		return false
	}
	var want header
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: read as %+v, json.Unmarshal fails: %v", raw, h, err)
	}
	if h != want {
		t.Fatalf("%s: read %+v, json.Unmarshal reads %+v", raw, h, want)
	}
	var l listItems
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatalf("%s: read, json.Unmarshal of the items fails: %v", raw, err)
	}
	if len(items) != len(l.Items) {
		t.Fatalf("%s: %d items, json.Unmarshal reads %d", raw, len(items), len(l.Items))
	}
	for i := range items {
		if !bytes.Equal(items[i], l.Items[i]) {
			t.Fatalf("%s: item %d is %s, json.Unmarshal reads %s", raw, i, items[i], l.Items[i])
		}
	}
	return true
}

func TestReadHeader(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		fast      bool
	}{
		{"empty object", `{}`, true},
		{"pod", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"prod","labels":{"name":"x"}},"spec":{"kind":"not this"}}`, true},
		{"list", ` { "apiVersion" : "v1", "items" : [ {"kind":"Pod"} , "x\"]" , [1,{}], null ], "kind":"List" } `, true},
		{"empty list", `{"items":[],"kind":"List","metadata":{}}`, true},
		{"later key wins", `{"kind":"A","kind":"B","metadata":{"name":"a"},"metadata":{"namespace":"n"}}`, true},
		{"escapes elsewhere", `{"a":"c\\","kind":"Pod","metadata":{"annotations":{"a\"b":"\u00e9"}},"spec":{"c\\":1}}`, true},
		{"escaped other key", `{"a\"b":"c","kind":"Pod"}`, false},
		{"other case", `{"Kind":"Pod"}`, false},
		{"other case in metadata", `{"metadata":{"NAME":"x"}}`, false},
		{"escaped key", `{"\u006bind":"Pod"}`, false},
		{"escaped value", `{"kind":"P\u006fd"}`, false},
		{"non-ASCII value", `{"kind":"Pöd"}`, false},
		{"null kind", `{"kind":null}`, false},
		{"number kind", `{"kind":1}`, false},
		{"metadata not an object", `{"metadata":[]}`, false},
		{"items not an array", `{"items":{}}`, false},
		{"null items", `{"items":null}`, false},
		{"not an object", `["kind"]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if fast := checkReadHeader(t, []byte(tc.raw)); fast != tc.fast {
				t.Errorf("read without json.Unmarshal %v, want %v", fast, tc.fast)
			}
		})
	}
}

// FuzzReadHeader checks readHeader against json.Unmarshal on valid JSON.
func FuzzReadHeader(f *testing.F) {
	for _, file := range []string{"testdata/list.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"v1","items":[{"kind":"Pod","metadata":{"name":"a"}}],"kind":"List","metadata":{}}`))
	f.Add([]byte(`{"kind":"A","Kind":"B","metadata":{"name":"a","NaMe":"b"},"items":[1,"2",[3],{"4":5}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) {
			checkReadHeader(t, raw)
		} else {
			readHeader(raw) // some answer, no panic
		}
	})
}

// The header of every test document reads as json.Unmarshal reads it.
func TestReadHeaderOnTestFiles(t *testing.T) {
	read := 0
	for _, file := range yamlSeedFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range splitYAML(data) {
			raw, err := yamlToJSON(part)
			if err != nil || !bytes.HasPrefix(raw, []byte("{")) {
				continue
			}
			if checkReadHeader(t, raw) {
				read++
			}
		}
	}
	if read == 0 {
		t.Fatal("no header read without json.Unmarshal")
	}
}
