package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/instancetype/synthetic"
)

// defaultRegion is the AWS region used when neither --region nor the input names one.
const defaultRegion = "us-west-2"

// catalogFlags are the --catalog and --region flags every command that needs instance types
// shares.
type catalogFlags struct {
	catalog string
	region  string
}

// addCatalogFlags registers --catalog and --region on fs. An empty region means "not given":
// a command that can infer the region from its input does so before calling load.
func addCatalogFlags(fs *flag.FlagSet) *catalogFlags {
	f := &catalogFlags{}
	fs.StringVar(&f.catalog, "catalog", "aws", "instance types: `aws|synthetic|FILE`: the embedded EC2 catalog, generated test types, or a nodeplan/v1 InstanceTypeCatalog file (YAML or JSON)")
	fs.StringVar(&f.region, "region", "", "`region` of the catalog (default "+defaultRegion+" for aws, test-region for synthetic, the file's own for a file)")
	return f
}

func (f *catalogFlags) load() (*instancetype.Catalog, error) {
	return loadCatalog(f.catalog, f.region)
}

// loadCatalog resolves a --catalog value and a --region ("" for the catalog's default):
//
//   - aws: the embedded EC2 catalog of the region (default us-west-2);
//   - synthetic: the generated catalog of instancetype/synthetic; its default region is
//     test-region (zones test-zone-a/b/c), any other region R gets zones Ra, Rb and Rc;
//   - anything else: a catalog file. A region given with a file must match the file's region
//     when the file names one. A file called "aws" or "synthetic" is read as ./aws.
func loadCatalog(name, region string) (*instancetype.Catalog, error) {
	switch name {
	case "":
		return nil, errors.New("--catalog is empty: use aws, synthetic or the path of a catalog file")
	case "aws":
		if region == "" {
			region = defaultRegion
		}
		return aws.Catalog(region)
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
