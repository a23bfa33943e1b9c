package manifest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// decodeExactly decodes JSON keeping numbers as written (json.Number), so that integers past
// 2^53 compare exactly.
func decodeExactly(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %s: %v", raw, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %s", raw)
	}
	return v
}

// checkFastYAML checks that when fastYAMLToJSON converts a document, sigs.k8s.io/yaml (the
// YAML parser, strict about duplicate keys) converts it too, to JSON of the same value. It
// reports whether the fast path converted it.
func checkFastYAML(t *testing.T, text []byte) bool {
	t.Helper()
	got, ok := fastYAMLToJSON(text)
	if !ok {
		return false
	}
	want, err := yaml.YAMLToJSONStrict(text)
	if err != nil {
		t.Fatalf("%q: converted to %s, the parser fails: %v", text, got, err)
	}
	if g, w := decodeExactly(t, got), decodeExactly(t, want); !reflect.DeepEqual(g, w) {
		t.Fatalf("%q: converted to %s, the parser gives %s", text, got, want)
	}
	return true
}

// Scalars as YAML 1.1 (go.yaml.in/yaml/v2) reads them, each as a value and as a key; fast
// says whether the fast path must take the document (the others it leaves to the parser).
func TestFastYAMLScalars(t *testing.T) {
	for _, tc := range []struct {
		scalar string
		fast   bool // as a value
		key    bool // as a key
	}{
		{"plain", true, true},
		{"two words", true, true},
		{"a:b", true, true},
		{"a#b", true, true},
		{"500m", true, true},
		{"4Gi", true, true},
		{"-foo", true, true},
		{"--flag=x", true, true},
		{".hidden", true, true},
		{"<<", true, false}, // a merge key as a key, a string as a value
		{"y", true, false}, {"Y", true, false}, {"yes", true, false}, {"Yes", true, false}, {"YES", true, false},
		{"yEs", true, true}, {"n", true, false}, {"NO", true, false}, {"on", true, false}, {"Off", true, false},
		{"true", true, false}, {"True", true, false}, {"TRUE", true, false}, {"tRUE", true, true}, {"false", true, false},
		{"~", true, false}, {"null", true, false}, {"Null", true, false}, {"NULL", true, false}, {"nULL", true, true},
		{"0", true, false}, {"-0", true, false}, {"+5", true, false}, {"10", true, false}, {"0777", true, false},
		{"0o17", true, false}, {"0x1F", true, false}, {"0X1f", true, false}, {"0b101", true, false}, {"-0x10", true, false},
		{"9223372036854775807", true, false}, {"-9223372036854775808", true, false}, {"18446744073709551615", true, false},
		{"0xZZ", true, true}, {"1-2a", true, true},
		{"1_000", false, false}, {"08", false, false}, {"1e3", false, false}, {"1.5", false, false}, {".5", false, false},
		{"-.inf", false, false}, {".NaN", false, false}, {"18446744073709551616", false, false},
		{"2001-12-14", false, false}, {"2001-12-14t21:59:43.10-05:00", false, false}, {"1999-x", false, false},
		{"0b2", true, true}, {"0b5e6a8c-2d4f", true, true}, {"0b" + strings.Repeat("1", 64), true, false},
		{"-0b" + strings.Repeat("1", 63), true, false}, {"0b+1", true, false}, {"-0b", true, true},
		{"+", true, true}, {"1.2.3", true, true}, {"1-2", true, true}, {"1e999", false, false},
		{"1.", false, false}, {"-1.5e+3", false, false},
		{`"quoted # not a comment"`, true, true},
		{`"esc \" \\ \n \t \0 \a \b \v \f \r \e \  \'"`, true, true},
		{`"yes"`, true, true}, {`"1"`, true, true}, {`''`, true, true}, {`""`, true, true},
		{`'it''s "x" \n'`, true, true},
		{`"\u00e9"`, false, false}, {`"\x41"`, false, false}, {`"\/"`, false, false},
		{"&anchor x", false, false}, {"*alias", false, false}, {"!!str 1", false, false}, {"|", false, false},
		{">", false, false}, {"@x", false, false}, {"`x", false, false}, {"%x", false, false}, {"? x", false, false},
	} {
		t.Run(tc.scalar, func(t *testing.T) {
			// In flow collections the fast path leaves plain scalars with "#" to the parser.
			plainHash := strings.Contains(tc.scalar, "#") && !strings.HasPrefix(tc.scalar, `"`)
			for _, c := range []struct {
				text string
				fast bool
			}{
				{"k: " + tc.scalar + "\n", tc.fast},
				{"- " + tc.scalar + "\n", tc.fast},
				{"k: [" + tc.scalar + "]\n", tc.fast && !plainHash},
				{tc.scalar + ": v\n", tc.key},
				{"- " + tc.scalar + ": v\n", tc.key},
				{"m: {" + tc.scalar + ": v}\n", tc.key && !plainHash},
			} {
				if fast := checkFastYAML(t, []byte(c.text)); fast != c.fast {
					t.Errorf("%q: converted without the parser %v, want %v", c.text, fast, c.fast)
				}
			}
		})
	}
}

// Structures: what the fast path reads and what it leaves to the parser (whose messages and
// limits then apply).
func TestFastYAMLStructures(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		fast       bool
	}{
		{"empty", "", true},
		{"comments only", "# a\n\n  # b\n", true},
		{"kubectl list", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    labels:\n      app: web\n    name: web-1\n  spec:\n    containers:\n    - name: app\n      resources:\n        requests:\n          cpu: 500m\n  status: {}\nkind: List\nmetadata: {}\n", true},
		{"indented root", "  a: 1\n  b:\n    c: 2\n", true},
		{"sequence at key column", "a:\n- 1\n- 2\nb: 3\n", true},
		{"sequence below key", "a:\n  - 1\n  -\n  - - x\n", false},
		{"null values", "a:\nb: ~\nc:\n- \n-\nd:\n", true},
		{"sequence item null then nested", "-\n  a: 1\n-\n- b\n", true},
		{"item mapping wider", "-   a: 1\n    b: 2\n- c\n", true},
		{"comments everywhere", "# head\na: 1 # one\n# mid\nb: # none\n  c: 'x' # two\nd: [1, 2] # three\n", true},
		{"flow", "a: {b: [1, 'two', \"three\", {c: d e}], f: {}}\ng: [ ]\n", true},
		{"flow items", "- {a: 1, b: [x]}\n- [1, 2]\n- 'q'\n- \"d\" # c\n", true},
		{"dash in flow", "a: [-, -x, {-: -}]\n", true},
		{"dash alone", "a: -\n", false},
		{"flow key", "- {a: 1}: x\n", false},
		{"flow colon in value", "a: {image: registry.k8s.io/pause:3.10}\n", true},
		{"spaces before colon", "a  : 1\n'b' : 2\n", true},
		{"quoted keys", "\"a b\": 1\n'c': 2\n\"\": 3\n", true},
		{"duplicate", "a: 1\na: 2\n", false},
		{"duplicate quoted", "a: 1\n'a': 2\n", false},
		{"duplicate escaped", "\"a\\\"b\": 1\n'a\"b': 2\n", false},
		{"duplicate in flow", "a: {b: 1, b: 2}\n", false},
		{"duplicate in large mapping", "k0: 0\nk1: 1\nk2: 2\nk3: 3\nk4: 4\nk5: 5\nk6: 6\nk7: 7\nk8: 8\nk9: 9\nk10: 10\nk11: 11\nk12: 12\nk13: 13\nk14: 14\nk15: 15\nk16: 16\nk17: 17\nk3: 3\n", false},
		{"same key in sibling mappings", "a: {x: 1}\nb: {x: 2}\nc:\n  x: 3\n", true},
		{"multi-line plain", "a: one\n  two\n", false},
		{"multi-line quoted", "a: \"one\n  two\"\n", false},
		{"multi-line flow", "a: [1,\n  2]\n", false},
		{"block scalar", "a: |\n  text\n", false},
		{"anchor", "a: &x 1\nb: *x\n", false},
		{"merge", "a: {x: 1}\nb:\n  <<: {y: 2}\n", false},
		{"tag", "a: !!str 1\n", false},
		{"tab", "a:\t1\n", false},
		{"crlf", "a: 1\r\n", false},
		{"non-ascii", "# … ✓\nclé: \"é 漢字 😀\"\nb: 'ü'\nc: [ß]\n", true},
		{"next line", "a: \u0085\n", false},
		{"line separator", "a: b\u2028c\n", false},
		{"byte order mark inside", "a: \ufeff\n", false},
		{"C1 control", "a: \u0080\n", false},
		{"invalid UTF-8", "a: \xff\n", false},
		{"delete", "a: \x7f\n", false},
		{"scalar document", "just text\n", false},
		{"flow document", "{a: 1}\n", false},
		{"two values", "a: b: c\n", false},
		{"dedent below root", "  a: 1\nb: 2\n", false},
		{"over-indented key", "a: 1\n  b: 2\n", false},
		{"sequence where key", "a: 1\n- b\n", false},
		{"key after sequence at root", "- a\nb: 1\n", false},
		{"trailing comma", "a: [1, 2, ]\n", false},
		{"flow key without value", "a: {b}\n", false},
		{"flow empty value", "a: {b: }\n", false},
		{"flow adjacent colon", "a: {\"b\":1}\n", false},
		{"comment without space after flow", "a: []#x\n", false},
		{"directive", "%YAML 1.1\na: 1\n", false},
		{"marker inside", "a: 1\n...\n", false},
		{"long key", strings.Repeat("k", 1100) + ": 1\n", false},
		{"complex key", "? a\n: b\n", false},
		{"nested sequence on a line", "- - a\n", false},
		{"deep", strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if fast := checkFastYAML(t, []byte(tc.text)); fast != tc.fast {
				t.Errorf("%q: converted without the parser %v, want %v", tc.text, fast, tc.fast)
			}
		})
	}
}

// The loader's YAML goes through yamlToJSON; with the fast path it reads every document of
// the test files and examples as before: the same JSON value, or the same error.
func TestFastYAMLOnTestFiles(t *testing.T) {
	files := yamlSeedFiles(t)
	converted := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range splitYAML(bytes.TrimPrefix(data, utf8BOM)) {
			if checkFastYAML(t, part.text) {
				converted++
			}
		}
	}
	if converted == 0 {
		t.Fatalf("no document of %d files converted without the parser", len(files))
	}
	t.Logf("%d documents of %d files converted without the parser", converted, len(files))
}

// yamlSeedFiles are the YAML files of the package's testdata and of the repository's
// examples.
func yamlSeedFiles(tb testing.TB) []string {
	var files []string
	for _, pattern := range []string{"testdata/*.yaml", "testdata/bad/*", "testdata/cluster/*.yaml", "../examples/*/*.yaml", "../examples/*/*/*.yaml"} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, matches...)
	}
	return files
}

// yamlStyleFloat is the parser's regular expression.
func FuzzYAMLStyleFloat(f *testing.F) {
	re := regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	for _, s := range []string{"1", "-1.5e+3", ".5", "1.", "+.e1", "1e", "e1", "1.2.3", "", "-", "0b1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := yamlStyleFloat([]byte(s)), re.MatchString(s); got != want {
			t.Fatalf("%q: float shape %v, the expression says %v", s, got, want)
		}
	})
}

// FuzzFastYAML checks the fast path against the parser on any document: whatever it
// converts, the parser converts to the same value. `go test` runs the seeds (the test files,
// examples, and the documents above); `go test -fuzz FuzzFastYAML` explores.
func FuzzFastYAML(f *testing.F) {
	for _, file := range yamlSeedFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, part := range splitYAML(data) {
			f.Add(part.text)
		}
	}
	for _, text := range []string{
		"a: {b: [1, 'two', \"three\", {c: d e}], f: {}}\n",
		"- a: 0x1F\n  b: yes\n  c: \"\\e\\0\"\n-\n  - 'it''s'\n",
		"k: [y, n, ~, -7, +8, 0o17, 500m, a:b]\n",
		string(kubectlPods(3)),
	} {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		checkFastYAML(t, text)
	})
}

// kubectlPods is a List of n pods as "kubectl get pods -o yaml" writes it (block style, keys
// sorted, timestamps quoted), shaped like Karpenter's scheduling benchmark.
func kubectlPods(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nitems:\n")
	cpus := []string{"100m", "250m", `"1"`, "1500m"}
	for i := range n {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2026-01-01T00:00:00Z"
    generation: 1
    labels:
      my-label: %c
      testing/cluster: unspecified
    name: generic-%d
    namespace: default
    uid: %08x-69ab-720e-6390-de6ff60ee8b7
  spec:
    containers:
    - image: public.ecr.aws/eks-distro/kubernetes/pause:3.2
      name: app
      resources:
        requests:
          cpu: %s
          memory: %dMi
    topologySpreadConstraints:
    - labelSelector:
        matchLabels:
          my-label: %c
      maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
  status: {}
`, 'a'+i%7, i, i*2654435761, cpus[i%len(cpus)], 100*(1+i%40), 'a'+i%5)
	}
	b.WriteString("kind: List\nmetadata: {}\n")
	return []byte(b.String())
}

// BenchmarkYAMLToJSON converts a kubectl List of 5,000 pods to JSON: without the parser
// (fast) and, for comparison, with it (the way taken for what the fast path leaves). MB/s is
// the conversion rate.
func BenchmarkYAMLToJSON(b *testing.B) {
	text := kubectlPods(5000)
	if _, ok := fastYAMLToJSON(text); !ok {
		b.Fatal("the fast path does not read the List")
	}
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			fastYAMLToJSON(text)
		}
	})
	b.Run("parser", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			var tree any
			if err := yamlv2.UnmarshalStrict(text, &tree); err != nil {
				b.Fatal(err)
			}
			if _, ok := appendJSON(nil, tree); !ok {
				b.Fatal("not converted")
			}
		}
	})
}

// printableASCII8 agrees with a byte at a time.
func TestPrintableASCII8(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			word := []byte("abcdefgh")
			word[pos] = byte(c)
			want := true
			for _, b := range word {
				want = want && b >= 0x20 && b < 0x7f
			}
			if got := printableASCII8(binary.LittleEndian.Uint64(word)); got != want {
				t.Fatalf("%q: %v, want %v", word, got, want)
			}
		}
	}
}
