package main

import (
	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/cmd/nodeplan/cli"
	"github.com/nodeplan/nodeplan/instancetype"
)

// The exit codes, under the names the tests of this package use.
const (
	exitOK    = cli.ExitOK
	exitInput = cli.ExitInput
	exitUsage = cli.ExitUsage
)

func loadCatalog(name, region string) (*instancetype.Catalog, error) {
	return app.LoadCatalog(name, region)
}
