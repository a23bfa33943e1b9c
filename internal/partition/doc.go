// Package partition finds the cheapest way to split a few items into blocks by trying every
// partition: the exhaustive optimum that the lower-bound tests (bound, scheduling) compare
// their bounds with.
package partition
