package manifest

import (
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	jsoniter "github.com/json-iterator/go"
	"github.com/modern-go/reflect2"
)

// lazyStructs is a json-iterator extension that builds the decoder of a struct type only when
// a document first holds one. Without it, json-iterator builds decoders and encoders for every
// type a Pod can hold (volume sources, security contexts…) before decoding the first, which
// took as long as decoding a few hundred Pods. Decoders are built one at a time, under mu.
type lazyStructs struct {
	jsoniter.DummyExtension
	api jsoniter.API
	mu  sync.Mutex
	// building is the type whose decoder is being built: that one is built for real.
	building reflect.Type
}

// CreateDecoder defers a struct type's decoder, but for types with their own UnmarshalJSON or
// UnmarshalText (Quantity, Time…), which json-iterator treats otherwise at the top level.
func (e *lazyStructs) CreateDecoder(typ reflect2.Type) jsoniter.ValDecoder {
	t := typ.Type1()
	if t.Kind() != reflect.Struct || t == e.building || decodesItself(t) {
		return nil
	}
	return &lazyDecoder{ext: e, typ: typ}
}

// CreateEncoder gives every type an encoder that only fails: the API never encodes, and
// json-iterator would build an encoder for every field of every type it builds a decoder of.
func (e *lazyStructs) CreateEncoder(reflect2.Type) jsoniter.ValEncoder { return noEncoder{} }

// build returns the decoder of typ, building it if no decoder was built for it yet.
func (e *lazyStructs) build(typ reflect2.Type) jsoniter.ValDecoder {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.building = typ.Type1()
	defer func() { e.building = nil }()
	return e.api.DecoderOf(reflect2.PtrTo(typ)) // the decoder of what the pointer points to
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) || p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler)
}

// lazyDecoder decodes a struct type with the decoder built for it when the first value of the
// type is decoded.
type lazyDecoder struct {
	ext *lazyStructs
	typ reflect2.Type
	dec atomic.Pointer[jsoniter.ValDecoder]
}

func (d *lazyDecoder) Decode(ptr unsafe.Pointer, iter *jsoniter.Iterator) {
	dec := d.dec.Load()
	if dec == nil {
		built := d.ext.build(d.typ)
		dec = &built
		d.dec.Store(dec)
	}
	(*dec).Decode(ptr, iter)
}

// noEncoder is the encoder of every type of an API that only decodes.
type noEncoder struct{}

func (noEncoder) IsEmpty(unsafe.Pointer) bool { return false }

func (noEncoder) Encode(_ unsafe.Pointer, stream *jsoniter.Stream) {
	stream.Error = errors.New("this json-iterator API only decodes")
}

// stringMaps is a json-iterator extension that decodes map[string]string (labels,
// annotations, node selectors) into the map directly: json-iterator's own map decoder
// allocates every key and value and stores them through reflection, which was a sixth of
// decoding a Pod.
type stringMaps struct{ jsoniter.DummyExtension }

var stringMapType = reflect.TypeFor[map[string]string]()

func (*stringMaps) CreateDecoder(typ reflect2.Type) jsoniter.ValDecoder {
	if typ.Type1() == stringMapType {
		return stringMapDecoder{}
	}
	return nil
}

// stringMapDecoder decodes a map[string]string as encoding/json does: null makes it nil; an
// object's members are added to it (made if nil), a null value as "".
type stringMapDecoder struct{}

func (stringMapDecoder) Decode(ptr unsafe.Pointer, iter *jsoniter.Iterator) {
	m := (*map[string]string)(ptr)
	if iter.ReadNil() {
		*m = nil
		return
	}
	if *m == nil {
		*m = map[string]string{}
	}
	iter.ReadMapCB(func(iter *jsoniter.Iterator, key string) bool {
		(*m)[key] = iter.ReadString()
		return iter.Error == nil
	})
}
