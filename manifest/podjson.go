package manifest

import (
	"sync"
	"unicode/utf8"

	jsoniter "github.com/json-iterator/go"
	"github.com/modern-go/reflect2"
	corev1 "k8s.io/api/core/v1"
)

// fastPodJSON decodes Pods, most of what a large input holds, three times faster than the
// standard decoder (whose every call also checks the whole document's syntax first). Its
// decoders are built as documents need them and shared, as encoding/json's are.
var fastPodJSON = newPodJSON()

// podJSON is a json-iterator decoder of Pods configured as the strict decoder is used: keys
// match field names exactly, and an unknown field is an error, after which the document is
// decoded again the usual way, which names it.
type podJSON struct {
	api  jsoniter.API
	lazy *lazyStructs
	// pod builds the decoder of a Pod, which Unmarshal then finds, under lazy.mu like every
	// other: no decoder is built outside it.
	pod func()
}

func newPodJSON() *podJSON {
	d := &podJSON{lazy: &lazyStructs{}, api: jsoniter.Config{CaseSensitive: true, DisallowUnknownFields: true}.Froze()}
	d.api.RegisterExtension(&stringMaps{})
	d.api.RegisterExtension(d.lazy)
	d.lazy.api = d.api
	d.pod = sync.OnceFunc(func() { d.lazy.build(reflect2.TypeOf(corev1.Pod{})) })
	return d
}

// decode decodes a Pod whose document is valid JSON (as every document's raw is: the YAML
// converter writes it, and JSON input is checked when split) into a new Pod. ok is false
// whenever the result could differ from the standard decoder's: for any error (a bad value, an
// unknown field), and for text that is not valid UTF-8, which the standard decoder replaces
// with U+FFFD and this one keeps. FuzzDecodePodFast checks that a Pod decoded here is the one
// the standard decoder makes, with no unknown field.
func (d *podJSON) decode(raw []byte) (*corev1.Pod, bool) {
	if !utf8.Valid(raw) {
		return nil, false
	}
	d.pod()
	p := new(corev1.Pod)
	if d.api.Unmarshal(raw, p) != nil {
		return nil, false
	}
	return p, true
}

// decodePodFast is fastPodJSON.decode.
func decodePodFast(raw []byte) (*corev1.Pod, bool) { return fastPodJSON.decode(raw) }

// fastPodsFrom is how many Pod documents make the fast decoder worth building: building the
// decoders of the types a Pod usually holds costs about what decoding fifty Pods saves.
const fastPodsFrom = 64

// fastPods decodes the Pods of one load with fastPodJSON, or, when nil, leaves them to the
// standard decoder.
type fastPods struct{ json *podJSON }

// newFastPods returns a fastPods for documents with enough Pods, else nil.
func newFastPods(docs []*document) *fastPods {
	n := 0
	for _, doc := range docs {
		if doc.kind == "Pod" && doc.raw != nil {
			n++
		}
	}
	if n < fastPodsFrom {
		return nil
	}
	fastPodJSON.pod() // before the workers start, which would otherwise wait for it
	return &fastPods{json: fastPodJSON}
}

// decode is podJSON.decode; ok is false when f is nil.
func (f *fastPods) decode(raw []byte) (*corev1.Pod, bool) {
	if f == nil {
		return nil, false
	}
	return f.json.decode(raw)
}
