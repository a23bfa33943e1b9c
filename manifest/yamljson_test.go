package manifest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// checkSameJSON checks that a document converts to JSON that decodes to what
// sigs.k8s.io/yaml's conversion decodes to, or is left to it.
func checkSameJSON(t *testing.T, text []byte) {
	t.Helper()
	want, wantErr := yaml.YAMLToJSONStrict(text)
	var tree any
	if err := yamlv2.UnmarshalStrict(text, &tree); err != nil {
		if wantErr == nil {
			t.Fatalf("%q: the parser fails (%v), sigs.k8s.io/yaml does not", text, err)
		}
		return
	}
	got, ok := appendJSON(nil, tree)
	if !ok {
		return // converted the usual way
	}
	if wantErr != nil {
		t.Fatalf("%q: converted to %s, sigs.k8s.io/yaml fails: %v", text, got, wantErr)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%q: invalid JSON %s: %v", text, got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%q: got %s, want %s", text, got, want)
	}
}

func TestAppendJSON(t *testing.T) {
	for _, text := range []string{
		"a: 1\nb: [x, 2, true, null, ~]\nc: {d: -3, e: 18446744073709551615}\n",
		"s: \"quote \\\" back \\\\ tab \\t nl \\n bell \\a del \\x7f\"\n",
		"u: \"é 漢字 \\u2028 \\U0001F600\"\n",
		"bin: !!binary gIGC\n", // invalid UTF-8 once decoded
		"f: 1.5\ng: 1e21\nh: 0.0000001\ni: -0.0\n",
		"nan: .nan\n",
		"inf: .inf\n",
		"1: int key\n",
		"true: bool key\n",
		"1.5: float key\n",
		"when: 2001-12-14t21:59:43.10-05:00\n",
		"octal: 0o17\nhex: 0x1F\nold: 017\n",
		"- 1\n- [2, [3]]\n",
		"plain\n",
		"",
		"a: &x {b: 1}\nc: *x\n",
		"<<: {a: 1}\nb: 2\n",
	} {
		checkSameJSON(t, []byte(text))
	}
	files, _ := filepath.Glob("testdata/*.yaml")
	more, _ := filepath.Glob("testdata/*/*.yaml")
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range splitYAML(data) {
			checkSameJSON(t, p.text)
		}
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add([]byte("a: 1\nb: [x, 2.5, true, null]\nc: {d: \"\\x01\"}\n"))
	f.Add([]byte("bin: !!binary gIGC\n1: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		checkSameJSON(t, data)
	})
}
