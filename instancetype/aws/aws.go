package aws

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nodeplan/nodeplan/instancetype"
)

//go:embed catalog/*.json.gz
var catalogFiles embed.FS

const catalogSuffix = ".json.gz"

// Regions returns the regions with an embedded catalog, sorted.
func Regions() []string {
	return slices.Clone(embeddedRegions())
}

// embeddedRegions lists the embedded catalogs once; the list never changes.
var embeddedRegions = sync.OnceValue(func() []string {
	entries, err := fs.ReadDir(catalogFiles, "catalog")
	if err != nil {
		// The directory is embedded at build time; it cannot be missing.
		panic(fmt.Sprintf("aws: embedded catalogs: %v", err))
	}
	var regions []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), catalogSuffix); ok && !e.IsDir() {
			regions = append(regions, name)
		}
	}
	sort.Strings(regions)
	return regions
})

// Catalog returns the embedded catalog of region, freshly parsed: callers own the result
// and may modify it. An unknown region is an error that lists the known ones.
func Catalog(region string) (*instancetype.Catalog, error) {
	known := embeddedRegions()
	if i := sort.SearchStrings(known, region); i == len(known) || known[i] != region {
		return nil, fmt.Errorf("aws: no embedded instance-type catalog for region %q; known regions: %s", region, strings.Join(known, ", "))
	}
	source := "aws/" + region
	compressed, err := catalogFiles.ReadFile("catalog/" + region + catalogSuffix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	cat, err := instancetype.ParseCatalog(data, source)
	if err != nil {
		return nil, err
	}
	if cat.Region == "" {
		cat.Region = region
	}
	return cat, nil
}

// zonePattern matches AWS zone names: a region ("us-west-2", "us-gov-east-1") followed by a
// zone letter ("us-west-2a") or, for Local and Wavelength Zones, by a dash and a location
// ("us-west-2-lax-1a", "us-east-1-wl1-bos-wlz-1").
var zonePattern = regexp.MustCompile(`^([a-z]{2}(?:-[a-z]+)+-[0-9]+)(?:[a-z]|-[a-z0-9-]+)$`)

// ZoneRegion tells which region a zone name belongs to ("us-west-2a" → "us-west-2"). It
// recognises any well-formed AWS zone name, so the region may have no embedded catalog:
// check with Catalog. Names that are not AWS zone names ("zone-a") give false.
func ZoneRegion(zone string) (string, bool) {
	// Embedded regions first: their names are known exactly.
	for _, region := range embeddedRegions() {
		rest, ok := strings.CutPrefix(zone, region)
		if !ok {
			continue
		}
		if len(rest) == 1 && rest[0] >= 'a' && rest[0] <= 'z' {
			return region, true
		}
		if len(rest) > 1 && rest[0] == '-' && zonePattern.MatchString(zone) {
			return region, true
		}
	}
	m := zonePattern.FindStringSubmatch(zone)
	if m == nil {
		return "", false
	}
	return m[1], true
}
