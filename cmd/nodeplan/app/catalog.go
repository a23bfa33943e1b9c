package app

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/instancetype/synthetic"
)

// DefaultRegion is the AWS region used when neither --region nor the input names one.
const DefaultRegion = "us-west-2"

// LoadCatalog resolves a --catalog value and a --region ("" for the catalog's default):
//
//   - aws: the embedded EC2 catalog of the region (default us-west-2);
//   - synthetic: the generated catalog of instancetype/synthetic; its default region is
//     test-region (zones test-zone-a/b/c), any other region R gets zones Ra, Rb and Rc;
//   - anything else: a catalog file. A region given with a file must match the file's region
//     when the file names one. A file called "aws" or "synthetic" is read as ./aws.
//
// The embedded AWS catalogs are parsed once per process and shared: callers must not modify
// what LoadCatalog returns (the solver and the disruption decision do not).
func LoadCatalog(name, region string) (*instancetype.Catalog, error) {
	switch name {
	case "":
		return nil, errors.New("--catalog is empty: use aws, synthetic or the path of a catalog file")
	case "aws":
		if region == "" {
			region = DefaultRegion
		}
		return awsCatalog(region)
	case "synthetic":
		if region == "" || region == synthetic.DefaultRegion {
			return synthetic.Default(), nil
		}
		if errs := validation.IsValidLabelValue(region); len(errs) > 0 {
			return nil, fmt.Errorf("--region %q is not a valid region name: %s", region, strings.Join(errs, "; "))
		}
		return synthetic.Catalog(synthetic.Options{Region: region, Zones: []string{region + "a", region + "b", region + "c"}}), nil
	}
	c, err := instancetype.LoadCatalogFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--catalog %s: no such file (use aws, synthetic or the path of a catalog file)", name)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case region == "":
	case c.Region == "":
		c.Region = region
	case c.Region != region:
		return nil, fmt.Errorf("%s: the catalog is for region %s, not %s", name, c.Region, region)
	}
	return c, nil
}

// awsCatalogs caches the parsed embedded catalogs by region: parsing one takes tens of
// milliseconds, and tests and examples load the same region many times.
var awsCatalogs sync.Map // region → func() (*instancetype.Catalog, error)

func awsCatalog(region string) (*instancetype.Catalog, error) {
	load, _ := awsCatalogs.LoadOrStore(region, sync.OnceValues(func() (*instancetype.Catalog, error) {
		return aws.Catalog(region)
	}))
	return load.(func() (*instancetype.Catalog, error))()
}

// OverlaidCatalog is what "nodeplan catalog -f" shows: the catalog of the manifests' region
// with their NodeOverlays applied as to a NodePool with no labels (overlays that select a
// NodePool's name or labels do not apply). It returns the bundle's warnings and those of
// overlays left out for a conflict.
func OverlaidCatalog(cfg Config) (*instancetype.Catalog, []string, error) {
	b, cat, err := cfg.load()
	if err != nil {
		if b != nil {
			return nil, b.Warnings, err
		}
		return nil, nil, err
	}
	if len(b.NodeOverlays) == 0 {
		return cat, append(b.Warnings, "the input has no NodeOverlay: the catalog is shown as it is"), nil
	}
	applied, conflicts := instancetype.ApplyOverlays(b.NodeOverlays, []instancetype.OverlayTarget{{InstanceTypes: cat.InstanceTypes}})
	warnings := b.Warnings
	for _, name := range conflicts {
		warnings = append(warnings, fmt.Sprintf("NodeOverlay %s conflicts with another overlay of the same weight: not applied", name))
	}
	return &instancetype.Catalog{Region: cat.Region, Source: cat.Source + " with NodeOverlays", InstanceTypes: applied[0]}, warnings, nil
}
