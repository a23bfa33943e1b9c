package cli

import (
	"flag"
	"strings"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/instancetype"
)

// catalogFlags are the --catalog and --region flags every command that needs instance types
// shares.
type catalogFlags struct {
	catalog string
	region  string
}

// addCatalogFlags registers --catalog and --region on fs. An empty region means "not given":
// a command that reads manifests (fromInput) takes the region their zones imply.
func addCatalogFlags(fs *flag.FlagSet, fromInput bool) *catalogFlags {
	f := &catalogFlags{}
	regionDefault := "default " + app.DefaultRegion + " for aws, test-region for synthetic, the file's own for a file"
	if fromInput {
		regionDefault = "default: the region of the zones the input names, else " + strings.TrimPrefix(regionDefault, "default ")
	}
	fs.StringVar(&f.catalog, "catalog", "aws", "instance types: `aws|synthetic|FILE`: the embedded EC2 catalog, generated test types, or a nodeplan/v1 InstanceTypeCatalog file (YAML or JSON)")
	fs.StringVar(&f.region, "region", "", "`region` of the catalog ("+regionDefault+")")
	return f
}

func (f *catalogFlags) load() (*instancetype.Catalog, error) {
	return loadCatalog(f.catalog, f.region)
}

// loadCatalog resolves a --catalog value and a --region ("" for the catalog's default); see
// app.LoadCatalog.
func loadCatalog(name, region string) (*instancetype.Catalog, error) {
	return app.LoadCatalog(name, region)
}
