package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
)

// rawInstance is the part of an ec2instances.info record the generator uses. Field types
// are deliberately tolerant: the scraped data mixes numbers, numeric strings, "N/A" and
// null for the same field across records, and one odd record must not stop a run.
type rawInstance struct {
	InstanceType       flexString  `json:"instance_type"`
	Generation         flexString  `json:"generation"`
	Arch               flexStrings `json:"arch"`
	VCPU               flexNumber  `json:"vCPU"`
	Memory             flexNumber  `json:"memory"` // GiB
	GPU                flexNumber  `json:"GPU"`
	GPUModel           flexString  `json:"GPU_model"`
	GPUMemory          flexNumber  `json:"GPU_memory"` // GiB, all GPUs together
	Storage            *rawStorage `json:"storage"`
	VPC                *rawVPC     `json:"vpc"`
	NetworkPerformance flexString  `json:"network_performance"`
	PhysicalProcessor  flexString  `json:"physical_processor"`
	ClockSpeedGHz      flexString  `json:"clock_speed_ghz"`
	EBSMaxBandwidth    flexNumber  `json:"ebs_max_bandwidth"` // Mbps
	AvailabilityZones  flexZoneMap `json:"availability_zones"`
	Pricing            flexPricing `json:"pricing"`
}

type rawStorage struct {
	Devices  flexNumber `json:"devices"`
	Size     flexNumber `json:"size"` // per device, in SizeUnit
	SizeUnit flexString `json:"size_unit"`
	NVMeSSD  flexBool   `json:"nvme_ssd"`
}

type rawVPC struct {
	IPsPerENI flexNumber `json:"ips_per_eni"`
	MaxENIs   flexNumber `json:"max_enis"`
}

// UnmarshalJSON leaves the storage zero (no devices) when it is not an object.
func (st *rawStorage) UnmarshalJSON(b []byte) error {
	type plain rawStorage
	var v plain
	if json.Unmarshal(b, &v) != nil {
		v = plain{}
	}
	*st = rawStorage(v)
	return nil
}

// UnmarshalJSON leaves the VPC limits zero (unknown) when they are not an object.
func (vpc *rawVPC) UnmarshalJSON(b []byte) error {
	type plain rawVPC
	var v plain
	if json.Unmarshal(b, &v) != nil {
		v = plain{}
	}
	*vpc = rawVPC(v)
	return nil
}

// rawPrice is the "linux" entry of pricing[region].
type rawPrice struct {
	OnDemand flexNumber   `json:"ondemand"`
	Spot     []flexNumber `json:"spot"`
	SpotMin  flexNumber   `json:"spot_min"`
	SpotMax  flexNumber   `json:"spot_max"`
}

// flexNumber accepts a JSON number or a string starting with one ("8", "3.1 GHz"); null,
// "N/A", booleans and anything else leave it invalid.
type flexNumber struct {
	V  float64
	OK bool
}

func (n *flexNumber) UnmarshalJSON(b []byte) error {
	*n = flexNumber{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' || b[0] == 't' || b[0] == 'f' || b[0] == '{' || b[0] == '[' {
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return nil
		}
		v, ok := leadingNumber(s)
		*n = flexNumber{V: v, OK: ok}
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err == nil {
		*n = flexNumber{V: v, OK: true}
	}
	return nil
}

// leadingNumber parses the number at the start of s, ignoring thousands separators and a
// trailing unit ("1,234.5 GiB" → 1234.5).
func leadingNumber(s string) (float64, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, ",", ""))
	end := 0
	for end < len(s) && (s[end] == '.' || s[end] == '-' || s[end] == '+' || (s[end] >= '0' && s[end] <= '9')) {
		end++
	}
	if end == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s[:end], 64)
	return v, err == nil
}

// flexString accepts a string; a number is kept in its JSON spelling; anything else is "".
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	*s = ""
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
	case b[0] == '"':
		var v string
		if json.Unmarshal(b, &v) == nil {
			*s = flexString(strings.TrimSpace(v))
		}
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		*s = flexString(b)
	}
	return nil
}

// flexStrings accepts a list of strings or a single string.
type flexStrings []string

func (l *flexStrings) UnmarshalJSON(b []byte) error {
	*l = nil
	var list []flexString
	if json.Unmarshal(b, &list) == nil {
		for _, s := range list {
			if s != "" {
				*l = append(*l, string(s))
			}
		}
		return nil
	}
	var one flexString
	if json.Unmarshal(b, &one) == nil && one != "" {
		*l = flexStrings{string(one)}
	}
	return nil
}

// flexBool accepts true/false and the strings "true"/"false"/"yes"/"no".
type flexBool bool

func (v *flexBool) UnmarshalJSON(b []byte) error {
	*v = false
	var s flexString
	if string(bytes.TrimSpace(b)) == "true" {
		*v = true
	} else if json.Unmarshal(b, &s) == nil {
		switch strings.ToLower(string(s)) {
		case "true", "yes":
			*v = true
		}
	}
	return nil
}

// flexZoneMap is availability_zones: region → zone IDs. A region whose value is not a list
// of strings is dropped.
type flexZoneMap map[string][]string

func (m *flexZoneMap) UnmarshalJSON(b []byte) error {
	*m = nil
	var raw map[string]json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		return nil
	}
	out := flexZoneMap{}
	for region, v := range raw {
		var zones flexStrings
		_ = zones.UnmarshalJSON(v)
		if len(zones) > 0 {
			out[region] = zones
		}
	}
	*m = out
	return nil
}

// flexPricing is pricing: region → the Linux price entry. Other operating systems are not
// decoded at all, so their oddities cannot matter.
type flexPricing map[string]rawPrice

func (p *flexPricing) UnmarshalJSON(b []byte) error {
	*p = nil
	var raw map[string]map[string]json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		// Some regions may hold a non-object; decode region by region instead.
		var loose map[string]json.RawMessage
		if json.Unmarshal(b, &loose) != nil {
			return nil
		}
		raw = map[string]map[string]json.RawMessage{}
		for region, v := range loose {
			var byOS map[string]json.RawMessage
			if json.Unmarshal(v, &byOS) == nil {
				raw[region] = byOS
			}
		}
	}
	out := flexPricing{}
	for region, byOS := range raw {
		linux, ok := byOS["linux"]
		if !ok {
			continue
		}
		var price rawPrice
		if json.Unmarshal(linux, &price) != nil {
			// "spot" may be something other than a list; keep what decodes.
			var partial struct {
				OnDemand flexNumber `json:"ondemand"`
				SpotMin  flexNumber `json:"spot_min"`
				SpotMax  flexNumber `json:"spot_max"`
			}
			if json.Unmarshal(linux, &partial) != nil {
				continue
			}
			price = rawPrice{OnDemand: partial.OnDemand, SpotMin: partial.SpotMin, SpotMax: partial.SpotMax}
		}
		out[region] = price
	}
	*p = out
	return nil
}

// readInstances decodes instances.json record by record, so that a record with a
// structurally broken field is reported and skipped rather than failing the whole run.
func readInstances(path string) ([]*rawInstance, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var records []json.RawMessage
	if err := json.Unmarshal(data, &records); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]*rawInstance, 0, len(records))
	for i, rec := range records {
		var in rawInstance
		if err := json.Unmarshal(rec, &in); err != nil {
			fmt.Fprintf(os.Stderr, "warning: %s: record %d skipped: %v\n", path, i, err)
			continue
		}
		if in.InstanceType == "" {
			fmt.Fprintf(os.Stderr, "warning: %s: record %d has no instance_type, skipped\n", path, i)
			continue
		}
		out = append(out, &in)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no instance records", path)
	}
	return out, nil
}

// readMaxPods parses eni-max-pods.txt: "<instance type> <max pods>" per line, "#" comments.
func readMaxPods(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		fields := strings.FieldsFunc(text, unicode.IsSpace)
		if len(fields) != 2 {
			fmt.Fprintf(os.Stderr, "warning: %s:%d: ignoring %q\n", path, line, text)
			continue
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "warning: %s:%d: ignoring %q\n", path, line, text)
			continue
		}
		out[fields[0]] = n
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no max-pods entries", path)
	}
	return out, nil
}
