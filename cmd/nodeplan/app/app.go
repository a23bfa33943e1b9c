// Package app is what the nodeplan CLI does between parsing its flags and printing: load the
// manifests and the instance-type catalog, pick the region, run scheduling.Solve or
// disruption.Decide, and render the answer as a table, the nodeplan/v1 documents or an
// explanation. The CLI is a thin layer over it, and the tests under examples/ call it to run
// exactly what "nodeplan plan" and "nodeplan consolidate" run. It is not a stable API.
//
//	res, err := app.Plan(app.Config{Paths: []string{"examples/stateful-ebs"}})
//	if err != nil {
//		return err // names the file, document and field
//	}
//	app.WritePlanTable(os.Stdout, res)
package app

import (
	"cmp"
	"io"
	"os"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/manifest"
)

// Config is what the command line says.
type Config struct {
	// Paths are files and directories of manifests; "-" reads Stdin.
	Paths []string
	Stdin io.Reader
	// Catalog is aws (the default when empty), synthetic or the path of a catalog file.
	Catalog string
	// Region of the catalog; when empty, the region the input's zones imply, else the
	// catalog's default (us-west-2 for aws).
	Region string
	// Load, when set, reads the input in place of Paths: kubectl-nodeplan lists a cluster's
	// objects and converts them with manifest.FromObjects.
	Load func() (*manifest.Bundle, error)
}

// load reads the manifests, then the catalog of the region they imply. The bundle is returned
// with a later error too, so that its warnings can still be shown.
func (c Config) load() (*manifest.Bundle, *instancetype.Catalog, error) {
	name := c.Catalog
	if name == "" {
		name = "aws"
	}
	if name == "aws" {
		// Parse the embedded catalog of the likely region while the manifests are read (it is
		// parsed once per process; another region is parsed when the input names one).
		region := cmp.Or(c.Region, DefaultRegion)
		go awsCatalog(region) // an error comes again from LoadCatalog below
	}
	var fileCatalog chan catalogResult
	if info, err := os.Stat(name); err == nil && info.Mode().IsRegular() && name != "aws" && name != "synthetic" {
		// A catalog file does not depend on the input (it names its own region): read it
		// while the manifests are read. The input's errors still come first. Not a stream
		// (/dev/stdin), which the input may be reading.
		fileCatalog = make(chan catalogResult, 1)
		go func() {
			cat, err := LoadCatalog(name, c.Region)
			fileCatalog <- catalogResult{cat, err}
		}()
	}
	b, err := c.bundle()
	if err != nil {
		return nil, nil, err
	}
	if fileCatalog != nil {
		r := <-fileCatalog
		if r.err != nil {
			return b, nil, r.err
		}
		return b, r.catalog, nil
	}
	region := c.Region
	if region == "" && (name == "aws" || name == "synthetic") {
		// A catalog file knows its own region; the embedded ones follow the input.
		if region, err = InferRegion(b); err != nil {
			return b, nil, err
		}
	}
	cat, err := LoadCatalog(name, region)
	if err != nil {
		return b, nil, err
	}
	return b, cat, nil
}

type catalogResult struct {
	catalog *instancetype.Catalog
	err     error
}

// bundle reads the input: Load when set, else the files of Paths.
func (c Config) bundle() (*manifest.Bundle, error) {
	if c.Load != nil {
		return c.Load()
	}
	return manifest.Load(c.Paths, c.Stdin)
}
