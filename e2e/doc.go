// Package e2e holds nodeplan's browser tests: the -o html reports, rendered from the examples,
// are loaded in headless Chromium, which must run them without a script error or a network
// request and show the expected nodes, pods and costs. It is a module of its own so that the
// library's go.mod gains no browser dependency; run it with (cd e2e && go test ./...).
// Without Chromium the tests skip, or fail when CI=true.
package e2e
