// Command violations counts the failing checks of the solver's plans for the diverse workload:
// it solves Karpenter's diverse pods at each size and seed, checks each plan with package
// check and prints the failures per plugin and the time the solve and the check took.
//
//	go run ./cmd/violations -pods 1000,5000,20000 -seeds 1,2,3
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/conformance/workload"
	"github.com/nodeplan/nodeplan/scheduling"
)

func main() {
	pods := flag.String("pods", "1000,5000", "comma-separated pod counts")
	seeds := flag.String("seeds", "1", "comma-separated seeds")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(ints(*pods), ints(*seeds)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(counts []int, seeds []int) error {
	for _, n := range counts {
		for _, seed := range seeds {
			in := workload.DiverseInput(rand.New(rand.NewPCG(uint64(seed), 0)), n)
			start := time.Now()
			plan, err := scheduling.Solve(in)
			if err != nil {
				return err
			}
			solved := time.Since(start)
			start = time.Now()
			res, err := check.Plan(in, plan)
			if err != nil {
				return err
			}
			fmt.Printf("diverse pods=%d seed=%d: %d failures %v (solve %v, check %v); %s\n",
				n, seed, len(res.Failures), res.ByPlugin(), solved.Round(time.Millisecond),
				time.Since(start).Round(time.Millisecond), res.Summary())
		}
	}
	return nil
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintf(os.Stderr, "not a number: %q\n", f)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}
